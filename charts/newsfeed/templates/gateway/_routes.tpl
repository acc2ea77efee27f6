{{/*
The classic single API by path (docs/classic-api.md): which service answers which path. Most specific first.
  /participant/{id}/outbound -> outbound      /participant/{id}/inbound -> inbound
  /outbound?keywords=...     -> search        /participant, /participant/{id}[/friends] -> social-graph
  / (exactly), /graphql      -> edge (the classic GraphQL API)
The patterns end with `$`: controllers match them from the start only (ingress-nginx's `~* "^..."` locations,
Traefik's rules) and try the longest first, so /participant/{id}/outbound would otherwise reach social-graph.
Ingress paths must start with `/`, hence no leading `^`.
*/}}
{{- define "newsfeed.gateway.routes" -}}
routes:
  - service: outbound
    regex: /participant/[^/]+/outbound$
  - service: inbound
    regex: /participant/[^/]+/inbound$
  - service: search
    exact: /outbound
  - service: social-graph
    exact: /participant
  - service: social-graph
    regex: /participant/[^/]+(/friends)?$
  - service: edge
    exact: /graphql
  - service: edge
    exact: /
{{- end -}}
