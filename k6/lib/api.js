// Client of the classic news-feed API. Every request carries an `endpoint` tag (for per-endpoint thresholds
// and Prometheus series) and a `name` tag with the URL template, so ids never become metric labels.
import http from 'k6/http';
import { urls, HTTP_TIMEOUT } from './config.js';

export const link = (id) => `/participant/${id}`;

export function idOf(linkOrId) {
  const m = /^\/participant\/(\d+)$/.exec(String(linkOrId));
  return m ? Number(m[1]) : Number(linkOrId);
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };

// Request params; `expect` lists the statuses that are not failures (default 2xx) for http_req_failed.
// Without extra tags they are built once per endpoint and expectation and shared (read-only): building them,
// a status callback included, for every request was a visible share of k6's CPU at thousands of requests/s.
const SHARED_PARAMS = new Map();
export function params(endpoint, name, expect, extraTags) {
  if (extraTags) return buildParams(endpoint, name, expect, extraTags);
  const key = `${endpoint} ${expect || ''}`;
  let p = SHARED_PARAMS.get(key);
  if (!p) {
    p = Object.freeze(buildParams(endpoint, name, expect, {}));
    SHARED_PARAMS.set(key, p);
  }
  return p;
}

function buildParams(endpoint, name, expect, extraTags) {
  const p = { tags: { endpoint, name, ...extraTags }, headers: JSON_HEADERS, timeout: HTTP_TIMEOUT };
  if (expect) p.responseCallback = http.expectedStatuses(...expect);
  return p;
}

function query(q) {
  let out = '';
  for (const k in q) {
    const v = q[k];
    if (v !== undefined && v !== null) out += `${out ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
  }
  return out;
}

// The request descriptions are plain objects so callers can send them one by one or in an http.batch.
export const req = {
  createParticipant: (name, o = {}) => ({
    method: 'POST', url: `${urls.socialGraph}/participant`, body: JSON.stringify({ name }),
    params: params('participant_create', '/participant', o.expect, o.tags),
  }),
  getParticipant: (id, o = {}) => ({
    method: 'GET', url: `${urls.socialGraph}/participant/${id}`, body: null,
    params: params('participant_get', '/participant/{id}', o.expect, o.tags),
  }),
  befriend: (id, friendId, o = {}) => ({
    method: 'POST', url: `${urls.socialGraph}/participant/${id}/friends`,
    body: JSON.stringify({ from: link(id), to: link(friendId) }),
    params: params('friends_create', '/participant/{id}/friends', o.expect, o.tags),
  }),
  getFriends: (id, q, o = {}) => ({
    method: 'GET', url: `${urls.socialGraph}/participant/${id}/friends${query(q)}`, body: null,
    params: params('friends_get', '/participant/{id}/friends', o.expect, o.tags),
  }),
  postOutbound: (id, subject, story, o = {}) => ({
    method: 'POST', url: `${urls.outbound}/participant/${id}/outbound`,
    body: JSON.stringify({ from: link(id), subject, story }),
    params: params('outbound_post', '/participant/{id}/outbound', o.expect, o.tags),
  }),
  getOutbound: (id, q, o = {}) => ({
    method: 'GET', url: `${urls.outbound}/participant/${id}/outbound${query(q)}`, body: null,
    params: params('outbound_get', '/participant/{id}/outbound', o.expect, o.tags),
  }),
  getInbound: (id, q, o = {}) => ({
    method: 'GET', url: `${urls.inbound}/participant/${id}/inbound${query(q)}`, body: null,
    params: params('inbound_get', '/participant/{id}/inbound', o.expect, o.tags),
  }),
  search: (q, o = {}) => ({
    method: 'GET', url: `${urls.search}/outbound${query(q)}`, body: null,
    params: params('search', '/outbound', o.expect, o.tags),
  }),
};

// The same request with its body left out of the JS runtime (k6 still reads it off the wire): for requests
// whose check looks at the status only.
const LEAN_PARAMS = new WeakMap();
export function bodiless(r) {
  let lean = LEAN_PARAMS.get(r.params);
  if (!lean) {
    lean = { ...r.params, responseType: 'none' };
    LEAN_PARAMS.set(r.params, lean);
  }
  return { ...r, params: lean };
}

export function send(r) {
  return http.request(r.method, r.url, r.body, r.params);
}

// Sends many requests in parallel chunks (k6 `batch`/`batchPerHost` options bound the concurrency).
export function sendAll(requests, chunk) {
  const out = [];
  for (let i = 0; i < requests.length; i += chunk) {
    const slice = requests.slice(i, i + chunk).map((r) => [r.method, r.url, r.body, r.params]);
    out.push(...http.batch(slice));
  }
  return out;
}

// The parsed JSON body, or undefined when the body is not JSON (a check then fails instead of the VU).
export function json(res) {
  try {
    return res.json();
  } catch (e) {
    return undefined;
  }
}
