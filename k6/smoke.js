// Smoke: a few requests of every endpoint of the classic API, including bad input (400), unknown ids (404),
// a too large body (413) and, with per-service URLs, /health/live, /health/ready and /metrics; every
// response's status and JSON shape is checked. One VU, one iteration; any failed check fails the run.
import { check, group } from 'k6';
import http from 'k6/http';
import { SEED, TESTID, urls, perServiceUrls, bool, int, HTTP_TIMEOUT } from './lib/config.js';
import { req, send, json, link, idOf } from './lib/api.js';
import { shape, newestFirst } from './lib/shapes.js';
import { Rng, marker } from './lib/random.js';
import { baseOptions } from './lib/options.js';
import { waitFor } from './lib/poll.js';

export { handleSummary } from './lib/summary.js';

const CHECK_HEALTH = bool('SMOKE_HEALTH', perServiceUrls);
const WAIT_MS = int('SMOKE_WAIT_S', 30) * 1000;
const MAX_BODY_BYTES = int('HTTP_MAX_BODY_BYTES', 65536);
const UNKNOWN_ID = int('SMOKE_UNKNOWN_ID', 999999999);

export const options = baseOptions({
  scenarios: { smoke: { executor: 'shared-iterations', exec: 'smoke', vus: 1, iterations: 1, maxDuration: '3m' } },
  thresholds: { checks: ['rate==1'], http_req_failed: ['rate==0'] },
});

const ok = (r) => r.status === 200;
const E400 = { expect: [400] };
const E404 = { expect: [404] };

// a check that the response is the classic error JSON with this status
function checkError(label, res, status) {
  return check(res, { [`${label}: ${status} error JSON`]: (r) => r.status === status && shape.error(json(r), status) });
}

// the same request with a body that is not valid JSON
function badJson(r) {
  return { ...r, body: '{"not json', params: { ...r.params, responseCallback: http.expectedStatuses(400) } };
}

function participants(rng) {
  const name = `${rng.words(2)} ${marker('sm', TESTID, SEED)}`;
  const res = send(req.createParticipant(name));
  const p = json(res);
  check(res, {
    'participant create: 200': ok,
    'participant create: participant shape, name kept': () => shape.participant(p) && p.name === name,
  });
  const got = send(req.getParticipant(p && p.id));
  check(got, {
    'participant get: 200': (r) => r.status === 200,
    'participant get: the created participant': (r) => {
      const b = json(r);
      return shape.participant(b) && String(b.id) === String(p && p.id) && b.name === name;
    },
  });
  checkError('participant get unknown id', send(req.getParticipant(UNKNOWN_ID, E404)), 404);
  checkError('participant get id abc', send(req.getParticipant('abc', E400)), 400);
  checkError('participant get id 0', send(req.getParticipant(0, E400)), 400);
  const noName = req.createParticipant(undefined, E400); // serialised as {}
  checkError('participant create without name', send(noName), 400);
  checkError('participant create with blank name', send(req.createParticipant('  ', E400)), 400);
  checkError('participant create with bad JSON', send(badJson(req.createParticipant('x'))), 400);
  // classic clients send forms by default; any other media type is refused
  const form = req.createParticipant(name);
  const byForm = send({ ...form, body: `name=${encodeURIComponent(name)}`,
    params: { ...form.params, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } } });
  check(byForm, {
    'participant create as a form: 200, name kept': (r) => r.status === 200 && shape.participant(json(r))
      && json(r).name === name,
  });
  checkError('participant create as text/csv', send({ ...form, params: { ...form.params,
    headers: { 'Content-Type': 'text/csv' }, responseCallback: http.expectedStatuses(415) } }), 415);
  checkError('participant create with body over HTTP_MAX_BODY_BYTES',
    send(req.createParticipant('x'.repeat(MAX_BODY_BYTES + 1), { expect: [413] })), 413);
  return shape.participant(p) ? Number(p.id) : NaN;
}

function friendsOf(id) {
  const res = send(req.getFriends(id, { limit: 100 }));
  const body = json(res);
  const ok200 = res.status === 200 && shape.arrayOf(body, shape.friend);
  // a friendship links two participants; the friend is whichever end is not `id`
  return { ok: ok200, ids: ok200 ? body.map((f) => (idOf(f.from) === id ? idOf(f.to) : idOf(f.from))) : [] };
}

function friends(a, b, c) {
  for (const other of [b, c]) {
    const res = send(req.befriend(a, other));
    const f = json(res);
    check(res, {
      'friends create: 200': ok,
      'friends create: friend shape linking both': () => shape.friend(f)
        && [f.from, f.to].sort().join() === [link(a), link(other)].sort().join(),
    });
  }
  const ofA = friendsOf(a);
  check(ofA, { 'friends get: both friends of the participant': (x) => x.ok && x.ids.includes(b) && x.ids.includes(c) });
  check(friendsOf(b), { 'friends get: friendship is mutual': (x) => x.ok && x.ids.includes(a) });
  checkError('friends get unknown id', send(req.getFriends(UNKNOWN_ID, {}, E404)), 404);
  checkError('friends get id abc', send(req.getFriends('abc', {}, E400)), 400);
  checkError('friends get limit 0', send(req.getFriends(a, { limit: 0 }, E400)), 400);
  const badTo = req.befriend(a, b, E400);
  badTo.body = JSON.stringify({ from: link(a), to: '/participant/abc' });
  checkError('friends create with bad link', send(badTo), 400);
  checkError('friends create with bad JSON', send(badJson(req.befriend(a, b))), 400);
  const unknown = send(req.befriend(a, UNKNOWN_ID, { expect: [400, 404] }));
  check(unknown, {
    'friends create with unknown friend: 400/404 error JSON': (r) => [400, 404].includes(r.status)
      && shape.error(json(r), r.status),
  });
}

function outbound(a, rng, word) {
  const subjects = [];
  for (let i = 0; i < 3; i++) {
    const subject = `${word} ${rng.words(4)}`;
    const res = send(req.postOutbound(a, subject, rng.words(20)));
    const o = json(res);
    check(res, {
      'outbound post: 200': ok,
      'outbound post: outbound shape of the poster': () => shape.outbound(o) && o.from === link(a)
        && o.subject === subject,
    });
    subjects.unshift(subject); // newest first
  }
  const res = send(req.getOutbound(a));
  const feed = json(res);
  check(res, {
    'outbound get: 200': (r) => r.status === 200,
    'outbound get: the posts, newest first': () => shape.arrayOf(feed, shape.outbound) && newestFirst(feed)
      && feed.map((o) => o.subject).join('|') === subjects.join('|'),
  });
  checkPaging('outbound', (q, o) => req.getOutbound(a, q, o), subjects);

  checkError('outbound get unknown id', send(req.getOutbound(UNKNOWN_ID, {}, E404)), 404);
  checkError('outbound get id abc', send(req.getOutbound('abc', {}, E400)), 400);
  checkError('outbound get limit 0', send(req.getOutbound(a, { limit: 0 }, E400)), 400);
  checkError('outbound get limit 101', send(req.getOutbound(a, { limit: 101 }, E400)), 400);
  checkError('outbound get bad cursor', send(req.getOutbound(a, { cursor: 'not-a-cursor' }, E400)), 400);
  const noSubject = req.postOutbound(a, 'x', 'y', E400);
  noSubject.body = JSON.stringify({ from: link(a), story: 'no subject' });
  checkError('outbound post without subject', send(noSubject), 400);
  checkError('outbound post with bad JSON', send(badJson(req.postOutbound(a, 'x', 'y'))), 400);
  const unknown = send(req.postOutbound(UNKNOWN_ID, 'x', 'y', { expect: [400, 404] }));
  check(unknown, {
    'outbound post for unknown id: 400/404 error JSON': (r) => [400, 404].includes(r.status)
      && shape.error(json(r), r.status),
  });
  return subjects;
}

// limit=2 gives two items and an X-Next-Cursor; that cursor gives the rest and no further cursor
function checkPaging(label, request, subjectsNewestFirst) {
  const first = send(request({ limit: 2 }));
  const page1 = json(first);
  const cursor = first.headers['X-Next-Cursor'];
  check(first, {
    [`${label} paging: limit=2 gives 2 items and X-Next-Cursor`]: () => Array.isArray(page1)
      && page1.length === 2 && !!cursor,
  });
  if (!cursor) return;
  const second = send(request({ limit: 2, cursor }));
  const page2 = json(second);
  check(second, {
    [`${label} paging: the cursor gives the rest, without a next cursor`]: (r) => r.status === 200
      && Array.isArray(page2) && !r.headers['X-Next-Cursor']
      && [...page1, ...page2].map((x) => x.subject).join('|') === subjectsNewestFirst.join('|'),
  });
}

function inbound(a, b, c, lonely, subjects) {
  for (const friend of [b, c]) {
    // fan-out is asynchronous (Kafka): wait until all three posts arrived
    const res = waitFor(() => {
      const r = send(req.getInbound(friend));
      const items = json(r);
      return r.status === 200 && Array.isArray(items) && items.length >= subjects.length ? r : null;
    }, WAIT_MS) || send(req.getInbound(friend));
    const feed = json(res);
    check(res, {
      'inbound get: 200': (r) => r.status === 200,
      "inbound get: the friend's posts, newest first": () => shape.arrayOf(feed, shape.inbound)
        && newestFirst(feed) && feed.every((i) => i.from === link(a) && i.to === link(friend))
        && feed.map((i) => i.subject).join('|') === subjects.join('|'),
    });
  }
  checkPaging('inbound', (q, o) => req.getInbound(b, q, o), subjects);
  const empty = send(req.getInbound(lonely));
  check(empty, { 'inbound get: no friends, empty feed': (r) => r.status === 200 && Array.isArray(json(r)) && json(r).length === 0 });
  checkError('inbound get unknown id', send(req.getInbound(UNKNOWN_ID, {}, E404)), 404);
  checkError('inbound get id abc', send(req.getInbound('abc', {}, E400)), 400);
  checkError('inbound get limit 0', send(req.getInbound(b, { limit: 0 }, E400)), 400);
  checkError('inbound get limit 101', send(req.getInbound(b, { limit: 101 }, E400)), 400);
  checkError('inbound get bad cursor', send(req.getInbound(b, { cursor: 'not-a-cursor' }, E400)), 400);
}

function search(a, word, subjects) {
  // indexing is asynchronous (Kafka -> Solr): wait until the poster is found by the run's marker word
  const res = waitFor(() => {
    const r = send(req.search({ keywords: word }));
    const links = json(r);
    return r.status === 200 && Array.isArray(links) && links.includes(link(a)) ? r : null;
  }, WAIT_MS) || send(req.search({ keywords: word }));
  check(res, {
    'search: 200': (r) => r.status === 200,
    'search: the poster among the participant links': (r) => shape.links(json(r)) && json(r).includes(link(a)),
  });
  const posts = send(req.search({ keywords: word, posts: 'true' }));
  const found = json(posts);
  check(posts, {
    'search posts=true: 200': (r) => r.status === 200,
    'search posts=true: the three posts': () => shape.arrayOf(found, shape.outbound)
      && subjects.every((s) => found.some((o) => o.subject === s && o.from === link(a))),
  });
  const literal = send(req.search({ keywords: '*:* OR )' }));
  check(literal, { 'search: query syntax is searched literally': (r) => r.status === 200 && shape.links(json(r)) });
  checkError('search without keywords', send(req.search({}, E400)), 400);
  checkError('search limit 101', send(req.search({ keywords: word, limit: 101 }, E400)), 400);
  checkError('search 21 keywords', send(req.search({ keywords: Array(21).fill('w').join(' ') }, E400)), 400);
}

function health() {
  const services = { 'social-graph': urls.socialGraph, outbound: urls.outbound, inbound: urls.inbound, search: urls.search };
  for (const [service, base] of Object.entries(services)) {
    const p = (name) => ({ tags: { endpoint: name, name: `/${name.replace('_', '/')}`, service }, timeout: HTTP_TIMEOUT });
    check(http.get(`${base}/health/live`, p('health_live')), { [`${service} /health/live: 200`]: (r) => r.status === 200 });
    check(http.get(`${base}/health/ready`, p('health_ready')), { [`${service} /health/ready: 200`]: (r) => r.status === 200 });
    check(http.get(`${base}/metrics`, p('metrics')), {
      [`${service} /metrics: Prometheus text with the newsfeed request histogram`]: (r) => r.status === 200
        && r.body.includes('newsfeed_http_server_requests_seconds_bucket'),
    });
  }
}

function createId(name) {
  const res = send(req.createParticipant(name));
  const p = json(res);
  check(res, { 'participant create: 200': ok });
  return shape.participant(p) ? Number(p.id) : NaN;
}

export function smoke() {
  try {
    steps();
  } catch (e) {
    // a script error must fail the run, not just end the iteration early with every check so far green
    console.error(`smoke stopped: ${e}`);
    check(null, { 'smoke: ran to the end without a script error': () => false });
  }
}

function steps() {
  const rng = Rng.of(SEED, 'smoke');
  const word = marker('sm', TESTID, SEED, 'post');
  let a, b, c, lonely;
  group('participant', () => {
    a = participants(rng);
    b = createId(`${rng.words(2)} b`);
    c = createId(`${rng.words(2)} c`);
    lonely = createId(`${rng.words(2)} lonely`);
  });
  if ([a, b, c, lonely].some(Number.isNaN)) throw new Error('could not create the participants');
  group('friends', () => friends(a, b, c));
  let subjects = [];
  group('outbound', () => { subjects = outbound(a, rng, word); });
  group('inbound', () => inbound(a, b, c, lonely, subjects));
  group('search', () => search(a, word, subjects));
  if (CHECK_HEALTH) group('health', health);
}
