// Fan-out: one poster with FOLLOWERS friends posts (POSTS times, one after the other) and the script polls
// the inbound feeds of a sample of the followers (SAMPLE, or all) until the post is in every one of them
// or FANOUT_TIMEOUT_S passed. fanout_complete_ms is the time from sending the post to the poll round that
// saw it in the last sampled feed (resolution: one poll round + POLL_INTERVAL_MS).
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Trend, Rate, Counter } from 'k6/metrics';
import { SEED, TESTID, str, int, num } from './lib/config.js';
import { req, send, sendAll, json, link, idOf } from './lib/api.js';
import { shape } from './lib/shapes.js';
import { Rng, marker } from './lib/random.js';
import { baseOptions } from './lib/options.js';

export { handleSummary } from './lib/summary.js';

const FOLLOWERS = int('FOLLOWERS', 1000);
const SAMPLE_ALL = str('SAMPLE', '100') === 'all';
const SAMPLE = SAMPLE_ALL ? FOLLOWERS : Math.min(FOLLOWERS, int('SAMPLE', 100));
const POSTS = int('POSTS', 1);
const BATCH = int('FANOUT_BATCH', 100);
const POLL_INTERVAL_MS = int('POLL_INTERVAL_MS', 250);
const TIMEOUT_MS = int('FANOUT_TIMEOUT_S', 120) * 1000;
const SUBJECT_WORDS = int('SUBJECT_WORDS', 5);
const STORY_WORDS = int('STORY_WORDS', 40);

const fanoutComplete = new Trend('fanout_complete_ms', true);
const fanoutFollower = new Trend('fanout_follower_ms', true);
const fanoutReached = new Rate('fanout_reached');
const fanoutMissing = new Counter('fanout_missing');

export const options = baseOptions({
  // setup makes 2 requests per follower; the default budget assumes at least 100 requests/s
  setupTimeout: str('SETUP_TIMEOUT', `${Math.max(300, Math.ceil((FOLLOWERS * 2) / 100))}s`),
  batch: BATCH,
  batchPerHost: BATCH,
  scenarios: {
    fanout: {
      executor: 'per-vu-iterations',
      exec: 'postAndPoll',
      vus: 1,
      iterations: POSTS,
      maxDuration: `${Math.ceil((POSTS * (TIMEOUT_MS + 30000)) / 1000)}s`,
    },
  },
  thresholds: {
    fanout_complete_ms: [`p(95)<${int('FANOUT_P95_MS', 30000)}`, `max<${int('FANOUT_MAX_MS', TIMEOUT_MS)}`],
    fanout_reached: ['rate==1'],
    http_req_failed: [`rate<${num('FAILED_RATE', 0.01)}`],
    'http_req_duration{scenario:fanout}': [`p(95)<${int('P95_MS', 1000)}`, `p(99)<${int('P99_MS', 3000)}`],
    checks: [`rate>=${num('CHECKS_RATE', 1)}`],
  },
});

const created = (r) => r.status === 200;

function createOne(name) {
  const res = send(req.createParticipant(name, { tags: { phase: 'setup' } }));
  const body = json(res);
  return created(res) && shape.participant(body) ? Number(body.id) : undefined;
}

// Creates the followers and befriends each with the poster, BATCH requests in parallel at a time.
export function setup() {
  const poster = createOne(`poster ${marker('fp', TESTID, SEED)}`);
  if (!poster) exec.test.abort('setup could not create the poster');
  const followers = [];
  let failed = 0;
  let nextLog = 0.1;
  for (let start = 0; start < FOLLOWERS; start += BATCH) {
    const names = [];
    for (let i = start; i < Math.min(FOLLOWERS, start + BATCH); i++) {
      names.push(`${Rng.of(SEED, 'follower', i).words(2)} ${i}`);
    }
    const ids = sendAll(names.map((n) => req.createParticipant(n, { tags: { phase: 'setup' } })), BATCH)
      .map((res) => { const b = json(res); return created(res) && shape.participant(b) ? Number(b.id) : undefined; })
      .filter((id) => id !== undefined);
    failed += names.length - ids.length;
    const friended = sendAll(ids.map((id) => req.befriend(poster, id, { tags: { phase: 'setup' } })), BATCH);
    friended.forEach((res, i) => { if (created(res)) followers.push(ids[i]); else failed++; });
    if ((start + BATCH) / FOLLOWERS >= nextLog) {
      console.log(`setup: ${followers.length} of ${FOLLOWERS} followers befriended`);
      nextLog += 0.1;
    }
  }
  check(null, { 'setup: every follower created and befriended': () => failed === 0 });
  if (followers.length === 0) exec.test.abort('setup befriended no follower');
  const rng = Rng.of(SEED, 'sample');
  const sample = SAMPLE_ALL ? followers : rng.sample(followers.length, SAMPLE).map((i) => followers[i]);
  console.log(`setup: poster ${poster}, ${followers.length} followers, polling ${sample.length}`);
  return { poster, sample };
}

function postSeenIn(res, followerId, poster, subject) {
  const items = json(res);
  return res.status === 200 && Array.isArray(items) && items.some((i) => shape.inbound(i)
    && i.subject === subject && i.from === link(poster) && idOf(i.to) === followerId);
}

export function postAndPoll(data) {
  const iter = exec.scenario.iterationInTest;
  const rng = Rng.of(SEED, 'fanout-post', iter);
  // the marker word makes the subject unique to this run and post, so older posts never match
  const subject = `${marker('fx', TESTID, SEED, iter)} ${rng.words(SUBJECT_WORDS)}`;
  const sent = Date.now();
  const res = send(req.postOutbound(data.poster, subject, rng.words(STORY_WORDS)));
  if (!check(res, { 'fanout: post accepted': created })) return;

  const pending = new Set(data.sample);
  let lastSeen = sent;
  while (pending.size > 0 && Date.now() - sent < TIMEOUT_MS) {
    const ids = [...pending];
    const results = sendAll(ids.map((id) => req.getInbound(id, { limit: 20 }, { tags: { phase: 'poll' } })), BATCH);
    const now = Date.now();
    results.forEach((r, i) => {
      if (postSeenIn(r, ids[i], data.poster, subject)) {
        pending.delete(ids[i]);
        fanoutFollower.add(now - sent);
        lastSeen = now;
      }
    });
    if (pending.size > 0) sleep(POLL_INTERVAL_MS / 1000);
  }

  const reached = data.sample.length - pending.size;
  for (let i = 0; i < data.sample.length; i++) fanoutReached.add(i < reached);
  fanoutMissing.add(pending.size);
  if (pending.size === 0) fanoutComplete.add(lastSeen - sent);
  check(null, { 'fanout: post in every sampled inbound before the timeout': () => pending.size === 0 });
  console.log(`fanout post ${iter}: ${reached} of ${data.sample.length} sampled feeds in ${lastSeen - sent} ms`);
}
