// The open-loop workloads (social.js over the REST API, graphql.js over edge's GraphQL API, experiment.js): one
// arrival-rate scenario per enabled share of a total rate, with latency, error and check thresholds per
// scenario; social.js's and graphql.js's settings (lib/profiles.js) as such scenarios, and their seeded
// friendships.
import exec from 'k6/execution';
import { SEED } from './config.js';
import { arrivalScenario, baseOptions, scenarioThresholds } from './options.js';
import { Rng } from './random.js';

// A scenario's VUs: its share of a total, rounded up; the tolerance keeps a product that float arithmetic puts a
// hair above a whole number from costing one VU more (20 VUs x 0.3 of shares summing to 0.9999999999999999 is
// 6.000000000000001).
const vusOfShare = (total, share) => Math.ceil(total * share - 1e-9);

// k6 scenarios and thresholds of `rate` iterations/s split by `shares` (name -> weight, normalised over `names`,
// by default every name of `exec`): one arrival-rate scenario per name with a share above 0, running `exec[name]`
// (the exported function) for `durationOf(name, ratePerSec)` (default `duration`), or along `stages`, from
// `startTime`, with its `vus(total, share)` of `preAllocatedVUs` and `maxVUs`. The thresholds are `overall`,
// then the `limits` of each scenario. Returns { enabled (names with a share above 0), scenarios, thresholds }.
export function shareScenarios({
  exec, shares, names = Object.keys(exec), rate, duration, durationOf = () => duration, stages, startTime,
  preAllocatedVUs, maxVUs, vus = vusOfShare, limits, overall = {},
}) {
  const shareTotal = names.reduce((sum, name) => sum + (shares[name] || 0), 0);
  const enabled = names.filter((name) => {
    if (!exec[name]) throw new Error(`unknown scenario '${name}' in SCENARIOS (one of ${Object.keys(exec)})`);
    return shares[name] > 0;
  });

  const scenarios = {};
  for (const name of enabled) {
    const share = shares[name] / shareTotal;
    const ratePerSec = rate * share;
    scenarios[name] = arrivalScenario(exec[name], {
      ratePerSec,
      share,
      duration: durationOf(name, ratePerSec),
      stages,
      startTime,
      preAllocatedVUs: vus(preAllocatedVUs, share),
      maxVUs: vus(maxVUs, share),
    });
  }

  const thresholds = { ...overall };
  for (const name of enabled) Object.assign(thresholds, scenarioThresholds(name, limits));
  return { enabled, scenarios, thresholds };
}

// k6 options of the social settings `S` for the scenarios of `exec` (scenario name -> exported function name):
// { enabled, scenarios, thresholds } of shareScenarios, with an overall `checks` threshold.
export function openLoop(S, exec) {
  // with POSTS_PER_USER every participant posts exactly that often, then the post scenario ends
  const postsScenarioDuration = (ratePerSec) => {
    if (S.postsPerUser <= 0 || S.stages.length) return S.duration;
    return `${Math.ceil((S.participants * S.postsPerUser) / ratePerSec)}s`;
  };
  // a warm-up only in front of a constant rate with free posters (POSTS_PER_USER counts every post)
  const warmup = hasWarmup(S) ? S.warmup : undefined;

  const measured = shareScenarios({
    exec,
    shares: S.shares,
    names: S.scenarios,
    rate: S.rate,
    durationOf: (name, ratePerSec) => (name === 'post_outbound' ? postsScenarioDuration(ratePerSec) : S.duration),
    stages: S.stages,
    startTime: warmup,
    preAllocatedVUs: S.preAllocatedVUs,
    maxVUs: S.maxVUs,
    limits: S.thresholds,
    overall: {
      http_req_failed: [`rate<${S.thresholds.failedRate}`],
      checks: [`rate>=${S.thresholds.checksRate}`],
    },
  });
  return warmup ? withWarmup(measured, warmup) : measured;
}

const hasWarmup = (S) => /[1-9]/.test(S.warmup) && !S.stages.length && S.postsPerUser <= 0;

// The first requests of a fresh service pay for what a steady state does not (connections, prepared statements,
// the broker's metadata, JIT): the same mix at the same rate runs as `warmup_<scenario>` for `warmup` before the
// measured scenarios start. Its requests count in the overall error and check thresholds, not in the per-scenario
// latency ones, and show as their own scenario in every report.
function withWarmup(measured, warmup) {
  const scenarios = { ...measured.scenarios };
  for (const name of measured.enabled) {
    const scenario = { ...measured.scenarios[name], duration: warmup };
    delete scenario.startTime;
    scenarios[`warmup_${name}`] = scenario;
  }
  return { ...measured, scenarios };
}

// The k6 options of a script on the social settings `S` (social.js, graphql.js): openLoop's scenarios and
// thresholds, and setup's requests batched S.setupBatch at a time.
export function openLoopOptions(S, exec) {
  const { scenarios, thresholds } = openLoop(S, exec);
  return baseOptions({
    scenarios,
    thresholds,
    batch: S.setupBatch,
    batchPerHost: S.setupBatch,
  });
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

// The generator of a scenario iteration's data: the same for the same SEED, scenario and iteration number.
export function iterationRng() {
  return Rng.of(SEED, exec.scenario.name, exec.scenario.iterationInTest);
}

// Who posts in this iteration of post_outbound: with POSTS_PER_USER every participant in turn until each has posted
// that often, then nobody (undefined: the scenario has nothing left to do); otherwise one drawn by `rng`.
export function posterOf(S, ids, rng) {
  if (S.postsPerUser <= 0) return rng.pick(ids);
  const iter = exec.scenario.iterationInTest;
  return iter < ids.length * S.postsPerUser ? ids[iter % ids.length] : undefined;
}
