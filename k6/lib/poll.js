// Polling for eventually consistent results (fan-out, search indexing), with a deadline.
import { sleep } from 'k6';

// Calls `attempt` until it returns a truthy value or `timeoutMs` passed; returns the last value.
export function waitFor(attempt, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = attempt();
    if (result || Date.now() >= deadline) return result;
    sleep(intervalMs / 1000);
  }
}
