// Options shared by every script: the testid tag, metric tags kept low-cardinality for Prometheus, trend
// stats of the summary, and builders for open-loop scenarios and their thresholds.
import { TESTID, str, int } from './config.js';

export const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];

// k6 system tags minus `url` (one series per participant id otherwise; `name` holds the URL template),
// `error` (free text) and the TLS/protocol details nobody graphs.
export const SYSTEM_TAGS = ['status', 'method', 'name', 'group', 'check', 'error_code', 'scenario',
  'expected_response'];

export function baseOptions(extra) {
  return {
    tags: { testid: TESTID },
    systemTags: SYSTEM_TAGS,
    summaryTrendStats: TREND_STATS,
    setupTimeout: str('SETUP_TIMEOUT', '300s'),
    teardownTimeout: str('TEARDOWN_TIMEOUT', '60s'),
    ...extra,
  };
}

// "30s:10,2m:100,30s:0" -> [{duration:'30s',target:10}, ...] (targets in iterations per second)
export function parseStages(text) {
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const [duration, target] = s.split(':');
    const t = Number(target);
    if (!duration || !Number.isFinite(t) || t < 0) throw new Error(`bad stage '${s}' (want duration:rate)`);
    return { duration, target: t };
  });
}

// An open-loop scenario running `exec` at `ratePerSec` iterations per second (per minute internally, so
// fractional rates such as 0.5/s keep their precision), or following `stages` (ramping-arrival-rate) scaled
// by `share`. VUs are pre-allocated/capped per scenario.
export function arrivalScenario(exec, { ratePerSec, share = 1, duration, stages, preAllocatedVUs, maxVUs, startTime }) {
  const perMinute = (perSec) => Math.max(0, Math.round(perSec * 60));
  const base = {
    exec,
    timeUnit: '1m',
    preAllocatedVUs: Math.max(1, preAllocatedVUs),
    maxVUs: Math.max(1, preAllocatedVUs, maxVUs),
    ...(startTime ? { startTime } : {}),
  };
  if (stages && stages.length) {
    return {
      ...base,
      executor: 'ramping-arrival-rate',
      startRate: perMinute(ratePerSec),
      stages: stages.map((s) => ({ duration: s.duration, target: perMinute(s.target * share) })),
    };
  }
  return { ...base, executor: 'constant-arrival-rate', rate: perMinute(ratePerSec), duration };
}

// Latency and error thresholds of one scenario; `<SCENARIO>_P95_MS` etc. override the global ones.
export function scenarioThresholds(name, { p95, p99, failedRate, checksRate }) {
  const up = name.toUpperCase();
  const p95ms = int(`${up}_P95_MS`, p95);
  const p99ms = int(`${up}_P99_MS`, p99);
  return {
    [`http_req_duration{scenario:${name}}`]: [`p(95)<${p95ms}`, `p(99)<${p99ms}`],
    [`http_req_failed{scenario:${name}}`]: [`rate<${failedRate}`],
    [`checks{scenario:${name}}`]: [`rate>=${checksRate}`],
  };
}
