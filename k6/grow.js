// Grows the stored data by one stage, through the API as users would: ADD new participants in groups of GROUP,
// each group a hub whose friends are the other GROUP - 1 (friend lists of GROUP - 1, e.g. 1,000 to 100,000), then
// every hub posts POSTS times, so the fan-out writes (ADD - hubs) x POSTS inbound rows. The posts are accepted
// before k6 ends; their fan-out is asynchronous (ci/bench/experiment/benchmarks.sh's growth step waits for it).
// Settings: ADD (10000), GROUP (1000), POSTS (10), VUS (64: followers created and befriended at once, closed loop),
// SETUP_BATCH (50: hubs created and posts sent at once). Counters: grow_followers (created and befriended),
// grow_posts (accepted); setup and teardown log one line each, the bench reads the last.
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { SEED, TESTID, str, int } from './lib/config.js';
import { req, send, sendAll, json } from './lib/api.js';
import { shape } from './lib/shapes.js';
import { Rng } from './lib/random.js';
import { baseOptions } from './lib/options.js';

export { handleSummary } from './lib/summary.js';

const ADD = int('ADD', 10000);
const GROUP = int('GROUP', 1000);
const POSTS = int('POSTS', 10);
const VUS = int('VUS', 64);
const BATCH = int('SETUP_BATCH', 50);
if (GROUP < 2 || ADD < GROUP) throw new Error('need 2 <= GROUP <= ADD');
if (POSTS < 0 || VUS < 1 || BATCH < 1) throw new Error('need POSTS >= 0, VUS >= 1 and SETUP_BATCH >= 1');
const HUBS = Math.ceil(ADD / GROUP);
const FOLLOWERS = ADD - HUBS;

const followersBefriended = new Counter('grow_followers');
const postsAccepted = new Counter('grow_posts');

export const options = baseOptions({
  batch: BATCH,
  batchPerHost: BATCH,
  // posting is quick (hubs x POSTS requests); the fan-out it starts is not waited for here
  teardownTimeout: str('TEARDOWN_TIMEOUT', `${Math.max(60, Math.ceil((HUBS * POSTS) / 20))}s`),
  scenarios: {
    followers: {
      executor: 'shared-iterations',
      exec: 'follower',
      vus: Math.min(VUS, FOLLOWERS),
      iterations: FOLLOWERS,
      // at the 100 followers/s a loaded machine still does
      maxDuration: str('MAX_DURATION', `${Math.max(600, Math.ceil(FOLLOWERS / 100))}s`),
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.001'],
    checks: ['rate==1'],
  },
});

const created = (r) => r.status === 200;
const tags = (phase) => ({ tags: { phase } });
// names of this run only (a later stage draws new ones)
const nameOf = (role, i) => `${Rng.of(SEED, `grow ${TESTID}`, role, i).words(2)} ${role} ${i}`;

export function setup() {
  const requests = [...Array(HUBS).keys()].map((i) => req.createParticipant(nameOf('hub', i), tags('setup')));
  const hubs = sendAll(requests, BATCH)
    .map((r) => (created(r) && shape.participant(json(r)) ? Number(json(r).id) : undefined));
  if (hubs.some((id) => id === undefined)) exec.test.abort('setup could not create every hub');
  console.log(`setup: ${HUBS} hubs of ${GROUP - 1} friends, ${FOLLOWERS} followers to add`);
  return { hubs };
}

// follower i: created, then befriended by the hub of its group
export function follower(data) {
  const i = exec.scenario.iterationInTest;
  const res = send(req.createParticipant(nameOf('follower', i)));
  if (!check(res, { 'grow: follower created': (r) => created(r) && shape.participant(json(r)) })) return;
  const hub = data.hubs[Math.floor(i / (GROUP - 1))];
  if (check(send(req.befriend(hub, Number(json(res).id))), { 'grow: follower befriended': created })) {
    followersBefriended.add(1);
  }
}

export function teardown(data) {
  const posts = [];
  data.hubs.forEach((hub, h) => {
    for (let p = 0; p < POSTS; p++) {
      const rng = Rng.of(SEED, `grow ${TESTID}`, 'post', h * POSTS + p);
      posts.push(req.postOutbound(hub, rng.words(5), rng.words(40), tags('teardown')));
    }
  });
  const accepted = sendAll(posts, BATCH).filter(created).length;
  postsAccepted.add(accepted);
  check(null, { 'grow: every hub post accepted': () => accepted === posts.length });
  console.log(`teardown: ${accepted} of ${posts.length} posts accepted`);
}
