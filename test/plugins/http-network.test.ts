/**
 * Type 21, HTTP & Network (plugins/http-network), on real fixture sites in a real Chromium (good
 * and flawed, each gathered once), on real TLS servers with a self-signed certificate
 * (test/helpers/infosec-tls.ts), and its judgement functions one by one.
 *
 * Expected ratings follow the reference rules: a category starts at 100, each failing rule
 * deducts 25 (critical), 10 (error) or 1 (warning) once; rating = max(1, score / 100 × 5);
 * overall = mean of the categories, two decimals, half away from zero.
 */
import t from 'tap';
import { runPlugin } from '../../core/pipeline.js';
import { createProbes } from '../../core/net/probes.js';
import type { ProbeResponse, TlsProbe } from '../../core/plugin-api.js';
import httpNetwork from '../../plugins/http-network/index.js';
import { judgeHeaders, judgeHsts, judgeRedirect, judgeTls, effectiveReferrerPolicy } from '../../plugins/http-network/checks.js';
import { judgeCsp, metaCsp } from '../../plugins/http-network/csp.js';
import { LOOPBACK_GUARD, loadFixture } from '../helpers/fixture-artifacts.js';
import { httpsPageArtifacts, networkRecord, routeProbes, startTlsSite, type TlsSite } from '../helpers/infosec-tls.js';

/** The reference rule: max(1, score / 100 × 5), two decimals. */
const rating = (score: number) => Math.round(Math.max(1, (score / 100) * 5) * 100) / 100;

// One gather per fixture (a full Lighthouse run each) for the whole file.
const fixtures = { good: await loadFixture(t, 'good'), flawed: await loadFixture(t, 'flawed') };

const rulesOf = (findings: { rule: string; severity: string }[]) =>
  findings.map((f) => `${f.rule}:${f.severity}`).sort();

// ── CSP judgement ───────────────────────────────────────────────────────────────────────────────

t.test('judgeCsp: exact findings and Observatory result per policy', async (t) => {
  const judge = (header: string | undefined, https = true, extra: { reportOnly?: string; meta?: string[] } = {}) => {
    const j = judgeCsp({ header, https, ...extra });
    return { rules: rulesOf(j.checks), test: j.modifier.test, modifier: j.modifier.modifier, frameAncestors: j.frameAncestors, source: j.source };
  };

  t.same(judge("default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"), {
    rules: [], test: 'csp-implemented-with-no-unsafe', modifier: 5, frameAncestors: ["'none'"], source: 'header',
  }, 'a strict policy: nothing to report, +5');

  t.same(judge("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'"), {
    rules: [], test: 'csp-implemented-with-no-unsafe-default-src-none', modifier: 10, frameAncestors: null, source: 'header',
  }, "default-src 'none' (object-src falls back to it): +10");

  t.same(judge("script-src 'self' 'unsafe-inline' 'unsafe-eval' https: data:").rules, [
    'csp-base-uri-missing:warning',
    'csp-object-src-unsafe:error',
    'csp-script-broad-source:error',
    'csp-unsafe-eval:warning',
    'csp-unsafe-inline:error',
  ], 'unsafe keywords, broad script sources, unrestricted object-src, no base-uri');
  t.equal(judge("script-src 'self' 'unsafe-inline'").modifier, -20);

  t.same(judge("script-src 'nonce-r4nd0m' 'unsafe-inline' 'strict-dynamic' https:; object-src 'none'; base-uri 'none'"), {
    rules: [], test: 'csp-implemented-with-unsafe-inline-in-style-src-only', modifier: 0, frameAncestors: null, source: 'header',
  }, "a nonce neutralises 'unsafe-inline', 'strict-dynamic' the host sources; styles stay unrestricted (0)");

  t.same(judge("script-src 'self' 'unsafe-eval'; object-src 'none'; base-uri 'self'; style-src 'self'"), {
    rules: ['csp-unsafe-eval:warning'], test: 'csp-implemented-with-unsafe-eval', modifier: -10, frameAncestors: null, source: 'header',
  });

  const mixed = "default-src 'self' http://cdn.example.org; img-src http:; object-src 'self'; base-uri 'self'";
  t.same(judge(mixed, true).rules, ['csp-insecure-scheme:error', 'csp-object-src-not-none:warning'], 'http: sources on an HTTPS page');
  t.equal(judge(mixed, true).test, 'csp-implemented-with-insecure-scheme');
  t.same(judge("default-src 'self'; img-src http:; object-src 'none'; base-uri 'self'", true), {
    rules: ['csp-insecure-scheme:warning'], test: 'csp-implemented-with-insecure-scheme-in-passive-content-only', modifier: -10, frameAncestors: null, source: 'header',
  }, 'http: images only: passive');
  t.same(judge(mixed, false).rules, ['csp-object-src-not-none:warning'], 'http: sources are not mixed content on an HTTP page');

  t.same(judge(undefined), { rules: ['csp-missing:error'], test: 'csp-not-implemented', modifier: -25, frameAncestors: null, source: null });
  t.same(judge(undefined, true, { reportOnly: "default-src 'self'" }).rules, ['csp-missing:error'], 'Report-Only does not protect');
  t.match(judgeCsp({ reportOnly: "default-src 'self'", https: true }).checks[0].text.en, /Report-Only/);
  t.same(judge('upgrade-everything please').rules, ['csp-invalid:error']);
  t.equal(judge('upgrade-everything please').modifier, -25);

  t.same(judge("default-src 'self' 'unsafe-inline', script-src 'self'; object-src 'none'").rules, ['csp-base-uri-missing:warning'],
    'two policies: a weakness counts only when both have it');

  t.same(judge(undefined, true, { meta: metaCsp(`<meta http-equiv="Content-Security-Policy" content="default-src 'self'; frame-ancestors 'none'">`) }), {
    rules: ['csp-base-uri-missing:warning', 'csp-object-src-not-none:warning'],
    test: 'csp-implemented-with-no-unsafe', modifier: 5, frameAncestors: null, source: 'meta',
  }, 'a <meta> policy counts, but cannot set frame-ancestors');

  const text = judgeCsp({ header: "script-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'self'", https: true }).checks[0].text;
  t.equal(text.sv, "CSP tillåter 'unsafe-inline' för skript (script-src) utan nonce eller hash; inskjutna skript körs då. Använd nonce eller hash i stället.");
  t.equal(text.en, "CSP allows 'unsafe-inline' for scripts (script-src) without a nonce or hash, so injected scripts run. Use nonces or hashes instead.");
});

// ── Other judgements ────────────────────────────────────────────────────────────────────────────

t.test('judgeHsts, judgeRedirect, judgeTls and the header checks', async (t) => {
  const hsts = (h: string | undefined) => {
    const j = judgeHsts(h);
    return [rulesOf(j.checks), j.modifiers.map((m) => m.modifier)];
  };
  t.same(hsts('max-age=300'), [['hsts-no-include-subdomains:warning', 'hsts-no-preload:info', 'hsts-short-max-age:warning'], [-10]]);
  t.equal(judgeHsts('max-age=300').checks.find((c) => c.rule === 'hsts-short-max-age')!.text.sv,
    'HSTS max-age är 300 sekunder; minst ett år (31536000) rekommenderas.');
  t.same(hsts('max-age=20000000; includeSubDomains'), [['hsts-no-preload:info', 'hsts-short-max-age:warning'], [0]], 'over six months: no Observatory penalty');
  t.same(hsts('max-age=31536000; includeSubDomains; preload'), [[], [0]]);
  t.same(hsts('max-age=0'), [['hsts-missing:error'], [-20]]);
  t.same(hsts('includeSubDomains'), [['hsts-invalid:error'], [-20]]);
  t.same(hsts(undefined), [['hsts-missing:error'], [-20]]);

  const answer = (status: number, location?: string, error?: string): ProbeResponse => ({
    url: 'http://example.se/', status, headers: location ? { location } : {}, body: '', chain: ['http://example.se/'], ...(error ? { error } : {}),
  });
  const redirect = (res: ProbeResponse) => {
    const j = judgeRedirect('http://example.se/', res, 'example.se');
    return [j.result.outcome, rulesOf(j.checks), j.modifiers[0].modifier];
  };
  t.same(redirect(answer(301, 'https://example.se/')), ['to-https', [], 0]);
  t.same(redirect(answer(308, '/')), ['not-to-https', ['http-redirect-not-https:error'], -20], 'a relative Location stays on http');
  t.same(redirect(answer(302, 'https://www.example.se/')), ['off-host', ['http-redirect-off-host:warning'], -5]);
  t.same(redirect(answer(200)), ['missing', ['http-not-redirected:error'], -20]);
  t.same(redirect(answer(0, undefined, 'connect ECONNREFUSED')), ['no-http', [], 0]);

  const cert = (daysToExpiry: number, trusted: boolean, verifyError: string | null): TlsProbe => ({
    versions: ['TLSv1.2', 'TLSv1.3'], alpn: 'h2',
    certificate: { subject: 'example.se', issuer: 'CA', validFrom: '2025-01-01T00:00:00.000Z', validTo: '2026-01-01T00:00:00.000Z', daysToExpiry, trusted, verifyError },
  });
  t.same(rulesOf(judgeTls(cert(-3, false, 'CERT_HAS_EXPIRED')).checks), ['tls-cert-expired:critical'], 'expired: reported once');
  t.same(rulesOf(judgeTls(cert(10, true, null)).checks), ['tls-cert-expiring:error']);
  t.same(rulesOf(judgeTls(cert(20, true, null)).checks), ['tls-cert-expiring:warning']);
  t.same(rulesOf(judgeTls(cert(30, true, null)).checks), []);
  t.same(rulesOf(judgeTls({ ...cert(200, false, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'), versions: ['TLSv1.1', 'TLSv1.2'] }).checks),
    ['tls-cert-untrusted:critical', 'tls-old-versions:error']);

  t.equal(effectiveReferrerPolicy('unsafe-url, strict-origin-when-cross-origin'), 'strict-origin-when-cross-origin', 'the last valid token wins');
  const headers = (h: Record<string, string>, frameAncestors: string[] | null = null) => {
    const j = judgeHeaders(h, frameAncestors);
    return [rulesOf(j.checks), j.modifiers.map((m) => `${m.test}:${m.modifier}`)];
  };
  t.same(headers({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer-when-downgrade', 'permissions-policy': 'camera=()', 'x-frame-options': 'SAMEORIGIN' }), [
    ['referrer-policy-unsafe:warning'],
    ['x-content-type-options-nosniff:0', 'referrer-policy-no-referrer-when-downgrade:0', 'x-frame-options-sameorigin-or-deny:0'],
  ]);
  t.same(headers({ 'x-content-type-options': 'sniff-away', 'referrer-policy': 'unsafe-url', 'x-frame-options': 'ALLOW-FROM https://a.example' }), [
    ['framing-unprotected:error', 'permissions-policy-missing:warning', 'referrer-policy-unsafe:warning', 'x-content-type-options-invalid:warning'],
    ['x-content-type-options-header-invalid:-5', 'referrer-policy-unsafe:-5', 'x-frame-options-header-invalid:-20'],
  ]);
  t.same(headers({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'permissions-policy': 'camera=()' }, ["'self'"]), [
    [],
    ['x-content-type-options-nosniff:0', 'referrer-policy-private:5', 'x-frame-options-implemented-via-csp:5'],
  ]);
});

// ── Type 21 on the gathered fixtures ────────────────────────────────────────────────────────────

t.test('type 21 on the good fixture: plain HTTP on loopback, every security header in place', async (t) => {
  const { artifacts, probes, url } = fixtures.good;
  const outcome = await runPlugin(httpNetwork, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), ['http2-missing:warning', 'https-missing:critical']);
  // infosec 100 − 25 = 75 → 3.75; webstandard 100 − 1 = 99 → 4.95; overall (3.75 + 4.95) / 2 = 4.35
  t.same(outcome.ratings, { infosec: rating(75), webstandard: rating(99) });
  t.same(outcome.ratings, { infosec: 3.75, webstandard: 4.95 });
  t.equal(outcome.rating, 4.35);
  t.same(data.redirect, { url, status: 200, location: null, error: null, outcome: 'missing' });
  t.same(data.tls, { host: '127.0.0.1', port: 443, versions: [], alpn: null, error: 'No TLS handshake succeeded' });
  t.equal(data.certificate, null);
  t.same(data.protocol, { document: 'http/1.1', alpn: null, http2: false });
  t.equal(data.headers['content-security-policy'], "default-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'self'");
  t.equal(data.headers['referrer-policy'], 'no-referrer');
  t.same(data.csp.frame_ancestors, ["'none'"]);
  t.equal(data.hsts, null, 'HSTS is not judged without HTTPS');
  t.equal(data.mixed_content, null);
  // 100 − 20 (hsts-not-implemented-no-https) − 20 (redirection-missing) = 60 < 90: no bonuses
  t.equal(data.observatory_like_score, 60);
  t.equal(outcome.reports.sv.sec, 'Integritet & säkerhet: Betyg: 3.75\n- Webbplatsen svarar inte med HTTPS (TLS) på 127.0.0.1:443: all trafik går okrypterad. Aktivera HTTPS med ett betrott certifikat och omdirigera HTTP dit.');
  t.equal(outcome.reports.en.stand, 'Standards: Rating: 4.95\n- The page is not delivered over HTTP/2 or HTTP/3 (protocol: http/1.1); browsers use HTTP/2 only over HTTPS.');
});

t.test('type 21 on the flawed fixture: plain HTTP and no security headers', async (t) => {
  const { artifacts, probes } = fixtures.flawed;
  const outcome = await runPlugin(httpNetwork, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), [
    'csp-missing:error',
    'framing-unprotected:error',
    'http2-missing:warning',
    'https-missing:critical',
    'permissions-policy-missing:warning',
    'referrer-policy-missing:warning',
    'x-content-type-options-missing:warning',
  ]);
  // infosec 100 − 25 − 10 − 10 − 1 − 1 − 1 = 52 → 2.6; webstandard 99 → 4.95; overall 3.775 → 3.78
  t.same(outcome.ratings, { infosec: rating(52), webstandard: rating(99) });
  t.same(outcome.ratings, { infosec: 2.6, webstandard: 4.95 });
  t.equal(outcome.rating, 3.78);
  // 100 − 20 − 20 − 25 (csp) − 5 (nosniff) − 20 (x-frame-options) = 10
  t.equal(data.observatory_like_score, 10);
  t.same(data.observatory_modifiers.map((m: any) => m.test), [
    'hsts-not-implemented-no-https', 'redirection-missing', 'csp-not-implemented',
    'x-content-type-options-not-implemented', 'referrer-policy-not-implemented', 'x-frame-options-not-implemented',
  ]);
  t.equal(data.redirect.outcome, 'missing');
  t.equal(data.headers['content-security-policy'], null);
});

// ── Type 21 on real TLS servers ─────────────────────────────────────────────────────────────────

const STRONG_HEADERS = {
  'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'permissions-policy': 'camera=(), microphone=()',
};

/** Runs type 21 on `site` as if Chromium had loaded it; http://127.0.0.1/ goes to its redirector. */
async function runOnTlsSite(site: TlsSite, subresources: Parameters<typeof httpsPageArtifacts>[2] = []) {
  const probes = routeProbes(createProbes(LOOPBACK_GUARD), { 'http://127.0.0.1/': site.redirectUrl });
  // The headers the server really sends, as the gather step would have recorded them.
  const served = await probes.fetch(site.url);
  const outcome = await runPlugin(httpNetwork, httpsPageArtifacts(site.url, served.headers, subresources), { probes });
  return { outcome, data: outcome.data as any };
}

t.test('type 21 on an HTTP/2 site with a self-signed certificate and a short HSTS', async (t) => {
  const site = await startTlsSite(t, { headers: { 'strict-transport-security': 'max-age=300', ...STRONG_HEADERS } });
  const { outcome, data } = await runOnTlsSite(site);
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), [
    'hsts-no-include-subdomains:warning',
    'hsts-no-preload:info',
    'hsts-short-max-age:warning',
    'tls-cert-untrusted:critical',
  ], 'TLS 1.2/1.3 only: no old-TLS finding; ALPN h2: no HTTP/2 finding');
  // infosec 100 − 25 − 1 − 1 = 73 → 3.65; webstandard 100 → 5; overall 4.325 → 4.33
  t.same(outcome.ratings, { infosec: rating(73), webstandard: rating(100) });
  t.equal(outcome.rating, 4.33);
  t.same(data.tls, { host: '127.0.0.1', port: site.port, versions: ['TLSv1.2', 'TLSv1.3'], alpn: 'h2', error: null });
  t.match(data.certificate, { subject: '127.0.0.1', issuer: '127.0.0.1', trusted: false, verify_error: 'DEPTH_ZERO_SELF_SIGNED_CERT', days_to_expiry: 364 });
  t.same(data.protocol, { document: '', alpn: 'h2', http2: true });
  t.same(data.redirect, { url: 'http://127.0.0.1/', status: 301, location: site.url, error: null, outcome: 'to-https' });
  t.same(data.hsts, { header: 'max-age=300', max_age: 300, include_subdomains: false, preload: false });
  t.same(data.mixed_content, { active: [], passive: [] });
  // 100 − 20 (hsts-invalid-cert) − 20 (redirection-invalid-cert) = 60 < 90: no bonuses
  t.equal(data.observatory_like_score, 60);
  const untrusted = outcome.reports.en.sec.split('\n').find((l) => l.includes('not trusted'));
  t.equal(untrusted, '- The certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT); browsers warn visitors or refuse the page. Use a certificate from a trusted authority and send the whole chain.');
  t.match(outcome.reports.sv.sec, /- HSTS max-age är 300 sekunder; minst ett år \(31536000\) rekommenderas\./);
});

t.test('type 21 on an HTTPS site that also accepts TLS 1.0 and 1.1, with a certificate expiring in 10 days', async (t) => {
  const site = await startTlsSite(t, {
    http2: false,
    legacyTls: true,
    days: 10,
    headers: { 'strict-transport-security': 'max-age=63072000; includeSubDomains; preload', ...STRONG_HEADERS },
  });
  const { outcome, data } = await runOnTlsSite(site);
  t.same(data.tls.versions, ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'], "Node's OpenSSL offers TLS 1.0 at security level 0");
  t.same(rulesOf(data.findings), [
    'http2-missing:warning',
    'tls-cert-expiring:error',
    'tls-cert-untrusted:critical',
    'tls-old-versions:error',
  ]);
  // infosec 100 − 25 − 10 − 10 = 55 → 2.75; webstandard 99 → 4.95; overall 3.85
  t.same(outcome.ratings, { infosec: rating(55), webstandard: rating(99) });
  t.equal(outcome.rating, 3.85);
  t.equal(data.certificate.days_to_expiry, 9, 'ten days from issue, floored');
  t.same(data.protocol, { document: '', alpn: 'http/1.1', http2: false });
  t.match(outcome.reports.en.sec, /- The server accepts outdated TLS versions \(TLSv1, TLSv1\.1\); turn off TLS 1\.0 and 1\.1/);
  t.match(outcome.reports.sv.sec, /- Certifikatet går ut om 9 dagar \(\d{4}-\d\d-\d\d\); förnya det i god tid, gärna automatiskt\./);
});

t.test('type 21 reports mixed content of an HTTPS page', async (t) => {
  const site = await startTlsSite(t, { headers: { 'strict-transport-security': 'max-age=31536000; includeSubDomains; preload', ...STRONG_HEADERS } });
  const { outcome, data } = await runOnTlsSite(site, [
    networkRecord('http://127.0.0.1:9/app.js', 'Script', { failed: true, status: 0 }),
    networkRecord('http://127.0.0.1:9/theme.css', 'Stylesheet'),
    networkRecord('http://127.0.0.1:9/photo.jpg', 'Image'),
    networkRecord(`${site.url}logo.svg`, 'Image'),
  ]);
  t.same(rulesOf(data.findings), ['mixed-content-active:error', 'mixed-content-passive:warning', 'tls-cert-untrusted:critical']);
  t.same(data.mixed_content, { active: ['http://127.0.0.1:9/app.js', 'http://127.0.0.1:9/theme.css'], passive: ['http://127.0.0.1:9/photo.jpg'] });
  t.equal(outcome.findings.find((f) => f.rule === 'mixed-content-active')!.count, 2);
  // infosec 100 − 25 − 10 − 1 = 64 → 3.2; webstandard 5; overall 4.1
  t.same(outcome.ratings, { infosec: rating(64), webstandard: 5 });
  t.equal(outcome.rating, 4.1);
});
