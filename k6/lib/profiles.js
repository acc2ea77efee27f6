// Named load profiles of social.js and graphql.js (PROFILE=smoke|ci|load|stress). A profile only sets defaults:
// every value can still be overridden by its own env var (RATE, DURATION, PARTICIPANTS, ...).
import { str, int, num, duration } from './config.js';
import { parseStages } from './options.js';

export const PROFILES = {
  // a few iterations to see that the script and the services work
  smoke: { rate: 2, duration: '10s', participants: 10, minFriends: 1, maxFriends: 3, vus: 2, maxVus: 10 },
  // short, modest: what ci/tests/load.sh runs on a shared 2-core machine
  ci: { rate: 10, duration: '40s', participants: 50, minFriends: 2, maxFriends: 8, vus: 5, maxVus: 40 },
  // the classic steady load, after a warm-up of the same mix
  load: {
    rate: 50, duration: '5m', warmup: '15s', participants: 1000, minFriends: 5, maxFriends: 50, vus: 20, maxVus: 200,
  },
  // ramp the arrival rate up to find the knee (stages in total iterations per second)
  stress: {
    rate: 10, duration: '10m', participants: 2000, minFriends: 5, maxFriends: 100, vus: 50, maxVus: 500,
    stages: '1m:50,2m:100,2m:200,2m:400,2m:400,1m:0',
  },
};

// The scenarios of each workload: name -> [env var of its share of RATE, default share].
export const SOCIAL_SHARES = {
  post_outbound: ['POST_SHARE', 0.3],
  read_inbound: ['INBOUND_SHARE', 0.4],
  read_outbound: ['OUTBOUND_SHARE', 0.2],
  search: ['SEARCH_SHARE', 0.1],
};
// graphql.js: the same, and the classic client's friends query (every friend's name: 1 + N calls behind it)
export const GRAPHQL_SHARES = {
  post_outbound: ['POST_SHARE', 0.3],
  read_inbound: ['INBOUND_SHARE', 0.3],
  read_outbound: ['OUTBOUND_SHARE', 0.15],
  read_friends: ['FRIENDS_SHARE', 0.15],
  search: ['SEARCH_SHARE', 0.1],
};

// The settings of a social.js (or graphql.js, with GRAPHQL_SHARES) run: profile defaults overridden by env vars.
export function socialSettings(shareVars = SOCIAL_SHARES) {
  const name = str('PROFILE', 'load');
  const p = PROFILES[name];
  if (!p) throw new Error(`unknown PROFILE '${name}' (one of ${Object.keys(PROFILES).join(', ')})`);
  const s = {
    profile: name,
    rate: num('RATE', p.rate),
    duration: str('DURATION', p.duration),
    warmup: duration('WARMUP', p.warmup || '0s'),
    stages: parseStages(str('STAGES', p.stages || '')),
    participants: int('PARTICIPANTS', p.participants),
    minFriends: int('MIN_FRIENDS', p.minFriends),
    maxFriends: int('MAX_FRIENDS', p.maxFriends),
    postsPerUser: int('POSTS_PER_USER', 0),
    subjectWords: int('SUBJECT_WORDS', 5),
    storyWords: int('STORY_WORDS', 40),
    searchKeywords: int('SEARCH_KEYWORDS', 1),
    feedLimit: int('FEED_LIMIT', 20),
    shares: Object.fromEntries(Object.entries(shareVars).map(([name, [variable, def]]) => [name, num(variable, def)])),
    scenarios: str('SCENARIOS', Object.keys(shareVars).join(',')).split(',')
      .map((x) => x.trim()).filter(Boolean),
    preAllocatedVUs: int('PRE_ALLOCATED_VUS', p.vus),
    maxVUs: int('MAX_VUS', p.maxVus),
    setupBatch: int('SETUP_BATCH', 50),
    thresholds: {
      p95: int('P95_MS', 500),
      p99: int('P99_MS', 1500),
      failedRate: num('FAILED_RATE', 0.01),
      checksRate: num('CHECKS_RATE', 0.99),
    },
  };
  if (s.participants < 2) throw new Error('PARTICIPANTS must be at least 2');
  if (s.minFriends < 0 || s.maxFriends < s.minFriends) throw new Error('need 0 <= MIN_FRIENDS <= MAX_FRIENDS');
  return s;
}
