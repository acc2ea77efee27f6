// k6 load for the report test of ci/tests/observability.sh: RATE requests/s for DURATION against TARGET (the
// fake services), remote-written into the test's Prometheus, so the report's k6 client view has known numbers.
// Tags as in k6/lib/options.js: testid on every sample, `name` instead of `url`.
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  tags: { testid: __ENV.TESTID },
  systemTags: ['status', 'method', 'name', 'group', 'check', 'error_code', 'scenario', 'expected_response'],
  scenarios: {
    probe: {
      executor: 'constant-arrival-rate',
      rate: Number(__ENV.RATE || 2),
      timeUnit: '1s',
      duration: __ENV.DURATION || '3m',
      preAllocatedVUs: 2,
    },
  },
};

export default function () {
  const res = http.get(`${__ENV.TARGET}/ping`, { tags: { name: '/ping', endpoint: 'ping' } });
  check(res, { 'status is 200': (r) => r.status === 200 });
}
