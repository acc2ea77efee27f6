// The open-loop social workloads (social.js over the REST API, graphql.js over edge's GraphQL API): the same
// settings (lib/profiles.js), the same seeded friendships, one arrival-rate scenario per enabled share, and
// latency, error and check thresholds per scenario.
import { arrivalScenario, scenarioThresholds } from './options.js';
import { Rng } from './random.js';

// k6 options of the settings `S` for the scenarios of `exec` (scenario name -> exported function name):
// { enabled (names with a share above 0), scenarios, thresholds }.
export function openLoop(S, exec) {
  const shareTotal = S.scenarios.reduce((sum, name) => sum + (S.shares[name] || 0), 0);
  const enabled = S.scenarios.filter((name) => {
    if (!exec[name]) throw new Error(`unknown scenario '${name}' in SCENARIOS (one of ${Object.keys(exec)})`);
    return S.shares[name] > 0;
  });

  // with POSTS_PER_USER every participant posts exactly that often, then the post scenario ends
  const postsScenarioDuration = (ratePerSec) => {
    if (S.postsPerUser <= 0 || S.stages.length) return S.duration;
    return `${Math.ceil((S.participants * S.postsPerUser) / ratePerSec)}s`;
  };

  const scenarios = {};
  for (const name of enabled) {
    const share = S.shares[name] / shareTotal;
    const ratePerSec = S.rate * share;
    scenarios[name] = arrivalScenario(exec[name], {
      ratePerSec,
      share,
      duration: name === 'post_outbound' ? postsScenarioDuration(ratePerSec) : S.duration,
      stages: S.stages,
      preAllocatedVUs: Math.ceil(S.preAllocatedVUs * share - 1e-9),
      maxVUs: Math.ceil(S.maxVUs * share - 1e-9),
    });
  }

  const thresholds = {
    http_req_failed: [`rate<${S.thresholds.failedRate}`],
    checks: [`rate>=${S.thresholds.checksRate}`],
  };
  for (const name of enabled) Object.assign(thresholds, scenarioThresholds(name, S.thresholds));
  return { enabled, scenarios, thresholds };
}

// The friendships of `count` participants (pairs of indexes): each befriends between MIN_FRIENDS and
// MAX_FRIENDS others, so its degree is at least that; the same for the same seed and settings.
export function friendPairs(S, seed, count) {
  const rng = Rng.of(seed, 'friends', count);
  const pairs = new Map();
  const wanted = Math.min(count - 1, S.maxFriends);
  for (let i = 0; i < count; i++) {
    const k = rng.int(Math.min(S.minFriends, wanted), wanted);
    for (const j of rng.sample(count, k + 1, i).slice(0, k)) {
      const key = i < j ? `${i}-${j}` : `${j}-${i}`;
      if (!pairs.has(key)) pairs.set(key, [i, j]);
    }
  }
  return [...pairs.values()];
}
