// Client of the classic GraphQL API (edge; docs/classic-api.md, "GraphQL mode"), as the classic load client's
// USE_GRAPHQL=true mode writes its documents: every value inlined and quoted, mutations
// `mutation { create<Entity>(input: {k:"v",...}){ ... }}`, queries `query { participant(id: N) { ... }}`, each
// POSTed as {"query": "..."}. The requests are plain objects like lib/api.js's (send / sendAll), tagged with an
// `endpoint` per operation and `name` = the path.
import { urls, str } from './config.js';
import { params, json } from './api.js';

// edge answers on `/graphql` and on `/` (where the classic client POSTs); GRAPHQL_PATH=/ sends there
export const GRAPHQL_PATH = str('GRAPHQL_PATH', '/graphql');

// a GraphQL string literal; for the generated words and ids it is the classic client's plain "..." quoting
const lit = (v) => JSON.stringify(String(v));

function request(endpoint, document, o = {}) {
  return {
    method: 'POST', url: `${urls.edge}${GRAPHQL_PATH}`, body: JSON.stringify({ query: document }),
    params: params(endpoint, GRAPHQL_PATH, o.expect, o.tags),
  };
}

function mutation(endpoint, field, input, returns, o) {
  const fields = Object.entries(input).map(([k, v]) => `${k}:${lit(v)}`).join(',');
  return request(endpoint, `mutation { ${field}(input: {${fields}})${returns}}`, o);
}

const participantQuery = (endpoint, id, selection, o) =>
  request(endpoint, `query { participant(id: ${Number(id)}) { ${selection} }}`, o);

export const gql = {
  createParticipant: (name, o) => mutation('graphql_participant_create', 'createParticipant', { name }, '{ id }', o),
  createFriend: (fromId, toId, o) => mutation('graphql_friends_create', 'createFriend',
    { from_id: fromId, to_id: toId }, '{ to { id } }', o),
  createOutbound: (fromId, occurred, subject, story, o) => mutation('graphql_outbound_post', 'createOutbound',
    { from_id: fromId, occurred, subject, story }, '{ from { id } }', o),
  friends: (id, o) => participantQuery('graphql_friends_get', id, 'friends { id, name }', o),
  inbound: (id, o) => participantQuery('graphql_inbound_get', id, 'inbound { occurred, subject, story }', o),
  outbound: (id, o) => participantQuery('graphql_outbound_get', id, 'outbound { occurred, subject, story }', o),
  posters: (keywords, o) => request('graphql_posters', `query { posters(keywords: ${lit(keywords)}) { id }}`, o),
};

// The `data` of an answer without `errors` (what the classic client accepts), else undefined.
export function dataOf(res) {
  const body = json(res);
  return body && typeof body === 'object' && body.errors === undefined && body.data ? body.data : undefined;
}
