// The classic news-feed load in the classic client's GraphQL mode (USE_GRAPHQL=true), through edge: setup creates
// participants and befriends them with GraphQL mutations (seeded, as social.js), then five open-loop scenarios
// run side by side, each one GraphQL document per iteration as the classic client writes it:
//   post_outbound  mutation { createOutbound(input: {from_id:"N",occurred:"<day>",subject:"..",story:".."})
//                  { from { id } }}
//   read_inbound   query { participant(id: N) { inbound { occurred, subject, story } }}
//   read_outbound  query { participant(id: N) { outbound { occurred, subject, story } }}
//   read_friends   query { participant(id: N) { friends { id, name } }}
//   search         query { posters(keywords: "..") { id }}
// Settings: PROFILE plus env vars, as social.js (k6/README.md); EDGE_URL (or BASE_URL, a gateway) and
// GRAPHQL_PATH. Run: ci/bench/load.sh graphql, or k6 run k6/graphql.js.
import { check } from 'k6';
import exec from 'k6/execution';
import { SEED } from './lib/config.js';
import { send, sendAll } from './lib/api.js';
import { gql, dataOf } from './lib/graphql.js';
import { shape, newestFirst } from './lib/shapes.js';
import { Rng } from './lib/random.js';
import { socialSettings, GRAPHQL_SHARES } from './lib/profiles.js';
import { openLoopOptions, friendPairs, iterationRng, posterOf } from './lib/workload.js';

export { handleSummary } from './lib/summary.js';

const S = socialSettings(GRAPHQL_SHARES);

const EXEC = {
  post_outbound: 'postOutbound',
  read_inbound: 'readInbound',
  read_outbound: 'readOutbound',
  read_friends: 'readFriends',
  search: 'search',
};

export const options = openLoopOptions(S, EXEC);

// edge answers the first page of a feed, as a classic client's plain GET gets it
const FIRST_PAGE = 20;

// ---- setup: participants and friendships, the same for the same SEED and settings ----

const setupTags = { tags: { phase: 'setup' } };

export function setup() {
  const names = [];
  const requests = [];
  for (let i = 0; i < S.participants; i++) {
    names.push(`${Rng.of(SEED, 'participant', i).words(2)} ${i}`);
    requests.push(gql.createParticipant(names[i], setupTags));
  }
  const ids = [];
  const created = [];
  sendAll(requests, S.setupBatch).forEach((res, i) => {
    const data = dataOf(res);
    if (check(res, { 'setup participant: created': (r) => r.status === 200 && data !== undefined })
      && shape.gqlRef(data.createParticipant)) {
      ids.push(Number(data.createParticipant.id));
      created.push(names[i]);
    }
  });
  if (ids.length < 2) exec.test.abort(`setup created ${ids.length} of ${S.participants} participants`);
  const pairs = friendPairs(S, SEED, ids.length);
  const results = sendAll(pairs.map(([a, b]) => gql.createFriend(ids[a], ids[b], setupTags)), S.setupBatch);
  let friended = 0;
  results.forEach((res, k) => {
    const data = dataOf(res);
    const to = String(ids[pairs[k][1]]);
    if (check(res, { 'setup friends: created': (r) => r.status === 200 && data !== undefined
        && data.createFriend && shape.gqlRef(data.createFriend.to) && data.createFriend.to.id === to })) {
      friended++;
    }
  });
  console.log(`setup: ${ids.length} participants, ${friended} of ${pairs.length} friendships (seed ${SEED})`);
  return { ids, names: created };
}

// ---- scenarios; an iteration's data comes from (SEED, scenario, iteration number) ----

// the name of every participant of the run by id, built once per VU
let nameOf;
function names(data) {
  if (!nameOf) nameOf = new Map(data.ids.map((id, i) => [String(id), data.names[i]]));
  return nameOf;
}

const ok = (r) => r.status === 200;
const today = () => new Date().toISOString().slice(0, 10);   // the classic client's `occurred`: a day

export function postOutbound(data) {
  const rng = iterationRng();
  const poster = posterOf(S, data.ids, rng);
  if (poster === undefined) return;
  const res = send(gql.createOutbound(poster, today(), rng.words(S.subjectWords), rng.words(S.storyWords)));
  const answer = dataOf(res);
  check(res, {
    'post outbound: 200': ok,
    'post outbound: the poster, no errors': () => answer !== undefined && answer.createOutbound
      && shape.gqlRef(answer.createOutbound.from) && answer.createOutbound.from.id === String(poster),
  });
}

function feedCheck(name, res) {
  const answer = dataOf(res);
  const feed = answer && answer.participant ? answer.participant[name] : undefined;
  check(res, {
    [`read ${name}: 200`]: ok,
    [`read ${name}: the first page, newest first, no errors`]: () => shape.arrayOf(feed, shape.gqlPost)
      && feed.length <= FIRST_PAGE && newestFirst(feed),
  });
}

export function readInbound(data) {
  feedCheck('inbound', send(gql.inbound(iterationRng().pick(data.ids))));
}

export function readOutbound(data) {
  feedCheck('outbound', send(gql.outbound(iterationRng().pick(data.ids))));
}

export function readFriends(data) {
  const id = iterationRng().pick(data.ids);
  const res = send(gql.friends(id));
  const answer = dataOf(res);
  const friends = answer && answer.participant ? answer.participant.friends : undefined;
  const known = names(data);
  check(res, {
    'read friends: 200': ok,
    'read friends: participants of the run with their names, no errors': () => shape.arrayOf(friends, shape.gqlFriend)
      && friends.every((f) => f.id !== String(id) && known.get(f.id) === f.name),
  });
}

export function search() {
  const rng = iterationRng();
  const res = send(gql.posters(rng.words(S.searchKeywords)));
  const answer = dataOf(res);
  check(res, {
    'search: 200': ok,
    'search: posters as ids, no errors': () => answer !== undefined && shape.arrayOf(answer.posters, shape.gqlRef),
  });
}
