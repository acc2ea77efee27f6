// Configuration from environment variables (k6 `__ENV`), read once per VU in the init context.
// Every knob of every script is an env var documented in k6/README.md; nothing else configures a run.

export function str(name, def) {
  const v = __ENV[name];
  return v === undefined || v === '' ? def : v;
}

export function int(name, def) {
  const raw = str(name, undefined);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got '${raw}'`);
  return n;
}

export function num(name, def) {
  const raw = str(name, undefined);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got '${raw}'`);
  return n;
}

export function bool(name, def) {
  const raw = str(name, undefined);
  if (raw === undefined) return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got '${raw}'`);
}

// A k6 duration ('15s', '2m', '1m30s', '500ms', '0'); anything else stops the run with the variable's name.
export function duration(name, def) {
  const v = str(name, def);
  if (!/^(0|(\d+(\.\d+)?(ms|s|m|h))+)$/.test(v)) throw new Error(`${name} must be a duration such as 15s, 2m or 1m30s, got '${v}'`);
  return v;
}

const trimSlash = (u) => u.replace(/\/+$/, '');

// One BASE_URL (a gateway exposing the classic single API by path) or one URL per service overriding it.
export const BASE_URL = trimSlash(str('BASE_URL', 'http://127.0.0.1:18080'));
export const urls = {
  socialGraph: trimSlash(str('SOCIAL_GRAPH_URL', BASE_URL)),
  outbound: trimSlash(str('OUTBOUND_URL', BASE_URL)),
  inbound: trimSlash(str('INBOUND_URL', BASE_URL)),
  search: trimSlash(str('SEARCH_URL', BASE_URL)),
  // the GraphQL API (graphql.js); a gateway routes `/` and `/graphql` to edge
  edge: trimSlash(str('EDGE_URL', BASE_URL)),
};

// True when at least one service has its own URL: health and /metrics are per service and a gateway
// routes only the classic API, so they can be checked only through per-service URLs.
export const perServiceUrls = ['SOCIAL_GRAPH_URL', 'OUTBOUND_URL', 'INBOUND_URL', 'SEARCH_URL']
  .some((n) => str(n, undefined) !== undefined);

// The run's id, a tag on every sample (and so a label on every remote-written series). Exported options are
// evaluated once for the whole test, so a generated default is the same on every VU where it matters (tags).
export const TESTID = str('TESTID', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, ''));

// Seed of all generated data: the same seed and settings produce the same names, friendships and posts.
export const SEED = int('SEED', 42);

export const SUMMARY_JSON = str('SUMMARY_JSON', 'summary.json');
export const SUMMARY_TEXT = str('SUMMARY_TEXT', '');

// HTTP request timeout for every call (k6 default is 60s, far beyond any useful latency here).
export const HTTP_TIMEOUT = str('HTTP_TIMEOUT', '10s');
