/**
 * Type 101, web analytics (plugins/analytics), on the good, flawed and analytics-local fixture
 * sites, each loaded once in a real Chromium by the gather step and shared by every subtest below.
 */
import t from 'tap';
import analytics from '../../plugins/analytics/index.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { LOOPBACK_GUARD, loadFixture } from '../helpers/fixture-artifacts.js';

const probes = createProbes(LOOPBACK_GUARD);
const good = (await loadFixture(t, 'good')).artifacts;
const flawed = (await loadFixture(t, 'flawed')).artifacts;
const local = (await loadFixture(t, 'analytics-local')).artifacts;

t.test('type 101: the flawed fixture uses Google Analytics and Matomo', async (t) => {
  const outcome = await runPlugin(analytics, flawed, { probes });
  t.equal(outcome.error, null);
  t.equal(outcome.typeOfTest, 101);
  t.equal(outcome.rating, NOT_RATED);
  t.same(outcome.ratings, {});
  t.same(outcome.data, {
    tools: ['Google Analytics', 'Matomo'],
    detections: [
      // _ga is shared with Google Tag Manager, which has no evidence of its own here.
      { tool: 'Google Analytics', evidence: [{ kind: 'body', match: 'window.GoogleAnalyticsObject' }, { kind: 'cookie', match: '_ga' }] },
      { tool: 'Matomo', evidence: [{ kind: 'body', match: 'matomo.php' }] },
    ],
  });
  t.equal(
    outcome.reports.sv.overall,
    [
      'Webbanalys som används: Google Analytics, Matomo. Detta är en kartläggning, inget betyg.',
      '- Google Analytics: kod window.GoogleAnalyticsObject, kaka _ga',
      '- Matomo: kod matomo.php',
      'Inte bedömt',
    ].join('\n'),
  );
  t.match(outcome.reports.en.overall, /^Web analytics in use: Google Analytics, Matomo\. This is a detection, not a judgement: not rated\.\n/);
});

t.test('type 101: the good fixture uses no analytics', async (t) => {
  const outcome = await runPlugin(analytics, good, { probes });
  t.equal(outcome.rating, NOT_RATED);
  t.same(outcome.data, { tools: [], detections: [] });
  t.equal(outcome.reports.en.overall, 'None of 29 known web-analytics tools was found. This is a detection, not a judgement: not rated.\nNot rated');
});

t.test('type 101: request URLs, external script text and cookies only', async (t) => {
  // /js/umami.js is requested (url) and named in the HTML (body); window.fathom is only in the
  // external /js/stats.js; _pk_ref is Matomo's alone, so the shared _pk_id goes to Matomo too;
  // a lone _gid (shared by Google Analytics and Google Tag Manager) goes to Google Analytics.
  const outcome = await runPlugin(analytics, local, { probes });
  t.same(outcome.data, {
    tools: ['Fathom Analytics', 'Google Analytics', 'Matomo', 'Umami'],
    detections: [
      { tool: 'Fathom Analytics', evidence: [{ kind: 'body', match: 'window.fathom' }] },
      { tool: 'Google Analytics', evidence: [{ kind: 'cookie', match: '_gid' }] },
      { tool: 'Matomo', evidence: [{ kind: 'cookie', match: '_pk_ref.1.a1b2' }, { kind: 'cookie', match: '_pk_id.1.a1b2' }] },
      { tool: 'Umami', evidence: [{ kind: 'url', match: '/umami.js' }, { kind: 'body', match: '/umami.js' }] },
    ],
  });
});
