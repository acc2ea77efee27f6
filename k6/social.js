// The classic news-feed load: setup creates participants and befriends them (seeded), then four open-loop
// scenarios run side by side: post outbound, read inbound, read outbound, keyword search.
// Settings: PROFILE plus env vars (k6/README.md). Run: ci/bench/load.sh social, or k6 run k6/social.js.
import { check } from 'k6';
import exec from 'k6/execution';
import { SEED } from './lib/config.js';
import { req, send, sendAll, json, link, idOf } from './lib/api.js';
import { shape, newestFirst } from './lib/shapes.js';
import { Rng } from './lib/random.js';
import { socialSettings } from './lib/profiles.js';
import { openLoopOptions, friendPairs, iterationRng, posterOf } from './lib/workload.js';

export { handleSummary } from './lib/summary.js';

const S = socialSettings();

const EXEC = {
  post_outbound: 'postOutbound',
  read_inbound: 'readInbound',
  read_outbound: 'readOutbound',
  search: 'search',
};

export const options = openLoopOptions(S, EXEC);

// ---- setup: participants and friendships, the same for the same SEED and settings ----

function createParticipants() {
  const requests = [];
  for (let i = 0; i < S.participants; i++) {
    const rng = Rng.of(SEED, 'participant', i);
    requests.push(req.createParticipant(`${rng.words(2)} ${i}`, { tags: { phase: 'setup' } }));
  }
  const ids = [];
  for (const res of sendAll(requests, S.setupBatch)) {
    const body = json(res);
    if (check(res, { 'setup participant: created': (r) => r.status === 200 })
      && shape.participant(body)) {
      ids.push(Number(body.id));
    }
  }
  return ids;
}

export function setup() {
  const ids = createParticipants();
  if (ids.length < 2) exec.test.abort(`setup created ${ids.length} of ${S.participants} participants`);
  const pairs = friendPairs(S, SEED, ids.length);
  const results = sendAll(pairs.map(([a, b]) => req.befriend(ids[a], ids[b], { tags: { phase: 'setup' } })),
    S.setupBatch);
  let friended = 0;
  for (const res of results) {
    if (check(res, { 'setup friends: created': (r) => r.status === 200 })) friended++;
  }
  console.log(`setup: ${ids.length} participants, ${friended} of ${pairs.length} friendships (seed ${SEED})`);
  return { ids };
}

// ---- scenarios; an iteration's data comes from (SEED, scenario, iteration number) ----

const ok = (r) => r.status === 200;

export function postOutbound(data) {
  const rng = iterationRng();
  const poster = posterOf(S, data.ids, rng);
  if (poster === undefined) return;
  const subject = rng.words(S.subjectWords);
  const res = send(req.postOutbound(poster, subject, rng.words(S.storyWords)));
  const body = json(res);
  check(res, {
    'post outbound: 200': ok,
    'post outbound: outbound shape of the poster': () => shape.outbound(body) && body.from === link(poster)
      && body.subject === subject,
  });
}

export function readInbound(data) {
  const rng = iterationRng();
  const id = rng.pick(data.ids);
  const res = send(req.getInbound(id, { limit: S.feedLimit }));
  const body = json(res);
  check(res, {
    'read inbound: 200': (r) => r.status === 200,
    'read inbound: feed of the participant, newest first': () => shape.arrayOf(body, shape.inbound)
      && body.length <= S.feedLimit && body.every((i) => idOf(i.to) === id) && newestFirst(body),
  });
}

export function readOutbound(data) {
  const rng = iterationRng();
  const id = rng.pick(data.ids);
  const res = send(req.getOutbound(id, { limit: S.feedLimit }));
  const body = json(res);
  check(res, {
    'read outbound: 200': (r) => r.status === 200,
    'read outbound: posts of the participant, newest first': () => shape.arrayOf(body, shape.outbound)
      && body.length <= S.feedLimit && body.every((o) => idOf(o.from) === id) && newestFirst(body),
  });
}

export function search() {
  const rng = iterationRng();
  const res = send(req.search({ keywords: rng.words(S.searchKeywords) }));
  const body = json(res);
  check(res, {
    'search: 200': (r) => r.status === 200,
    'search: participant links': () => shape.links(body),
  });
}
