/**
 * Type 101, web analytics (plugins/analytics), on fixture sites loaded in a real Chromium by the
 * gather step over https on port 443, each once and shared by every subtest below: good and
 * flawed, analytics-local (self-hosted tools only), analytics-kommun (a municipality's start
 * page with Hotjar, Siteimprove Analytics and a Google web font, each loaded from its vendor's
 * real name, test/helpers/third-parties.ts) and infosec-tracking (the Meta Pixel and Hotjar).
 */
import t from 'tap';
import analytics from '../../plugins/analytics/index.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { LIGHT_LOAD, LOOPBACK_GUARD, loadFixture } from '../helpers/fixture-artifacts.js';
import { thirdParties } from '../helpers/third-parties.js';
import { testWorld } from '../helpers/world/index.js';

const probes = createProbes(LOOPBACK_GUARD);
// The vendors' hosts live in this process's world, beside the fixture sites loadFixture serves.
const parties = await thirdParties(await testWorld());
const good = (await loadFixture(t, 'good')).artifacts;
const flawed = (await loadFixture(t, 'flawed')).artifacts;
// Type 101 needs neither Lighthouse nor axe: the fixtures of this file's own load light.
const local = (await loadFixture(t, 'analytics-local', '', LIGHT_LOAD)).artifacts;
const kommun = (await loadFixture(t, 'analytics-kommun', '', LIGHT_LOAD)).artifacts;
const shop = (await loadFixture(t, 'infosec-tracking', 'index.html', LIGHT_LOAD)).artifacts;

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

t.test('type 101: self-hosted tools, by request URLs, external script text and cookies only', async (t) => {
  // /js/umami.js is requested (url) and named in the HTML (body); window.fathom is only in the
  // external /js/stats.js; _pk_ref is Matomo's alone, so the shared _pk_id goes to Matomo too;
  // a lone _gid (shared by Google Analytics and Google Tag Manager) goes to Google Analytics.
  t.same(local.network.filter((r) => new URL(r.url).hostname !== 'analytics-local.test').map((r) => r.url), [], 'nothing from another host');
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

t.test('type 101: Hotjar and Siteimprove Analytics from their own hosts; a Google web font is no analytics', async (t) => {
  // The page really met the vendors under their names, over https on port 443.
  const hosts = kommun.network
    .map((r) => ({ host: new URL(r.url).hostname, r }))
    .filter(({ host }) => host !== 'analytics-kommun.test')
    .map(({ host, r }) => `${host} ${r.status} ${r.remoteAddress === parties.sites[host as keyof typeof parties.sites]?.address}`)
    .sort();
  t.same(hosts, [
    'fonts.googleapis.com 200 true',
    'fonts.gstatic.com 200 true',
    'fonts.gstatic.com 200 true',
    'global.siteimproveanalytics.io 200 true',
    'siteimproveanalytics.com 200 true',
    'static.hotjar.com 200 true',
  ]);
  t.same(parties.requests['global.siteimproveanalytics.io'].filter((r) => r.includes('analytics-kommun.test')).map((r) => r.replace(/&title=.*/, '')),
    ['GET /image.aspx?accountid=6001234&url=https%3A%2F%2Fanalytics-kommun.test%2F'], 'one page view reported to Siteimprove');

  const outcome = await runPlugin(analytics, kommun, { probes });
  t.equal(outcome.error, null);
  t.equal(outcome.rating, NOT_RATED);
  t.same(outcome.data, {
    tools: ['Hotjar', 'Siteimprove Analytics'],
    detections: [
      {
        tool: 'Hotjar',
        evidence: [
          { kind: 'url', match: 'https://static.hotjar.com/c/hotjar-' },
          { kind: 'body', match: 'window.hjSiteSettings' }, // Hotjar's script
          { kind: 'body', match: 'window._hjSettings' }, // the page's snippet
          { kind: 'body', match: 'https://static.hotjar.com/c/hotjar-' },
          // Set by Hotjar's script on the page's own domain.
          { kind: 'cookie', match: '_hjSessionUser_3123456' },
          { kind: 'cookie', match: '_hjSession_3123456' },
        ],
      },
      {
        tool: 'Siteimprove Analytics',
        evidence: [
          { kind: 'url', match: 'siteimproveanalytics.io' }, // the page-view hit
          { kind: 'url', match: 'siteimproveanalytics.com/js/siteanalyze' },
          { kind: 'body', match: 'siteimproveanalytics.io' },
          { kind: 'body', match: 'siteimproveanalytics.com/js/siteanalyze' },
          { kind: 'cookie', match: 'nmstat' },
        ],
      },
    ],
  });
  t.equal(
    outcome.reports.sv.overall,
    [
      'Webbanalys som används: Hotjar, Siteimprove Analytics. Detta är en kartläggning, inget betyg.',
      '- Hotjar: anrop https://static.hotjar.com/c/hotjar-, kod window.hjSiteSettings, kod window._hjSettings, kod https://static.hotjar.com/c/hotjar-, kaka _hjSessionUser_3123456, kaka _hjSession_3123456',
      '- Siteimprove Analytics: anrop siteimproveanalytics.io, anrop siteimproveanalytics.com/js/siteanalyze, kod siteimproveanalytics.io, kod siteimproveanalytics.com/js/siteanalyze, kaka nmstat',
      'Inte bedömt',
    ].join('\n'),
  );
});

t.test('type 101 on the shop: Hotjar; the Meta Pixel is not among the tools it knows', async (t) => {
  const outcome = await runPlugin(analytics, shop, { probes });
  // Type 23 names _fbp the Meta Pixel's cookie (plugins/tracking/analytics-cookies.ts); type 101's
  // rules (core/data/analytics-rules.json) list no Meta Pixel, so its script and hit name no tool.
  t.same(outcome.data, {
    tools: ['Hotjar'],
    detections: [
      {
        tool: 'Hotjar',
        evidence: [
          { kind: 'url', match: 'https://static.hotjar.com/c/hotjar-' },
          { kind: 'body', match: 'window.hjSiteSettings' },
          { kind: 'body', match: 'https://static.hotjar.com/c/hotjar-' },
          { kind: 'cookie', match: '_hjSessionUser_1' },
          { kind: 'cookie', match: '_hjSession_1' },
        ],
      },
    ],
  });
});
