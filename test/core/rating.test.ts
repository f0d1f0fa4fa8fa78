import t from 'tap';
import { issueRatings, issueScore, lighthouseRating, lighthouseSeverity, meanRating, round, scoreToRating } from '../../core/rating.js';
import { renderReports } from '../../core/report.js';
import type { Finding } from '../../core/plugin-api.js';

const f = (rule: string, severity: Finding['severity'], category: Finding['category'] = 'webstandard'): Finding => ({
  rule, severity, category, text: { sv: `sv ${rule}`, en: `en ${rule}` },
});

t.test('issue-based rating follows the reference scale exactly', async (t) => {
  t.equal(issueScore([f('a', 'error'), f('b', 'warning'), f('c', 'warning')]), 88);
  t.equal(scoreToRating(88), 4.4, 'the reference example: one error and two warnings → 88 → 4.4');
  t.equal(issueScore([f('a', 'error'), f('a', 'error'), f('a', 'warning')]), 90, 'a rule counts once, at its worst');
  t.equal(issueScore([f('x', 'critical'), f('y', 'info'), f('z', 'resolved')]), 75);
  t.equal(scoreToRating(0), 1, 'never below 1');
  t.equal(issueScore(Array.from({ length: 5 }, (_, i) => f(`c${i}`, 'critical'))), 0);
  const r = issueRatings([f('a', 'error', 'webstandard'), f('b', 'critical', 'infosec')], ['webstandard', 'infosec', 'a11y']);
  t.same(r, { rating: 4.42, ratings: { webstandard: 4.5, infosec: 3.75, a11y: 5 } });
});

t.test('Lighthouse-based ratings and severities', async (t) => {
  t.equal(lighthouseRating(0.87), 4.35);
  t.equal(lighthouseRating(0.1), 1);
  t.equal(lighthouseRating(1), 5);
  t.equal(lighthouseRating(null), -1);
  t.equal(lighthouseSeverity(0.9), 'resolved');
  t.equal(lighthouseSeverity(0.89), 'warning');
  t.equal(lighthouseSeverity(0.5), 'warning');
  t.equal(lighthouseSeverity(0.49), 'error');
});

t.test('means skip not-rated, rounding is half away from zero', async (t) => {
  t.equal(meanRating([4, -1, 5, null, undefined]), 4.5);
  t.equal(meanRating([-1]), -1);
  t.equal(meanRating([]), -1);
  t.equal(round(4.125, 2), 4.13);
  t.equal(round(1.005, 2), 1.01);
  t.equal(round(3.3117283, 5), 3.31173);
});

t.test('reports list what can be improved, per category, in sv and en', async (t) => {
  const reports = renderReports({
    rating: 4.33,
    ratings: { webstandard: 4.5, infosec: 3.75 },
    findings: [{ ...f('a', 'error'), count: 3 }, f('b', 'critical', 'infosec'), f('c', 'resolved', 'infosec')],
    summary: { sv: 'Sammanfattning', en: 'Summary' },
    data: {},
  });
  t.same(reports.en, {
    overall: 'Summary\nRating: 4.33',
    a11y: '',
    perf: '',
    sec: 'Integrity & Security: Rating: 3.75\n- en b',
    stand: 'Standards: Rating: 4.50\n- en a (3)',
  });
  t.equal(reports.sv.stand, 'Standarder: Betyg: 4.50\n- sv a (3)');
  t.equal(reports.sv.overall, 'Sammanfattning\nBetyg: 4.33');
});
