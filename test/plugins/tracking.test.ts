/**
 * Type 23, Tracking and Privacy (plugins/tracking), on real fixture sites in a real Chromium
 * (good, flawed and infosec-tracking, each gathered once), and its helpers one by one.
 *
 * Expected ratings follow the reference rules: a category starts at 100, each failing rule
 * deducts 25 (critical), 10 (error) or 1 (warning) once; rating = max(1, score / 100 × 5);
 * overall = mean of the categories, two decimals, half away from zero.
 */
import t from 'tap';
import { runPlugin } from '../../core/pipeline.js';
import tracking from '../../plugins/tracking/index.js';
import { analyticsToolOf } from '../../plugins/tracking/analytics-cookies.js';
import { parseSetCookie } from '../../plugins/tracking/set-cookie.js';
import { loadFixture } from '../helpers/fixture-artifacts.js';

/** The reference rule: max(1, score / 100 × 5), two decimals. */
const rating = (score: number) => Math.round(Math.max(1, (score / 100) * 5) * 100) / 100;

// One gather per fixture (a full Lighthouse run each) for the whole file.
const fixtures = {
  good: await loadFixture(t, 'good'),
  flawed: await loadFixture(t, 'flawed'),
  'infosec-tracking': await loadFixture(t, 'infosec-tracking', 'index.html'),
};

const rulesOf = (findings: { rule: string; severity: string }[]) =>
  findings.map((f) => `${f.rule}:${f.severity}`).sort();

// ── CSP judgement ───────────────────────────────────────────────────────────────────────────────

t.test('the tracking helpers: Set-Cookie lifetimes and analytics cookie names', async (t) => {
  const date = Date.parse('2026-01-01T00:00:00Z');
  t.same(parseSetCookie('_ga=GA1.1.1; Max-Age=63072000; Expires=Thu, 01 Jan 2026 00:00:10 GMT; Path=/', 'example.se', date),
    { name: '_ga', domain: 'example.se', lifetimeSeconds: 63_072_000, secure: false, httpOnly: false, sameSite: '' }, 'Max-Age wins over Expires');
  t.same(parseSetCookie('id=1; Expires=Fri, 02 Jan 2026 00:00:00 GMT; Domain=.Example.se; Secure; HttpOnly; SameSite=strict', 'www.example.se', date),
    { name: 'id', domain: 'example.se', lifetimeSeconds: 86_400, secure: true, httpOnly: true, sameSite: 'Strict' });
  t.equal(parseSetCookie('novalue', 'example.se', date), null);
  t.same(['_ga', '_gid', '__utmz', '_pk_ses.1.a', '_hjSession_1', '_hjid', '_fbp', '_clck', 'session', 'mtm_consent', 'AWSALB'].map((n) => analyticsToolOf(n)),
    ['Google Analytics', 'Google Analytics', 'Google Analytics', 'Matomo', 'Hotjar', 'Hotjar', 'Meta Pixel', 'Microsoft Clarity', null, null, null],
    'the shared rules, a few well-known additions, and no load-balancer or consent cookies');
  t.equal(analyticsToolOf('_pk_id.1.a', ['Piwik PRO']), 'Piwik PRO', 'a shared cookie goes to the tool the page shows');
});

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
  const byName = Object.fromEntries(data.cookies.map((c: any) => [c.name, c]));
  t.same(Object.keys(byName).sort(), ['_ga', 'session']);
  t.match(byName._ga, {
    domain: '127.0.0.1', first_party: true, secure: false, http_only: false, same_site: null, session: false,
    lifetime_days: 730, stored: true, analytics_tool: 'Google Analytics',
  });
  t.ok(byName._ga.browser_lifetime_days > 399 && byName._ga.browser_lifetime_days <= 400, 'Chromium keeps it 400 days at most');
  t.same(byName.session, {
    name: 'session', domain: '127.0.0.1', first_party: true, secure: false, http_only: false, same_site: null, session: true,
    lifetime_days: null, browser_lifetime_days: null, stored: true, analytics_tool: null,
  });
  t.same(data.findings.find((f: any) => f.rule === 'cookie-not-secure').details.concerns.sort(), ['_ga', 'session']);
  t.match(outcome.reports.sv.sec, /- 1 kaka lever längre än ett år: _ga \(730 dagar\)\./);
  t.match(outcome.reports.en.sec, /- Web-analytics cookies are set before the visitor has consented: _ga \(Google Analytics\)\./);
});

t.test('type 23 on a page with third-party requests and cookies', async (t) => {
  const { artifacts, probes } = fixtures['infosec-tracking'];
  const outcome = await runPlugin(tracking, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), [
    'analytics-cookie-without-consent:error',
    'cookie-long-lifetime:warning',
    'cookie-not-httponly:warning',
    'cookie-not-secure:error',
    'cookie-samesite-none:warning',
    'third-party-cookies:error',
    'third-party-requests:warning',
  ]);
  // infosec 100 − 10 − 10 − 10 − 1 − 1 − 1 − 1 = 66 → 3.3
  t.same(outcome.ratings, { infosec: rating(66) });
  t.equal(outcome.rating, 3.3);
  t.same(data.third_party, { hosts: [{ host: 'localhost', requests: 3 }], total: 3 }, 'pixel, script and fetch from localhost');
  const byName = (a: any, b: any) => a.name.localeCompare(b.name);
  t.same([...data.cookies].sort(byName), [
    { name: '_pk_id.1.1fff', domain: '127.0.0.1', first_party: true, secure: false, http_only: false, same_site: 'Lax', session: false, lifetime_days: 393, browser_lifetime_days: 393, stored: true, analytics_tool: 'Matomo' },
    { name: 'prefs', domain: '127.0.0.1', first_party: true, secure: false, 'http_only': true, same_site: 'Strict', session: false, lifetime_days: 1, browser_lifetime_days: 1, stored: true, analytics_tool: null },
    { name: '_hjSessionUser_1', domain: '127.0.0.1', first_party: true, secure: false, http_only: false, same_site: 'Lax', session: false, lifetime_days: 90, browser_lifetime_days: 90, stored: true, analytics_tool: 'Hotjar' },
    // Chromium refuses third-party cookies; the site's Set-Cookie still counts.
    { name: '_fbp', domain: 'localhost', first_party: false, secure: true, http_only: false, same_site: 'None', session: false, lifetime_days: 90, browser_lifetime_days: null, stored: false, analytics_tool: 'Meta Pixel' },
  ].sort(byName));
  t.match(outcome.reports.en.sec, /- The page makes 3 requests to 1 third-party host \(localhost\); each request hands over the visitor's IP address and the page visited\.$/m);
  t.equal(outcome.reports.sv.overall.split('\n')[0], 'Spårning och integritet: 3 anrop till 1 tredjepartsvärd; 4 kakor (1 från tredje part, 3 för webbanalys).');
});
