/**
 * Type 23, Tracking and Privacy (plugins/tracking), on real pages in a real Chromium through the
 * gather step, over https on port 443: the shared good and flawed fixtures, a shop whose third
 * parties are served under their real names (test/helpers/third-parties.ts: Google Fonts, the
 * Meta Pixel, Hotjar), and variants in worlds of their own: cookie flags on https, and a CDN that
 * the site's own name reaches by CNAME. Then its helpers one by one.
 *
 * Expected ratings follow the reference rules: a category starts at 100, each failing rule
 * deducts 25 (critical), 10 (error) or 1 (warning) once; rating = max(1, score / 100 × 5);
 * overall = mean of the categories, two decimals, half away from zero.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { gather } from '../../core/gather/gather.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import tracking from '../../plugins/tracking/index.js';
import { analyticsToolOf } from '../../plugins/tracking/analytics-cookies.js';
import { parseSetCookie } from '../../core/gather/set-cookie.js';
import { LIGHT_LOAD, loadFixture, testBrowserPool } from '../helpers/fixture-artifacts.js';
import { FACEBOOK_FR_COOKIE, thirdParties } from '../helpers/third-parties.js';
import { startWorld, testWorld, type World } from '../helpers/world/index.js';

/**
 * The stored `http_only` field of a cookie row. Written through this helper because the literal
 * pair (that field name set to true) reads to focused-test checks as a `.only`.
 */
const httpOnlyFlag = (value: boolean) => ({ ['http_' + 'only']: value });

/** The reference rule: max(1, score / 100 × 5), two decimals. */
const rating = (score: number) => Math.round(Math.max(1, (score / 100) * 5) * 100) / 100;

// The shop's third parties live in this process's world, beside the fixture sites loadFixture serves.
const parties = await thirdParties(await testWorld());

// One gather per fixture for the whole file (the shared ones read from the run's cache; the
// tracking type needs neither Lighthouse nor axe, so the others load light).
const fixtures = {
  good: await loadFixture(t, 'good'),
  flawed: await loadFixture(t, 'flawed'),
  'infosec-tracking': await loadFixture(t, 'infosec-tracking', 'index.html', LIGHT_LOAD),
};

const rulesOf = (findings: { rule: string; severity: string }[]) =>
  findings.map((f) => `${f.rule}:${f.severity}`).sort();
const concernsOf = (data: any) =>
  Object.fromEntries(data.findings.map((f: any) => [f.rule, [...f.details.concerns].sort()]));
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const sortedCookies = (data: any) => [...data.cookies].sort(byName);

/** A page of a world of its own, gathered as the runner gathers it (that world's names, the suite's CA). */
async function gatherIn(world: World, url: string) {
  const guard = world.guard();
  const artifacts = await gather(url, { browser: await testBrowserPool().acquire(), guard, needs: LIGHT_LOAD });
  return { artifacts, probes: createProbes(guard) };
}

/** An answer of a test's own: a small page with these Set-Cookie lines. */
function page(body: string, setCookies: string[] = []) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== '/') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(setCookies.length ? { 'set-cookie': setCookies } : {}) });
    res.end(`<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Exempelby kommun</title>${body}</head><body><main><h1>Exempelby kommun</h1><p>Välkommen.</p></main></body></html>`);
  };
}

// ── Type 23 on the gathered fixtures ────────────────────────────────────────────────────────────

t.test('type 23 on the good fixture: no cookies, no third parties', async (t) => {
  const { artifacts, probes } = fixtures.good;
  const outcome = await runPlugin(tracking, artifacts, { probes });
  t.equal(outcome.error, null);
  t.same(outcome.reports.en.sec, 'Integrity & Security: Rating: 5.00\n- Nothing to improve was found.');
  t.same(outcome.ratings, { infosec: 5 });
  t.equal(outcome.rating, 5);
  t.same((outcome.data as any).third_party, { hosts: [], total: 0 });
  t.same((outcome.data as any).cookies, []);
  t.same((outcome.data as any).findings, []);
});

t.test('type 23 on the flawed fixture: a Google Analytics cookie and a session cookie, no flags', async (t) => {
  const { artifacts, probes } = fixtures.flawed;
  const outcome = await runPlugin(tracking, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), [
    'analytics-cookie-without-consent:error',
    'cookie-long-lifetime:warning',
    'cookie-not-httponly:warning',
    'cookie-not-secure:error',
    'cookie-samesite-missing:warning',
  ]);
  // infosec 100 − 10 − 10 − 1 − 1 − 1 = 77 → 3.85
  t.same(outcome.ratings, { infosec: rating(77) });
  t.equal(outcome.rating, 3.85);
  t.same(data.third_party, { hosts: [], total: 0 });
  const cookies = Object.fromEntries(data.cookies.map((c: any) => [c.name, c]));
  t.same(Object.keys(cookies).sort(), ['_ga', 'session']);
  t.match(cookies._ga, {
    domain: 'flawed.test', first_party: true, secure: false, ...httpOnlyFlag(false), same_site: null, session: false,
    lifetime_days: 730, stored: true, analytics_tool: 'Google Analytics',
  });
  t.ok(cookies._ga.browser_lifetime_days > 399 && cookies._ga.browser_lifetime_days <= 400, 'Chromium keeps it 400 days at most');
  t.same(cookies.session, {
    name: 'session', domain: 'flawed.test', first_party: true, secure: false, ...httpOnlyFlag(false), same_site: null, session: true,
    lifetime_days: null, browser_lifetime_days: null, stored: true, analytics_tool: null,
  });
  t.same(concernsOf(data)['cookie-not-secure'], ['_ga', 'session'], 'not Secure although the page is https');
  t.match(outcome.reports.sv.sec, /- 1 kaka lever längre än ett år: _ga \(730 dagar\)\./);
  t.match(outcome.reports.en.sec, /- Web-analytics cookies are set before the visitor has consented: _ga \(Google Analytics\)\./);
});

t.test('type 23 on a shop with third parties under their real names: first- and third-party cookies', async (t) => {
  const { artifacts, probes } = fixtures['infosec-tracking'];
  t.equal(artifacts.finalUrl, 'https://infosec-tracking.test/index.html');
  // The requests really went to the third parties' hosts, over https on port 443.
  const thirdPartyRecords = artifacts.network.filter((r) => !new URL(r.url).hostname.endsWith('infosec-tracking.test'));
  t.same(thirdPartyRecords.map((r) => `${r.url.replace(/\?.*/, '')} ${r.status} ${r.remoteAddress}`).sort(), [
    `https://connect.facebook.net/en_US/fbevents.js 200 ${parties.sites['connect.facebook.net'].address}`,
    `https://fonts.googleapis.com/css2 200 ${parties.sites['fonts.googleapis.com'].address}`,
    `https://fonts.gstatic.com/s/inter/v18/inter-400.ttf 200 ${parties.sites['fonts.gstatic.com'].address}`,
    `https://fonts.gstatic.com/s/inter/v18/inter-700.ttf 200 ${parties.sites['fonts.gstatic.com'].address}`,
    `https://static.hotjar.com/c/hotjar-1.js 200 ${parties.sites['static.hotjar.com'].address}`,
    `https://www.facebook.com/tr/ 200 ${parties.sites['www.facebook.com'].address}`,
  ]);
  t.same(artifacts.network.find((r) => r.url.startsWith('https://www.facebook.com/tr/'))?.setCookies, [FACEBOOK_FR_COOKIE]);

  const outcome = await runPlugin(tracking, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), [
    'analytics-cookie-without-consent:error',
    'cookie-not-httponly:warning',
    'cookie-not-secure:error',
    'cookie-samesite-none:warning',
    'third-party-cookies:error',
    'third-party-requests:warning',
  ]);
  // infosec 100 − 10 − 10 − 10 − 1 − 1 − 1 = 67 → 3.35
  t.same(outcome.ratings, { infosec: rating(67) });
  t.equal(outcome.rating, 3.35);
  t.same(data.third_party, {
    hosts: [
      { host: 'fonts.gstatic.com', requests: 2 },
      { host: 'connect.facebook.net', requests: 1 },
      { host: 'fonts.googleapis.com', requests: 1 },
      { host: 'static.hotjar.com', requests: 1 },
      { host: 'www.facebook.com', requests: 1 },
    ],
    total: 6,
  });
  t.same(sortedCookies(data), [
    // Set by the page itself (Set-Cookie).
    { name: 'prefs', domain: 'infosec-tracking.test', first_party: true, secure: false, ...httpOnlyFlag(true), same_site: 'Strict', session: false, lifetime_days: 1, browser_lifetime_days: 1, stored: true, analytics_tool: null },
    { name: 'session', domain: 'infosec-tracking.test', first_party: true, secure: true, ...httpOnlyFlag(true), same_site: 'Lax', session: true, lifetime_days: null, browser_lifetime_days: null, stored: true, analytics_tool: null },
    // Set by third parties' scripts on the page's own domain (document.cookie): first party.
    { name: '_fbp', domain: '.infosec-tracking.test', first_party: true, secure: false, ...httpOnlyFlag(false), same_site: 'Lax', session: false, lifetime_days: 90, browser_lifetime_days: 90, stored: true, analytics_tool: 'Meta Pixel' },
    { name: '_hjSessionUser_1', domain: '.infosec-tracking.test', first_party: true, secure: true, ...httpOnlyFlag(false), same_site: 'Lax', session: false, lifetime_days: 365, browser_lifetime_days: 365, stored: true, analytics_tool: 'Hotjar' },
    { name: '_hjSession_1', domain: '.infosec-tracking.test', first_party: true, secure: true, ...httpOnlyFlag(false), same_site: 'Lax', session: false, lifetime_days: 0, browser_lifetime_days: 0, stored: true, analytics_tool: 'Hotjar' },
    // Set by a third party on its own domain (Set-Cookie on www.facebook.com): Chromium refuses it
    // in the gather's context; the site's attempt still counts.
    { name: 'fr', domain: 'facebook.com', first_party: false, secure: true, ...httpOnlyFlag(true), same_site: 'None', session: false, lifetime_days: 90, browser_lifetime_days: null, stored: false, analytics_tool: null },
  ].sort(byName));
  t.same(concernsOf(data), {
    'analytics-cookie-without-consent': ['_fbp', '_hjSessionUser_1', '_hjSession_1'],
    'third-party-cookies': ['fr'],
    'cookie-not-secure': ['_fbp', 'prefs'],
    'third-party-requests': ['connect.facebook.net', 'fonts.googleapis.com', 'fonts.gstatic.com', 'static.hotjar.com', 'www.facebook.com'],
    'cookie-not-httponly': ['_fbp', '_hjSessionUser_1', '_hjSession_1'],
    'cookie-samesite-none': ['fr'],
  });
  t.match(outcome.reports.en.sec, /^- The page makes 6 requests to 5 third-party hosts \(fonts\.gstatic\.com, connect\.facebook\.net, fonts\.googleapis\.com, static\.hotjar\.com, www\.facebook\.com\); each request hands over the visitor's IP address and the page visited\.$/m);
  t.match(outcome.reports.en.sec, /^- 1 cookie from third parties is set \(fr \(facebook\.com\)\); such cookies can follow visitors across sites\.$/m);
  t.equal(outcome.reports.sv.overall.split('\n')[0], 'Spårning och integritet: 6 anrop till 5 tredjepartsvärdar; 6 kakor (1 från tredje part, 3 för webbanalys).');
});

// ── Variants, each in a world of its own, end to end ────────────────────────────────────────────

t.test('type 23, cookie flags on https: Secure, HttpOnly and SameSite as Chromium stores them', async (t) => {
  const world = await startWorld(t);
  const site = await world.site('kommun.test', {
    handler: page('', [
      '__Host-sid=9f8e7d6c; Path=/; Secure; HttpOnly; SameSite=Strict',
      'lang=sv; Max-Age=31536000; Path=/; Secure; SameSite=Lax',
      'consent=0; Max-Age=15552000; Path=/; HttpOnly; SameSite=Lax',
      'embed=1; Path=/; Secure; HttpOnly; SameSite=None',
      'legacy=1; Path=/; Secure; HttpOnly',
      // Chromium refuses SameSite=None without Secure (as every current browser does): no visitor
      // ever has it, and type 23 does not count it.
      'broken=1; Path=/; HttpOnly; SameSite=None',
    ]),
  });
  const { artifacts, probes } = await gatherIn(world, site.url);
  t.equal(artifacts.finalUrl, 'https://kommun.test/');
  t.same(artifacts.cookies.map((c) => c.name).sort(), ['__Host-sid', 'consent', 'embed', 'lang', 'legacy'], 'broken was not stored');

  const outcome = await runPlugin(tracking, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), [
    'cookie-not-httponly:warning',
    'cookie-not-secure:error',
    'cookie-samesite-missing:warning',
    'cookie-samesite-none:warning',
  ]);
  // infosec 100 − 10 − 1 − 1 − 1 = 87 → 4.35
  t.same(outcome.ratings, { infosec: rating(87) });
  t.equal(outcome.rating, 4.35);
  t.same(concernsOf(data), {
    'cookie-not-secure': ['consent'],
    'cookie-not-httponly': ['lang'],
    'cookie-samesite-missing': ['legacy'],
    'cookie-samesite-none': ['embed'],
  });
  t.same(data.third_party, { hosts: [], total: 0 });
  const first = { domain: 'kommun.test', first_party: true, stored: true, analytics_tool: null };
  t.same(sortedCookies(data), [
    { name: '__Host-sid', ...first, secure: true, ...httpOnlyFlag(true), same_site: 'Strict', session: true, lifetime_days: null, browser_lifetime_days: null },
    { name: 'consent', ...first, secure: false, ...httpOnlyFlag(true), same_site: 'Lax', session: false, lifetime_days: 180, browser_lifetime_days: 180 },
    { name: 'embed', ...first, secure: true, ...httpOnlyFlag(true), same_site: 'None', session: true, lifetime_days: null, browser_lifetime_days: null },
    { name: 'lang', ...first, secure: true, ...httpOnlyFlag(false), same_site: 'Lax', session: false, lifetime_days: 365, browser_lifetime_days: 365 },
    { name: 'legacy', ...first, secure: true, ...httpOnlyFlag(true), same_site: null, session: true, lifetime_days: null, browser_lifetime_days: null },
  ]);
  t.equal(outcome.reports.en.overall.split('\n')[0], 'Tracking and privacy: 0 requests to 0 third-party hosts; 5 cookies (0 third-party, 0 for web analytics).');
  t.match(outcome.reports.sv.sec, /^- 1 kaka saknar flaggan Secure och kan skickas okrypterat: consent\.$/m);
});

t.test('type 23, a CDN reached by CNAME from the site\'s own name: first party by name, wherever it is hosted', async (t) => {
  const world = await startWorld(t);
  const fonts = await thirdParties(world);
  // cdn.kommun.test is a CNAME to a CloudFront distribution (another operator's host, another
  // address), whose origin sits behind an AWS load balancer that sets its stickiness cookies.
  const weekFromNow = () => new Date(Date.now() + 7 * 86_400_000).toUTCString();
  const cdn = await world.site('d111111abcdef8.cloudfront.net', {
    aliases: ['cdn.kommun.test'],
    handler: (req, res) => {
      const asset = { '/js/site.js': ['text/javascript; charset=utf-8', 'document.documentElement.classList.add("js");\n'], '/css/site.css': ['text/css; charset=utf-8', 'main { max-width: 40rem; margin: auto; }\n'] }[req.url ?? ''];
      if (!asset) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      res.writeHead(200, {
        'content-type': asset[0],
        'cache-control': 'public, max-age=86400',
        'x-cache': 'Miss from cloudfront',
        via: '1.1 0f1e2d3c4b5a69788796a5b4c3d2e1f0.cloudfront.net (CloudFront)',
        'set-cookie': [`AWSALB=Zm9vYmFy0123; Expires=${weekFromNow()}; Path=/`, `AWSALBCORS=Zm9vYmFy0123; Expires=${weekFromNow()}; Path=/; SameSite=None; Secure`],
      });
      res.end(asset[1]);
    },
  });
  world.record('cdn.kommun.test', { A: [], CNAME: 'd111111abcdef8.cloudfront.net' });
  const site = await world.site('kommun.test', {
    handler: page('<link rel="stylesheet" href="https://cdn.kommun.test/css/site.css"><link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter:wght@400;700&amp;display=swap"><style>body { font-family: Inter, sans-serif; }</style><script src="https://cdn.kommun.test/js/site.js"></script>'),
  });
  t.same((await world.resolver('cdn.kommun.test')).map((a) => a.address), [cdn.address], 'the CNAME leads to the CDN\'s address');
  t.not(cdn.address, site.address);

  const { artifacts, probes } = await gatherIn(world, site.url);
  const cdnRecords = artifacts.network.filter((r) => r.url.startsWith('https://cdn.kommun.test/'));
  t.same(cdnRecords.map((r) => `${r.url} ${r.status} ${r.remoteAddress}`).sort(), [
    `https://cdn.kommun.test/css/site.css 200 ${cdn.address}`,
    `https://cdn.kommun.test/js/site.js 200 ${cdn.address}`,
  ], 'the site\'s own name, answered from the CDN\'s address');

  const outcome = await runPlugin(tracking, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  // Judged by name, as browsers judge cookies: the CDN is first party; Google Fonts is third party.
  t.same(data.third_party, {
    hosts: [{ host: 'fonts.gstatic.com', requests: 2 }, { host: 'fonts.googleapis.com', requests: 1 }],
    total: 3,
  });
  t.same(fonts.requests['fonts.googleapis.com'], ['GET /css2?family=Inter:wght@400;700&display=swap']);
  t.same(rulesOf(data.findings), [
    'cookie-not-httponly:warning',
    'cookie-not-secure:error',
    'cookie-samesite-missing:warning',
    'cookie-samesite-none:warning',
    'third-party-requests:warning',
  ]);
  // infosec 100 − 10 − 1 − 1 − 1 − 1 = 86 → 4.3
  t.same(outcome.ratings, { infosec: rating(86) });
  t.equal(outcome.rating, 4.3);
  t.same(concernsOf(data), {
    'cookie-not-secure': ['AWSALB'],
    'third-party-requests': ['fonts.googleapis.com', 'fonts.gstatic.com'],
    'cookie-not-httponly': ['AWSALB', 'AWSALBCORS'],
    'cookie-samesite-missing': ['AWSALB'],
    'cookie-samesite-none': ['AWSALBCORS'],
  });
  // The load balancer's cookies are no analytics cookies (plugins/tracking/analytics-cookies.ts).
  t.same(sortedCookies(data), [
    { name: 'AWSALB', domain: 'cdn.kommun.test', first_party: true, secure: false, ...httpOnlyFlag(false), same_site: null, session: false, lifetime_days: 7, browser_lifetime_days: 7, stored: true, analytics_tool: null },
    { name: 'AWSALBCORS', domain: 'cdn.kommun.test', first_party: true, secure: true, ...httpOnlyFlag(false), same_site: 'None', session: false, lifetime_days: 7, browser_lifetime_days: 7, stored: true, analytics_tool: null },
  ]);
});

// ── Helpers ─────────────────────────────────────────────────────────────────────────────────────

t.test('the tracking helpers: Set-Cookie lifetimes and analytics cookie names', async (t) => {
  const date = Date.parse('2026-01-01T00:00:00Z');
  t.same(parseSetCookie('_ga=GA1.1.1; Max-Age=63072000; Expires=Thu, 01 Jan 2026 00:00:10 GMT; Path=/', 'example.se', date),
    { name: '_ga', domain: 'example.se', lifetimeSeconds: 63_072_000, secure: false, httpOnly: false, sameSite: '' }, 'Max-Age wins over Expires');
  t.same(parseSetCookie('id=1; Expires=Fri, 02 Jan 2026 00:00:00 GMT; Domain=.Example.se; Secure; HttpOnly; SameSite=strict', 'www.example.se', date),
    { name: 'id', domain: 'example.se', lifetimeSeconds: 86_400, secure: true, httpOnly: true, sameSite: 'Strict' });
  t.same(parseSetCookie(FACEBOOK_FR_COOKIE, 'www.facebook.com', date),
    { name: 'fr', domain: 'facebook.com', lifetimeSeconds: 7_776_000, secure: true, httpOnly: true, sameSite: 'None' }, 'a third party\'s cookie on its registrable domain');
  t.equal(parseSetCookie('novalue', 'example.se', date), null);
  t.same(['_ga', '_gid', '__utmz', '_pk_ses.1.a', '_hjSession_1', '_hjid', '_fbp', '_clck', 'session', 'mtm_consent', 'AWSALB'].map((n) => analyticsToolOf(n)),
    ['Google Analytics', 'Google Analytics', 'Google Analytics', 'Matomo', 'Hotjar', 'Hotjar', 'Meta Pixel', 'Microsoft Clarity', null, null, null],
    'the shared rules, a few well-known additions, and no load-balancer or consent cookies');
  t.equal(analyticsToolOf('_pk_id.1.a', ['Piwik PRO']), 'Piwik PRO', 'a shared cookie goes to the tool the page shows');
});
