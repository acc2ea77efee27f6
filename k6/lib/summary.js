// handleSummary for every script: the full summary as JSON (SUMMARY_JSON, default summary.json) and a
// compact text summary on stdout (and in SUMMARY_TEXT when set). Written here because the usual jslib
// text summary is a remote import and runs must work offline and in-cluster.
import { SUMMARY_JSON, SUMMARY_TEXT, TESTID } from './config.js';

const MS_METRICS = /duration|_ms$|blocked|connecting|waiting|sending|receiving|tls_handshaking/;

function fmt(name, key, v) {
  if (v === undefined || v === null) return '-';
  if (key === 'rate') return `${(v * 100).toFixed(2)}%`;
  if (MS_METRICS.test(name) && key !== 'count') return v >= 1000 ? `${(v / 1000).toFixed(2)}s` : `${v.toFixed(2)}ms`;
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

function metricLine(name, m) {
  const v = m.values;
  switch (m.type) {
    case 'trend':
      return ['avg', 'med', 'p(95)', 'p(99)', 'max', 'count']
        .filter((k) => k in v).map((k) => `${k}=${fmt(name, k, v[k])}`).join(' ');
    case 'rate':
      return `${fmt(name, 'rate', v.rate)} (${v.passes} of ${v.passes + v.fails})`;
    case 'counter':
      return `${fmt(name, 'count', v.count)} (${v.rate.toFixed(2)}/s)`;
    default:
      return `value=${fmt(name, 'value', v.value)} min=${fmt(name, 'min', v.min)} max=${fmt(name, 'max', v.max)}`;
  }
}

function collectChecks(group, out) {
  for (const c of group.checks || []) out.push(c);
  for (const g of group.groups || []) collectChecks(g, out);
  return out;
}

export function textSummary(data) {
  const lines = [];
  const seconds = ((data.state && data.state.testRunDurationMs) || 0) / 1000;
  lines.push('', `testid ${TESTID}, ran ${seconds.toFixed(1)}s`, '', 'THRESHOLDS');
  let failedThresholds = 0;
  const names = Object.keys(data.metrics).sort();
  for (const name of names) {
    const m = data.metrics[name];
    for (const [expr, t] of Object.entries(m.thresholds || {})) {
      if (!t.ok) failedThresholds++;
      lines.push(`  ${t.ok ? 'ok  ' : 'FAIL'} ${name} ${expr}: ${metricLine(name, m)}`);
    }
  }
  lines.push('', 'CHECKS');
  const checks = collectChecks(data.root_group, []);
  for (const c of checks) {
    lines.push(`  ${c.fails === 0 ? 'ok  ' : 'FAIL'} ${c.name}: ${c.passes} passed, ${c.fails} failed`);
  }
  lines.push('', 'METRICS');
  for (const name of names) {
    if (name.includes('{')) continue; // submetrics are shown with their thresholds
    lines.push(`  ${name}: ${metricLine(name, data.metrics[name])}`);
  }
  const failedChecks = checks.filter((c) => c.fails > 0).length;
  lines.push('', `RESULT ${failedThresholds === 0 ? 'PASS' : 'FAIL'}: ${failedThresholds} thresholds failed, `
    + `${failedChecks} checks with failures`, '');
  return lines.join('\n');
}

export function handleSummary(data) {
  const text = textSummary(data);
  const out = { stdout: text, [SUMMARY_JSON]: JSON.stringify(data, null, 2) };
  if (SUMMARY_TEXT) out[SUMMARY_TEXT] = text;
  return out;
}
