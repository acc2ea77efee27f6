// Benchmark workload of the scaling experiments (ci/bench/experiment.sh --scenario experiment) and docs/benchmarks.md:
// unlike social.js, every participant has exactly FRIENDS friends (a ring: i befriends i+1..i+FRIENDS/2), so a
// post fans out to exactly FRIENDS feeds, and setup fills every feed first (PREFILL_POSTS posts per
// participant, then waits until a sample of feeds is full), so reads return full pages from the first second.
// Then up to four open-loop scenarios at RATE iterations/s in total, split by share:
//   post_outbound (POST_SHARE, default 0), read_inbound (INBOUND_SHARE, default 1), search (SEARCH_SHARE, 0),
//   read_cold (COLD_SHARE, 0): first pages of feeds of participants this run did not make, ids drawn uniformly from
//   COLD_IDS (`FIRST:LAST`, each an existing participant), e.g. those grown by grow.js, whose feeds nobody reads
//   otherwise, so their pages come from Cassandra rather than the feed cache.
// START_DELAY (none): an idle pause between setup and the load (k6 startTime), e.g. so that the fan-out of the
// prefilled posts settles and a metrics scrape falls between setup and the measured window.
// Other settings: PARTICIPANTS (1000), FRIENDS (10), PREFILL_POSTS (3), DURATION (1m), FEED_LIMIT (20),
// PRE_ALLOCATED_VUS (50), MAX_VUS (400), SETUP_BATCH (50), P95_MS/P99_MS (500/1500), FAILED_RATE (0.01),
// CHECK_EVERY (1): every CHECK_EVERY-th iteration of a scenario checks the whole response (shape, ids, page size),
// the others check the status only and keep the body out of the JS runtime (responseType 'none'). At thousands
// of requests/s, parsing and walking every body cost k6 more CPU than the request did (docs/benchmarks/2026-11-23.md).
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { SEED, str, int, num } from './lib/config.js';
import { req, send, sendAll, json, link, idOf, bodiless } from './lib/api.js';
import { shape } from './lib/shapes.js';
import { Rng } from './lib/random.js';
import { baseOptions } from './lib/options.js';
import { shareScenarios } from './lib/workload.js';

export { handleSummary } from './lib/summary.js';

const PARTICIPANTS = int('PARTICIPANTS', 1000);
const FRIENDS = 2 * Math.floor(int('FRIENDS', 10) / 2);
const PREFILL_POSTS = int('PREFILL_POSTS', 3);
const RATE = num('RATE', 100);
const DURATION = str('DURATION', '1m');
const FEED_LIMIT = int('FEED_LIMIT', 20);
const BATCH = int('SETUP_BATCH', 50);
const CHECK_EVERY = int('CHECK_EVERY', 1);
const START_DELAY = str('START_DELAY', '');
// a read returns at least the prefilled page (posts during the run only add to it), never more than FEED_LIMIT
const FULL_PAGE = Math.min(FEED_LIMIT, FRIENDS * PREFILL_POSTS);
const SHARES = {
  post_outbound: num('POST_SHARE', 0), read_inbound: num('INBOUND_SHARE', 1), search: num('SEARCH_SHARE', 0),
  read_cold: num('COLD_SHARE', 0),
};
const EXEC = { post_outbound: 'postOutbound', read_inbound: 'readInbound', search: 'search', read_cold: 'readCold' };
const [COLD_FIRST, COLD_LAST] = str('COLD_IDS', '').split(':').map(Number);
if (SHARES.read_cold > 0 && !(Number.isInteger(COLD_FIRST) && Number.isInteger(COLD_LAST) && COLD_FIRST <= COLD_LAST)) {
  throw new Error('COLD_SHARE needs COLD_IDS=FIRST:LAST');
}
if (!Object.values(SHARES).some((share) => share > 0)) throw new Error('every share is 0');
if (FRIENDS < 2 || FRIENDS >= PARTICIPANTS) throw new Error('need 2 <= FRIENDS < PARTICIPANTS');
if (CHECK_EVERY < 1) throw new Error('CHECK_EVERY must be at least 1');

const LIMITS = { p95: int('P95_MS', 500), p99: int('P99_MS', 1500), failedRate: num('FAILED_RATE', 0.01), checksRate: num('CHECKS_RATE', 0.99) };
const { scenarios, thresholds } = shareScenarios({
  exec: EXEC, shares: SHARES, rate: RATE, duration: DURATION, startTime: START_DELAY,
  preAllocatedVUs: int('PRE_ALLOCATED_VUS', 50), maxVUs: int('MAX_VUS', 400),
  // the plain ceiling of each share: the VU counts the benchmarks of docs/benchmarks.md ran with
  vus: (total, share) => Math.ceil(total * share),
  limits: LIMITS, overall: { http_req_failed: [`rate<${LIMITS.failedRate}`] },
});

export const options = baseOptions({
  scenarios, thresholds, batch: BATCH, batchPerHost: BATCH,
  setupTimeout: str('SETUP_TIMEOUT', `${Math.max(300, Math.ceil(PARTICIPANTS * (1 + FRIENDS / 2 + PREFILL_POSTS) / 50))}s`),
});

const created = (r) => r.status === 200;
const setupTags = { tags: { phase: 'setup' } };

export function setup() {
  const ids = sendAll([...Array(PARTICIPANTS).keys()].map((i) =>
    req.createParticipant(`${Rng.of(SEED, 'participant', i).words(2)} ${i}`, setupTags)), BATCH)
    .map((r) => (created(r) && shape.participant(json(r)) ? Number(json(r).id) : undefined));
  if (ids.some((id) => id === undefined)) exec.test.abort('setup could not create every participant');
  const pairs = [];
  for (let i = 0; i < ids.length; i++) {
    for (let k = 1; k <= FRIENDS / 2; k++) pairs.push(req.befriend(ids[i], ids[(i + k) % ids.length], setupTags));
  }
  const friended = sendAll(pairs, BATCH).filter(created).length;
  if (friended !== pairs.length) exec.test.abort(`setup: ${friended} of ${pairs.length} friendships`);
  const posts = [];
  for (let p = 0; p < PREFILL_POSTS; p++) {
    ids.forEach((id, i) => {
      const rng = Rng.of(SEED, 'prefill', p * ids.length + i);
      posts.push(req.postOutbound(id, rng.words(5), rng.words(40), setupTags));
    });
  }
  const posted = sendAll(posts, BATCH).filter(created).length;
  // the fan-out is asynchronous: wait until a sample of feeds holds what their friends posted
  const sample = Rng.of(SEED, 'sample').sample(ids.length, Math.min(20, ids.length)).map((i) => ids[i]);
  const deadline = Date.now() + int('PREFILL_TIMEOUT_S', 120) * 1000;
  let full = 0;
  while (Date.now() < deadline) {
    full = sendAll(sample.map((id) => req.getInbound(id, { limit: FEED_LIMIT }, setupTags)), BATCH)
      .filter((r) => r.status === 200 && (json(r) || []).length >= FULL_PAGE).length;
    if (full === sample.length) break;
    sleep(0.5);
  }
  console.log(`setup: ${ids.length} participants, ${friended} friendships (${FRIENDS} friends each), `
    + `${posted} posts, ${full} of ${sample.length} sampled feeds full`);
  return { ids };
}

// The iteration's seeded data and whether it checks the whole response. Each scenario's data is a stream of its
// own, numbered by the iteration; the scenario's name is passed in (exec.scenario builds a new object per access).
const STREAMS = Object.fromEntries(Object.keys(EXEC).map((name) => [name, Rng.stream(SEED, name)]));
function iteration(scenario) {
  const n = exec.scenario.iterationInTest;
  return { rng: STREAMS[scenario](n), deep: n % CHECK_EVERY === 0 };
}

// the status-only request of an iteration that does not check the body
const lean = (r, deep) => (deep ? r : bodiless(r));

// an iteration checks either the status only or (deep) the whole response
const verify = (res, deep, status, whole) => check(res, deep ? whole : status);

export function postOutbound(data) {
  const { rng, deep } = iteration('post_outbound');
  const poster = rng.pick(data.ids);
  const res = send(lean(req.postOutbound(poster, rng.words(5), rng.words(40)), deep));
  verify(res, deep, { 'post outbound: 200': created }, {
    'post outbound: 200 with the outbound shape': (r) => created(r) && shape.outbound(json(r))
      && json(r).from === link(poster),
  });
}

// the first page of participant id's feed: status 200, or (deep) a page of the participant's own items, at least
// minLength and at most FEED_LIMIT of them; `what` names the checks
function readFeed(id, deep, what, page, minLength) {
  const res = send(lean(req.getInbound(id, { limit: FEED_LIMIT }), deep));
  verify(res, deep, { [`${what}: 200`]: (r) => r.status === 200 }, {
    [`${what}: 200, ${page} of the participant`]: (r) => {
      const feed = json(r);
      return r.status === 200 && shape.arrayOf(feed, shape.inbound) && feed.length >= minLength
        && feed.length <= FEED_LIMIT && feed.every((i) => idOf(i.to) === id);
    },
  });
}

export function readInbound(data) {
  const { rng, deep } = iteration('read_inbound');
  readFeed(rng.pick(data.ids), deep, 'read inbound', 'a full page', FULL_PAGE);
}

export function readCold() {
  const { rng, deep } = iteration('read_cold');
  readFeed(rng.int(COLD_FIRST, COLD_LAST), deep, 'read cold inbound', 'a page', 0);
}

export function search() {
  const { rng, deep } = iteration('search');
  const res = send(lean(req.search({ keywords: rng.words(1) }), deep));
  verify(res, deep, { 'search: 200': (r) => r.status === 200 }, {
    'search: 200 with participant links': (r) => r.status === 200 && shape.links(json(r)),
  });
}
