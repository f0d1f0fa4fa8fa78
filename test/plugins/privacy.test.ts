/**
 * Type 31, Privacy (plugins/privacy), on four sites of a world of this file's own, each loaded once
 * in a real Chromium through the gather step (light: the type needs neither Lighthouse's categories
 * nor axe), over the world's DNS, https on port 443 with the suite's CA (one site http only), third
 * parties under their real names (statistik.github.io, cdn.jsdelivr.net, www.google-analytics.com).
 * Each page carries several deductions that do not touch one another; the expected section
 * ratings are worked out beside each case from the rules in plugins/privacy/index.ts.
 *
 * | page                          | HTTPS | Referrer | Cookies | Third parties | Headers | SRI  | overall |
 * |-------------------------------|-------|----------|---------|---------------|---------|------|---------|
 * | http://plain.test/            | 1.00  | 3.00     | 4.50    | 5.00          | 4.00    | 5.00 | 3.75    |
 * | https://www.exempelby.se/     | 4.00  | 5.00     | 4.00    | 5.00          | 3.50    | 5.00 | 4.42    |
 * | https://exempelby.github.io/  | 5.00  | 2.00     | 2.00    | 2.30          | 3.25    | 2.50 | 2.84    |
 * | https://privat.test/          | 5.00  | 5.00     | 5.00    | 5.00          | 5.00    | 5.00 | 5.00    |
 *
 * Then what needs no browser: a TLS version Chromium no longer speaks, the bands, the policy
 * tokens, and the vendored tracking list.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { gather } from '../../core/gather/gather.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import { compactTrackerList, loadTrackerList, parseTrackerList, sha256, trackerDomainOf, TRACKER_LIST_FILE, trackerMetaFileOf } from '../../core/trackers.js';
import privacy from '../../plugins/privacy/index.js';
import { headerPolicy, metaPolicy, parseHsts, cspHasFrameAncestors, hasIntegrity } from '../../plugins/privacy/sections.js';
import { band } from '../../plugins/privacy/strings.js';
import tracking from '../../plugins/tracking/index.js';
import { LIGHT_LOAD, makeArtifacts, testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorld } from '../helpers/world/index.js';

const world = await startWorld(t);
const guard = world.guard();

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const html = (head: string, body = '') =>
  `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><title>Exempelby</title>${head}</head><body><main><h1>Exempelby</h1><p>Välkommen.</p>${body}</main></body></html>`;
/** The page at `/` with these headers; every other path a small file of its type (or 404). */
function site(page: string, headers: Record<string, string | string[]>, files: Record<string, [string, string, Record<string, string | string[]>?]> = {}): Handler {
  return (req, res) => {
    const path = (req.url ?? '/').replace(/\?.*/, '');
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(page);
    const file = files[path];
    if (!file) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    res.writeHead(200, { 'content-type': file[0], ...(file[2] ?? {}) }).end(file[1]);
  };
}
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d605d90000000049454e44ae426082', 'hex').toString('latin1');
const sri = (text: string) => `sha384-${createHash('sha384').update(text).digest('base64')}`;

// ── A: http only ────────────────────────────────────────────────────────────────────────────────
// HTTPS 1 (not https). Referrer 3 (none). Cookies 5 − 0.25 (visit: no HttpOnly) − 0.25 (no SameSite)
// = 4.50 (Secure is not asked of an http site's cookies). Headers 5 − 0.5 (no nosniff) − 0.5
// (X-Frame-Options ALLOW-FROM, which browsers ignore) = 4.00 (HSTS is judged on https only).
// Overall (1 + 3 + 4.5 + 5 + 4 + 5) / 6 = 3.75.
await world.site('plain.test', {
  https: false,
  handler: site(html(''), { 'set-cookie': ['visit=1; Path=/'], 'x-frame-options': 'ALLOW-FROM https://plain.test/' }),
});

// ── B: a municipality on https: mixed content, cookie attributes, a subdomain, no HSTS ─────────
// HTTPS 5 − 2 × 0.5 = 4.00: http://cdn.exempelby.se/old.js and old.css refused by Chromium as mixed
// content; the http logo it upgraded to https loaded securely and is not counted.
// Referrer 5: "unsafe-url, no-referrer, made-up-policy": the last token that is a policy.
// Cookies 5 − 0.25 × 4 = 4.00: long (2 years), nosecure, nohttponly, none (SameSite=None); sid and
// lib (set by bibliotek.exempelby.se for the whole exempelby.se) are flawless and first party.
// Third parties 5: bibliotek.exempelby.se is the same site. Headers 5 − 1.5 (no HSTS) = 3.50
// (nosniff, CSP frame-ancestors). SRI 5: the scripts and stylesheets are the site's own.
// Overall (4 + 5 + 4 + 5 + 3.5 + 5) / 6 = 4.4167 → 4.42.
await world.site('www.exempelby.se', {
  handler: site(
    html('<link rel="stylesheet" href="http://cdn.exempelby.se/old.css"><script src="http://cdn.exempelby.se/old.js"></script>', '<img src="http://bibliotek.exempelby.se/logo.png" alt="Biblioteket"><img src="https://bibliotek.exempelby.se/pixel.png" alt="">'),
    {
      'referrer-policy': 'unsafe-url, no-referrer, made-up-policy',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'self' https://bibliotek.exempelby.se http://cdn.exempelby.se; frame-ancestors 'none'",
      'set-cookie': [
        'sid=7f3a; Path=/; Secure; HttpOnly; SameSite=Strict',
        'long=1; Max-Age=63072000; Path=/; Secure; HttpOnly; SameSite=Lax',
        'nosecure=1; Path=/; HttpOnly; SameSite=Lax',
        'nohttponly=1; Path=/; Secure; SameSite=Lax',
        'none=1; Path=/; Secure; HttpOnly; SameSite=None',
      ],
    },
  ),
});
await world.site('bibliotek.exempelby.se', {
  handler: site('', {}, {
    '/logo.png': ['image/png', PNG],
    '/pixel.png': ['image/png', PNG, { 'set-cookie': 'lib=1; Domain=exempelby.se; Path=/; Secure; HttpOnly; SameSite=Lax' }],
  }),
});
await world.site('cdn.exempelby.se', { http: 'serve', handler: site('', {}, { '/old.js': ['text/javascript', '1;'], '/old.css': ['text/css', 'p{}'] }) });

// ── C: a site under a public suffix (github.io) with third parties, a tracker and no SRI ───────
// HTTPS 5. Referrer 2: <meta name=referrer content=strict-origin-when-cross-origin> (no header),
// the browsers' default, which sends the origin to other sites.
// Cookies 5 − (2.5 + 0.25) (stats_id from statistik.github.io: a third party by the public suffix list,
// where upstream's last-two-labels rule calls github.io first party) − 0.25 (SameSite=None) = 2.00.
// Third parties 5 − 3 × 0.15 − (2 + 0.25) = 2.30: statistik.github.io, cdn.jsdelivr.net and
// www.google-analytics.com, the last under google-analytics.com of the tracking list.
// Headers 5 − 0.5 (max-age 600) − 0.5 (no includeSubDomains) − 0.25 (no preload) − 0.5 (no
// nosniff) = 3.25 (X-Frame-Options SAMEORIGIN). SRI 5 − 5 × 0.5 = 2.50: a.js, a.css, s.js,
// analytics.js and late.js (inserted by a script: the rendered page) lack integrity; b.js and
// b.css carry a sha384 hash; /app.js is the site's own.
// Overall (5 + 2 + 2 + 2.3 + 3.25 + 2.5) / 6 = 2.8417 → 2.84.
const B_JS = 'window.b = 1;';
const B_CSS = 'main { color: #222; }';
await world.site('exempelby.github.io', {
  handler: site(
    html(
      '<meta name="referrer" content="strict-origin-when-cross-origin">' +
        '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/a.css">' +
        `<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/b.css" integrity="${sri(B_CSS)}" crossorigin="anonymous">` +
        '<script src="https://cdn.jsdelivr.net/npm/a.js"></script>' +
        `<script src="https://cdn.jsdelivr.net/npm/b.js" integrity="${sri(B_JS)}" crossorigin="anonymous"></script>` +
        '<script src="https://statistik.github.io/s.js"></script>' +
        '<script src="https://www.google-analytics.com/analytics.js"></script>' +
        '<script src="/app.js"></script>',
      "<script>var s = document.createElement('script'); s.src = 'https://cdn.jsdelivr.net/npm/late.js'; document.head.appendChild(s);</script>",
    ),
    { 'strict-transport-security': 'max-age=600', 'x-frame-options': 'SAMEORIGIN' },
    { '/app.js': ['text/javascript', 'window.app = 1;'] },
  ),
});
await world.site('statistik.github.io', {
  handler: site('', {}, { '/s.js': ['text/javascript', 'window.s = 1;', { 'set-cookie': 'stats_id=1; Path=/; Secure; HttpOnly; SameSite=None' }] }),
});
const cors = { 'access-control-allow-origin': '*' };
await world.site('cdn.jsdelivr.net', {
  handler: site('', {}, {
    '/npm/a.js': ['text/javascript', 'window.a = 1;', cors],
    '/npm/b.js': ['text/javascript', B_JS, cors],
    '/npm/late.js': ['text/javascript', 'window.late = 1;', cors],
    '/npm/a.css': ['text/css', 'h1 { margin: 0; }', cors],
    '/npm/b.css': ['text/css', B_CSS, cors],
  }),
});
await world.site('www.google-analytics.com', { handler: site('', {}, { '/analytics.js': ['text/javascript', 'window.ga = function () {};'] }) });

// ── D: nothing to improve ───────────────────────────────────────────────────────────────────────
// Every section 5: HSTS two years with includeSubDomains and preload, nosniff, X-Frame-Options
// DENY, Referrer-Policy same-origin, one session cookie with every attribute, only its own script.
await world.site('privat.test', {
  handler: site(html('<script src="/app.js"></script>'), {
    'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'set-cookie': 'sid=1; Path=/; Secure; HttpOnly; SameSite=Lax',
  }, { '/app.js': ['text/javascript', 'window.app = 1;'] }),
});

/** One light load per page, one after the other on the shared Chromium, and type 31 on it. */
async function load(url: string) {
  const artifacts = await gather(url, { browser: await testBrowserPool().acquire(), guard, needs: LIGHT_LOAD });
  const probes = createProbes(guard);
  return { artifacts, probes, outcome: await runPlugin(privacy, artifacts, { probes }) };
}
const pages = {
  plain: await load('http://plain.test/'),
  kommun: await load('https://www.exempelby.se/'),
  github: await load('https://exempelby.github.io/'),
  best: await load('https://privat.test/'),
};

const sectionRatings = (data: any) => Object.fromEntries(Object.entries(data.sections).map(([k, v]: [string, any]) => [k, v.rating]));
const rules = (outcome: { findings: { rule: string; severity: string; count?: number }[] }) => outcome.findings.map((f) => `${f.rule}:${f.severity}${f.count ? `:${f.count}` : ''}`);

t.test('a light load: no Lighthouse categories, no axe', async (t) => {
  t.equal(privacy.meta.requiredArtifacts.includes('lighthouse'), false);
  t.equal(privacy.meta.requiredArtifacts.includes('axe'), false);
  t.equal(pages.best.artifacts.lighthouse, null);
  t.equal(pages.best.artifacts.axe, null);
});

t.test('A, http only: HTTPS 1, no referrer policy, cookie attributes but not Secure, no nosniff, an X-Frame-Options browsers ignore', async (t) => {
  const { outcome, artifacts } = pages.plain;
  t.equal(outcome.error, null);
  t.equal(artifacts.finalUrl, 'http://plain.test/');
  const data = outcome.data as any;
  t.strictSame(sectionRatings(data), { https: 1, referrer_policy: 3, cookies: 4.5, third_parties: 5, headers: 4, sri: 5 });
  t.equal(outcome.rating, 3.75);
  t.strictSame(outcome.ratings, { infosec: 3.75 });
  t.strictSame(rules(outcome), [
    'no-https:error', 'referrer-policy-missing:error', 'cookies-not-httponly:warning:1', 'cookies-weak-samesite:warning:1', 'xcto-missing:warning', 'frame-protection-missing:warning',
  ]);
  t.equal(data.sections.headers.hsts_judged, false);
  t.strictSame(data.sections.cookies.not_secure, [], 'Secure is not asked of cookies on http');
  t.equal(outcome.reports.sv.overall, 'Ok integritet men borde nog bli bättre. Delbetyg: HTTPS 1.00, Referrer-Policy 3.00, Kakor 4.50, Tredje part 5.00, HTTP-headers 4.00, SRI 5.00.\nBetyg: 3.75');
  t.equal(outcome.reports.en.overall, 'About average privacy, but it should get better. Sections: HTTPS 1.00, Referrer-Policy 3.00, Cookies 4.50, Third parties 5.00, HTTP headers 4.00, SRI 5.00.\nRating: 3.75');
  t.equal(outcome.reports.sv.sec, [
    'Integritet & säkerhet: Betyg: 3.75',
    '- HTTPS: webbplatsen använder inte HTTPS.',
    '- Referrer-Policy: ingen referrer-policy är satt, webbläsare kan läcka besökta adresser till andra webbplatser.',
    '- Kakor: 1 kaka saknar attributet HttpOnly.',
    '- Kakor: 1 kaka saknar ett starkt SameSite-attribut (Lax eller Strict).',
    '- HTTP-headers: headern X-Content-Type-Options saknas eller är felaktig.',
    '- HTTP-headers: skydd saknas mot att webbplatsen bäddas in på andra webbplatser (X-Frame-Options eller frame-ancestors).',
  ].join('\n'));
  t.equal(outcome.reports.en.sec.split('\n')[1], '- HTTPS: the website does not use HTTPS.');
});

t.test('B, a municipality: blocked mixed content, the last valid Referrer-Policy token, four cookie flaws, a subdomain as first party, no HSTS', async (t) => {
  const { outcome, artifacts } = pages.kommun;
  t.equal(outcome.error, null);
  const data = outcome.data as any;
  t.strictSame(sectionRatings(data), { https: 4, referrer_policy: 5, cookies: 4, third_parties: 5, headers: 3.5, sri: 5 });
  t.equal(outcome.rating, 4.42);
  t.strictSame(rules(outcome), [
    'mixed-content:error:2', 'cookies-long-lived:warning:1', 'cookies-not-secure:warning:1', 'cookies-not-httponly:warning:1', 'cookies-weak-samesite:warning:1', 'hsts-missing:error',
  ]);
  // What Chromium did with the three http addresses.
  const byUrl = (url: string) => artifacts.network.find((r) => r.url === url);
  t.match(byUrl('http://cdn.exempelby.se/old.js'), { mixedContent: 'blockable', blockedReason: 'mixed-content', failed: true });
  t.match(byUrl('http://cdn.exempelby.se/old.css'), { mixedContent: 'blockable', blockedReason: 'mixed-content', failed: true });
  t.match(byUrl('https://bibliotek.exempelby.se/logo.png'), { status: 200, failed: false }, 'the http image was upgraded to https');
  t.equal(byUrl('http://bibliotek.exempelby.se/logo.png'), undefined);
  t.strictSame(data.sections.https, { rating: 4, deductions: [{ rule: 'mixed-content', points: 1, count: 2 }], uses_https: true, insecure_requests: ['http://cdn.exempelby.se/old.css', 'http://cdn.exempelby.se/old.js'], tls_protocol: 'TLS 1.3' });
  t.strictSame(data.sections.referrer_policy, { rating: 5, deductions: [], policy: 'no-referrer', source: 'header', header: 'unsafe-url, no-referrer, made-up-policy', metas: [] });
  t.strictSame(data.sections.cookies.cookies.map((c: any) => [c.name, c.domain, c.first_party, c.stored]), [
    ['lib', 'exempelby.se', true, true], ['long', 'www.exempelby.se', true, true], ['nohttponly', 'www.exempelby.se', true, true],
    ['none', 'www.exempelby.se', true, true], ['nosecure', 'www.exempelby.se', true, true], ['sid', 'www.exempelby.se', true, true],
  ]);
  t.strictSame([data.sections.cookies.long_lived, data.sections.cookies.not_secure, data.sections.cookies.not_http_only, data.sections.cookies.weak_same_site, data.sections.cookies.third_party], [
    ['long (www.exempelby.se)'], ['nosecure (www.exempelby.se)'], ['nohttponly (www.exempelby.se)'], ['none (www.exempelby.se)'], [],
  ]);
  t.strictSame(data.sections.third_parties, { rating: 5, deductions: [], hosts: [], trackers: [] }, 'bibliotek.exempelby.se and cdn.exempelby.se are the same site');
  t.equal(data.site, 'exempelby.se');
  t.match(outcome.reports.sv.sec, /^- HTTPS: 2 resurser laddas över osäker HTTP \(mixed content\)\.$/m);
  t.match(outcome.reports.en.sec, /^- Cookies: 1 cookie lives longer than a year\.$/m);
  t.match(outcome.reports.en.sec, /^- HTTP headers: the Strict-Transport-Security \(HSTS\) header is missing\.$/m);
  t.equal(outcome.reports.sv.overall.split('\n')[0].split(' Delbetyg')[0], 'Webbplatsen kan bli bättre, men är helt ok.');
});

t.test('C, under github.io: a third party by the public suffix list, a listed tracker, a leaky meta referrer, short HSTS, no SRI', async (t) => {
  const { outcome, artifacts, probes } = pages.github;
  t.equal(outcome.error, null);
  const data = outcome.data as any;
  t.strictSame(sectionRatings(data), { https: 5, referrer_policy: 2, cookies: 2, third_parties: 2.3, headers: 3.25, sri: 2.5 });
  t.equal(outcome.rating, 2.84);
  t.strictSame(rules(outcome), [
    'referrer-policy-leaky:error', 'third-party-cookies:error:1', 'cookies-weak-samesite:warning:1', 'third-party-hosts:warning:3', 'known-trackers:error:1',
    'hsts-short:warning', 'hsts-no-subdomains:warning', 'hsts-no-preload:warning', 'xcto-missing:warning', 'sri-missing:error:5',
  ]);
  t.strictSame(data.sections.referrer_policy, { rating: 2, deductions: [{ rule: 'referrer-policy-leaky', points: 3 }], policy: 'strict-origin-when-cross-origin', source: 'meta', header: null, metas: ['strict-origin-when-cross-origin'] });
  // The public suffix list's decision: github.io is a suffix, so statistik.github.io is another site.
  t.equal(data.site, 'exempelby.github.io');
  t.strictSame(data.sections.third_parties.hosts, ['cdn.jsdelivr.net', 'statistik.github.io', 'www.google-analytics.com']);
  t.strictSame(data.sections.third_parties.trackers, [{ host: 'www.google-analytics.com', listed: 'google-analytics.com' }]);
  // Each cookie as [name, domain, first_party, secure, http_only, same_site, lifetime_s, stored], the fields' order in data.
  const cookieFields = ['name', 'domain', 'first_party', 'secure', 'http_only', 'same_site', 'lifetime_s', 'stored'];
  t.strictSame((data.sections.cookies.cookies as Record<string, unknown>[]).map((c) => Object.keys(c)), [cookieFields], 'the fields of a cookie, no more');
  t.strictSame((data.sections.cookies.cookies as Record<string, unknown>[]).map((c) => cookieFields.map((f) => c[f])), [
    ['stats_id', 'statistik.github.io', false, true, true, 'None', null, false],
  ], 'Chromium refused the third-party cookie; its Set-Cookie still counts');
  t.strictSame(data.sections.sri.without_integrity, [
    'stylesheet https://cdn.jsdelivr.net/npm/a.css',
    'script https://cdn.jsdelivr.net/npm/a.js',
    'script https://statistik.github.io/s.js',
    'script https://www.google-analytics.com/analytics.js',
    'script https://cdn.jsdelivr.net/npm/late.js',
  ]);
  t.equal(data.sections.sri.third_party, 7);
  t.ok(artifacts.network.some((r) => r.url === 'https://cdn.jsdelivr.net/npm/b.js' && r.status === 200), 'the script with integrity loaded');
  t.match(data.sections.headers, { strict_transport_security: 'max-age=600', x_frame_options: 'SAMEORIGIN', frame_ancestors: false });
  t.match(outcome.reports.sv.sec, /^- Tredje part: 1 känd spårningsdomän kontaktas \(www\.google-analytics\.com\)\.$/m);
  t.match(outcome.reports.en.sec, /^- SRI: 5 third-party scripts or stylesheets are loaded without Subresource Integrity \(SRI\)\.$/m);
  t.match(outcome.reports.sv.sec, /^- Kakor: 1 tredjepartskaka, besökare kan spåras mellan webbplatser\.$/m);
  t.match(outcome.reports.en.sec, /^- HTTP headers: HSTS max-age is shorter than 6 months \(600 s\)\.$/m);
  t.equal(outcome.reports.sv.overall.split(' Delbetyg')[0], 'Dålig integritet.');
  t.strictSame(data.tracker_list, { source_url: 'https://blocklistproject.github.io/Lists/alt-version/tracking-nl.txt', date: '2026-07-20', domains: 133551 });

  // Type 23 reads the same list (core/trackers.ts) and lists the tracker; its rating is its own:
  // infosec 100 − 10 (third-party cookie) − 1 (third-party requests) − 1 (SameSite=None) = 88 → 4.40.
  const t23 = await runPlugin(tracking, artifacts, { probes });
  t.equal(t23.error, null);
  t.strictSame((t23.data as any).known_trackers, [{ host: 'www.google-analytics.com', listed: 'google-analytics.com' }]);
  t.equal(t23.rating, 4.4);
});

t.test('D: nothing to improve, every section 5', async (t) => {
  const { outcome } = pages.best;
  t.equal(outcome.error, null);
  t.strictSame(sectionRatings(outcome.data), { https: 5, referrer_policy: 5, cookies: 5, third_parties: 5, headers: 5, sri: 5 });
  t.equal(outcome.rating, 5);
  t.strictSame(outcome.findings, []);
  t.equal(outcome.reports.sv.overall, 'Webbplatsen är riktigt bra på integritet! Delbetyg: HTTPS 5.00, Referrer-Policy 5.00, Kakor 5.00, Tredje part 5.00, HTTP-headers 5.00, SRI 5.00.\nBetyg: 5.00');
  t.equal(outcome.reports.en.sec, 'Integrity & Security: Rating: 5.00\n- Nothing to improve was found.');
});

// ── Without a browser ───────────────────────────────────────────────────────────────────────────

t.test('an outdated TLS version (which Chromium no longer speaks, so no page can show it) deducts 1', async (t) => {
  const url = 'https://gammal.test/';
  const record = { url, method: 'GET', status: 200, resourceType: 'Document', mimeType: 'text/html', remoteAddress: '', protocol: 'http/1.1', requestHeaders: {}, responseHeaders: {}, setCookies: [], transferSize: 0, resourceSize: 0, failed: false };
  const old = await runPlugin(privacy, makeArtifacts(url, { network: [{ ...record, tlsProtocol: 'TLS 1.0' }] }), { probes: createProbes(guard) });
  t.strictSame((old.data as any).sections.https, { rating: 4, deductions: [{ rule: 'old-tls', points: 1 }], uses_https: true, insecure_requests: [], tls_protocol: 'TLS 1.0' });
  t.equal(old.findings[0].text.sv, 'HTTPS: en föråldrad TLS-version används (TLS 1.0).');
  const current = await runPlugin(privacy, makeArtifacts(url, { network: [{ ...record, tlsProtocol: 'TLS 1.2' }] }), { probes: createProbes(guard) });
  t.equal((current.data as any).sections.https.rating, 5);
});

t.test('the bands, in Swedish and English', async (t) => {
  t.strictSame([5, 4.99, 4, 3.99, 3, 2.99, 2, 1.99, 1].map((r) => band(r).sv), [
    'Webbplatsen är riktigt bra på integritet!',
    'Webbplatsen kan bli bättre, men är helt ok.', 'Webbplatsen kan bli bättre, men är helt ok.',
    'Ok integritet men borde nog bli bättre.', 'Ok integritet men borde nog bli bättre.',
    'Dålig integritet.', 'Dålig integritet.',
    'Riktigt dålig integritet för användarna!', 'Riktigt dålig integritet för användarna!',
  ]);
  t.strictSame([5, 4, 3, 2, 1].map((r) => band(r).en), [
    'The website is great on privacy!', 'The website could be better, but is pretty good.', 'About average privacy, but it should get better.', 'Rather poor on user privacy.', 'Very bad privacy for the users!',
  ]);
});

t.test('Referrer-Policy tokens, HSTS, frame-ancestors and integrity as browsers read them', async (t) => {
  t.equal(headerPolicy('no-referrer, unsafe-url'), 'unsafe-url');
  t.equal(headerPolicy('unsafe-url, no-referrer, made-up'), 'no-referrer', 'an unknown last token is skipped (upstream would take it)');
  t.equal(headerPolicy('same-origin\nbogus'), 'same-origin', 'two headers are one list');
  t.equal(headerPolicy('bogus'), null);
  t.equal(headerPolicy(undefined), null);
  t.equal(metaPolicy(['never']), 'no-referrer', 'legacy keyword');
  t.equal(metaPolicy(['always']), 'unsafe-url');
  t.equal(metaPolicy(['no-referrer', 'nonsense']), 'no-referrer', 'an invalid later meta changes nothing');
  t.equal(metaPolicy(['no-referrer', 'origin']), 'origin', 'the last valid meta wins');
  // A valid meta overrides the header, as browsers apply it.
  const both = await runPlugin(privacy, makeArtifacts('https://x.test/', { mainDocument: { url: 'https://x.test/', status: 200, headers: { 'referrer-policy': 'no-referrer' }, html: '' }, referrerMetas: ['unsafe-url'] }), { probes: createProbes(guard) });
  t.match((both.data as any).sections.referrer_policy, { rating: 2, policy: 'unsafe-url', source: 'meta' });
  t.strictSame(parseHsts('max-age="31536000"; includeSubDomains; preload'), { maxAge: 31536000, includeSubDomains: true, preload: true });
  t.strictSame(parseHsts('includeSubDomains\nmax-age=100'), { maxAge: null, includeSubDomains: true, preload: false }, 'only the first header counts');
  t.equal(cspHasFrameAncestors("script-src https://frame-ancestors.example"), false, 'a directive, not a substring');
  t.equal(cspHasFrameAncestors("default-src 'self'; frame-ancestors 'self'"), true);
  t.equal(hasIntegrity(''), false);
  t.equal(hasIntegrity('md5-abc'), false);
  t.equal(hasIntegrity('sha256-abc= sha384-def'), true);
});

t.test('the vendored tracking list: dated, compact, every listed domain matched by suffix', async (t) => {
  const list = loadTrackerList();
  const meta = JSON.parse(await readFile(trackerMetaFileOf(TRACKER_LIST_FILE), 'utf8'));
  const text = await readFile(TRACKER_LIST_FILE, 'utf8');
  t.equal(list.metaMatches, true);
  t.equal(meta.sha256, sha256(text));
  t.match(meta, { source_url: 'https://blocklistproject.github.io/Lists/alt-version/tracking-nl.txt', date: '2026-07-20', source_entries: 143876, domains: 133551, commit: 'ee3bdbaddf49c756cf3340bb2e6a9dee5282d1c6' });
  t.match(meta.licence, /Unlicense/);
  const lines = text.split('\n').slice(0, -1);
  t.equal(lines.length, 133551);
  t.strictSame(lines, [...lines].sort(), 'sorted');
  t.strictSame(compactTrackerList(lines), lines, 'no domain is covered by another listed one');
  t.equal(trackerDomainOf('www.google-analytics.com', list.domains), 'google-analytics.com');
  t.equal(trackerDomainOf('GOOGLE-ANALYTICS.COM.', list.domains), 'google-analytics.com');
  t.equal(trackerDomainOf('static.hotjar.com', list.domains), 'hotjar.com');
  t.equal(trackerDomainOf('cdn.jsdelivr.net', list.domains), null);
  t.equal(trackerDomainOf('com', list.domains), null);
  // What the refresh stores: the comment header gone, covered entries dropped, nothing lost.
  const source = `# Title: Tracking Block List\n# Last modified: 2026-11-01 00:00:00 UTC\n\n${['a.example.com', 'example.com', 'b.a.other.net', 'a.other.net', 'solo.org', ...lines.slice(0, 1000)].join('\n')}\n`;
  const parsed = parseTrackerList(source);
  t.equal(parsed.modified, '2026-11-01 00:00:00 UTC');
  const compact = compactTrackerList(parsed.domains);
  t.ok(compact.includes('example.com') && !compact.includes('a.example.com') && compact.includes('a.other.net') && !compact.includes('b.a.other.net'));
  const set = new Set(compact);
  t.ok(parsed.domains.every((d) => trackerDomainOf(d, set) !== null), 'every entry of the source still matches');
  t.throws(() => parseTrackerList('<!DOCTYPE html><title>404</title>'), { message: 'an HTML page, not a list of domains' });
  t.throws(() => parseTrackerList('example.com\n'), { message: /^only 1 domains: not the tracking list/ });
  t.throws(() => parseTrackerList(`${lines.slice(0, 1000).join('\n')}\nnot a domain!\n`), { message: 'line 1001 is not a domain: "not a domain!"' });
});
