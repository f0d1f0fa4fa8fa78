/**
 * Type 21, HTTP & Network (plugins/http-network), on real fixture sites in a real Chromium (good
 * and flawed, each gathered once), on real TLS servers with a self-signed certificate
 * (test/helpers/infosec-tls.ts), and its judgement functions one by one: the MDN HTTP
 * Observatory's results as observatory.ts gives them (test/conformance/observatory.test.ts holds
 * them against the Observatory's own analysers), and the findings read from them.
 *
 * Expected ratings follow the reference rules: a category starts at 100, each failing rule
 * deducts 25 (critical), 10 (error) or 1 (warning) once; rating = max(1, score / 100 × 5);
 * overall = mean of the categories, two decimals, half away from zero.
 */
import t from 'tap';
import { runPlugin } from '../../core/pipeline.js';
import { createProbes } from '../../core/net/probes.js';
import type { ProbeResponse, Probes, TlsProbe } from '../../core/plugin-api.js';
import httpNetwork from '../../plugins/http-network/index.js';
import { judgeHeaders, judgeHsts, judgeRedirect, judgeTls, type RedirectSession } from '../../plugins/http-network/checks.js';
import { judgeCsp } from '../../plugins/http-network/csp.js';
import { readMetaTags } from '../../plugins/http-network/meta-tags.js';
import { observatoryCsp } from '../../plugins/http-network/observatory-csp.js';
import {
  hstsResult, observatoryHeaders, observatoryScore, redirectionResult, referrerResult, xContentTypeOptionsResult, xFrameOptionsResult,
  type PageAnswer,
} from '../../plugins/http-network/observatory.js';
import { followRoute } from '../../plugins/http-network/route.js';
import { noRecordLookup } from '../../core/net/dns-records.js';
import { LOOPBACK_GUARD, loadFixture, makeArtifacts } from '../helpers/fixture-artifacts.js';
import { httpsPageArtifacts, networkRecord, routeProbes, startTlsSite, type TlsSite } from '../helpers/infosec-tls.js';

/** The reference rule: max(1, score / 100 × 5), two decimals. */
const rating = (score: number) => Math.round(Math.max(1, (score / 100) * 5) * 100) / 100;

// One gather per fixture (a full Lighthouse run each) for the whole file.
const fixtures = { good: await loadFixture(t, 'good'), flawed: await loadFixture(t, 'flawed') };

const rulesOf = (findings: { rule: string; severity: string }[]) =>
  findings.map((f) => `${f.rule}:${f.severity}`).sort();

/** A page answer with these headers (lower-case names) and no <meta> equivalents. */
const pageWith = (headers: Record<string, string>, extra: Partial<PageAnswer> = {}): PageAnswer =>
  ({ https: true, headers, metaCsp: [], metaReferrer: null, ...extra });

// ── Headers as the Observatory sees them ────────────────────────────────────────────────────────

t.test('observatoryHeaders: a repeated header is its values joined by ", ", as Node joins them', async (t) => {
  t.same(observatoryHeaders({
    'X-Content-Type-Options': 'nosniff\nNoSniff',
    'strict-transport-security': 'max-age=300\n max-age=31536000',
    'content-type': 'text/html\ntext/plain',
    'referrer-policy': 'no-referrer, unsafe-url',
  }), {
    'x-content-type-options': 'nosniff, NoSniff',
    'strict-transport-security': 'max-age=300, max-age=31536000',
    'content-type': 'text/html',
    'referrer-policy': 'no-referrer, unsafe-url',
  }, "Chromium's \"\\n\" joins become Node's; Node keeps the first Content-Type");
});

// ── CSP ─────────────────────────────────────────────────────────────────────────────────────────

t.test("observatoryCsp: the Observatory's result per policy", async (t) => {
  const result = (header: string | undefined, extra: { https?: boolean; meta?: string[]; reportOnly?: string } = {}) =>
    observatoryCsp({ header, https: extra.https ?? true, meta: extra.meta ?? [], reportOnly: extra.reportOnly }).result;

  t.equal(result("default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"), 'csp-implemented-with-no-unsafe');
  t.equal(result("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'"), 'csp-implemented-with-no-unsafe-default-src-none');
  t.equal(result("script-src 'self' 'unsafe-inline'; object-src 'none'"), 'csp-implemented-with-unsafe-inline');
  t.equal(result("script-src 'self' data:; object-src 'none'"), 'csp-implemented-with-unsafe-inline', 'data: in script-src is inline script');
  t.equal(result("default-src 'self'"), 'csp-implemented-with-no-unsafe', 'object-src falls back to default-src');
  t.equal(result("script-src 'self'"), 'csp-implemented-with-unsafe-inline', 'no object-src and no default-src: objects from anywhere');
  t.equal(result("script-src 'nonce-r4nd0m' 'unsafe-inline' 'strict-dynamic' https:; object-src 'none'"), 'csp-implemented-with-unsafe-inline-in-style-src-only',
    "a nonce removes 'unsafe-inline', 'strict-dynamic' the scheme sources; styles are unrestricted (no default-src)");
  t.equal(result("script-src 'self' 'strict-dynamic'; object-src 'none'"), 'csp-header-invalid', "'strict-dynamic' without a nonce or hash");
  t.equal(result("default-src 'self'; script-src 'self'; script-src 'unsafe-inline'"), 'csp-header-invalid', 'a directive repeated in one policy');
  t.equal(result("default-src 'self'; report-uri /a; report-uri /b"), 'csp-implemented-but-duplicate-directives', 'report-uri may repeat');
  t.equal(result('a'), 'csp-header-invalid', 'shorter than six characters');
  t.equal(result(''), 'csp-header-invalid', 'an empty header');
  t.equal(result("default-src 'self' 'unsafe-eval'"), 'csp-implemented-with-unsafe-eval');
  t.equal(result("default-src 'self'; style-src 'self' 'unsafe-eval'"), 'csp-implemented-with-unsafe-eval', "'unsafe-eval' in style-src counts too");
  t.equal(result("default-src 'self'; img-src http:"), 'csp-implemented-with-insecure-scheme-in-passive-content-only');
  t.equal(result("default-src 'self'; form-action http://forms.example"), 'csp-implemented-with-insecure-scheme', 'any directive but img-src and media-src is active');
  t.equal(result("default-src 'self'; img-src http:", { https: false }), 'csp-implemented-with-no-unsafe', 'http: sources are no mixed content on http');
  t.equal(result("default-src 'self'; style-src 'unsafe-inline'"), 'csp-implemented-with-unsafe-inline-in-style-src-only');
  t.equal(result(undefined), 'csp-not-implemented');
  t.equal(result(undefined, { reportOnly: "default-src 'self'" }), 'csp-not-implemented-but-reporting-enabled');
  t.equal(result(undefined, { meta: ["frame-ancestors 'none'"] }), 'csp-not-implemented', 'a <meta> policy of frame-ancestors only is no policy');
  t.equal(result(undefined, { meta: ["default-src 'self'"] }), 'csp-implemented-with-no-unsafe', 'a <meta> policy counts');
  t.equal(result("default-src 'self', script-src 'unsafe-inline'"), 'csp-implemented-with-unsafe-inline',
    'a repeated header is one policy to the Observatory: default-src gets "\'self\',", "script-src" and "\'unsafe-inline\'"');
  t.equal(result("default-src 'self'", { meta: ["default-src 'none'"] }), 'csp-implemented-with-no-unsafe-default-src-none',
    "header and <meta> merged: a source stays when both policies have it; none left is 'none'");
  t.equal(result("default-src 'self'; script-src 'unsafe-inline'", { meta: ["script-src 'self'"] }), 'csp-implemented-with-no-unsafe');
  t.equal(result("script-src 'nonce-abc' 'strict-dynamic' data:; object-src 'none'; style-src 'self'"), 'csp-implemented-with-unsafe-inline',
    "data: stays under 'strict-dynamic' (browsers ignore it there: csp-browser-view)");
});

t.test('judgeCsp: exact findings per policy, as browsers enforce it', async (t) => {
  const judge = (header: string | undefined, https = true, extra: { reportOnly?: string; meta?: string[] } = {}) => {
    const observatoryInvalid = observatoryCsp({ header, https, meta: extra.meta ?? [], reportOnly: extra.reportOnly }).invalid;
    const j = judgeCsp({ header, https, observatoryInvalid, ...extra });
    return { rules: rulesOf(j.checks), frameAncestors: j.frameAncestors, source: j.source };
  };

  t.same(judge("default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"), {
    rules: [], frameAncestors: ["'none'"], source: 'header',
  }, 'a strict policy: nothing to report');
  t.same(judge("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'").rules, [],
    "default-src 'none' (object-src falls back to it)");
  t.same(judge("script-src 'self' 'unsafe-inline' 'unsafe-eval' https: data:").rules, [
    'csp-base-uri-missing:warning',
    'csp-object-src-unsafe:error',
    'csp-script-broad-source:error',
    'csp-unsafe-eval:warning',
    'csp-unsafe-inline:error',
  ], 'unsafe keywords, broad script sources, unrestricted object-src, no base-uri');
  t.same(judge("script-src 'nonce-r4nd0m' 'unsafe-inline' 'strict-dynamic' https:; object-src 'none'; base-uri 'none'").rules, [],
    "a nonce neutralises 'unsafe-inline', 'strict-dynamic' the scheme sources");
  t.same(judge("script-src 'self' 'unsafe-eval'; object-src 'none'; base-uri 'self'; style-src 'self'").rules, ['csp-unsafe-eval:warning']);
  t.same(judge("script-src 'self'; object-src data:; base-uri 'self'").rules, ['csp-object-src-not-none:warning'],
    "data: in object-src is not the Observatory's \"dangerously broad\"; object-src is still not 'none'");
  t.same(judge("script-src 'self'; object-src; base-uri 'self'").rules, [], "an empty object-src is 'none'");

  const mixed = "default-src 'self' http://cdn.example.org; img-src http:; object-src 'self'; base-uri 'self'";
  t.same(judge(mixed, true).rules, ['csp-insecure-scheme:error', 'csp-object-src-not-none:warning'], 'http: sources on an HTTPS page');
  t.same(judge("default-src 'self'; img-src http:; object-src 'none'; base-uri 'self'", true).rules, ['csp-insecure-scheme:warning'], 'http: images only: passive');
  t.same(judge("default-src 'self'; object-src 'none'; base-uri 'self'; form-action http://forms.example", true).rules, ['csp-insecure-scheme:error'],
    'a form sent over http is active, as the Observatory counts it');
  t.same(judge(mixed, false).rules, ['csp-object-src-not-none:warning'], 'http: sources are not mixed content on an HTTP page');

  t.same(judge(undefined), { rules: ['csp-missing:error'], frameAncestors: null, source: null });
  t.same(judge(undefined, true, { reportOnly: "default-src 'self'" }).rules, ['csp-missing:error'], 'Report-Only does not protect');
  t.match(judgeCsp({ reportOnly: "default-src 'self'", https: true }).checks[0].text.en, /Report-Only/);
  t.same(judge('upgrade-everything please').rules, ['csp-invalid:error'], 'no directive browsers know');
  t.same(judge('').rules, ['csp-invalid:error'], 'an empty header');
  t.same(judge("default-src 'self'; object-src 'none'; base-uri 'self'; script-src 'self'; script-src 'unsafe-inline'").rules, ['csp-invalid:error'],
    'a repeated directive: browsers use the first, the Observatory calls the policy invalid');
  t.same(judge("script-src 'self' 'strict-dynamic'; object-src 'none'; base-uri 'self'").rules, ['csp-invalid:error']);

  t.same(judge("default-src 'self' 'unsafe-inline', script-src 'self'; object-src 'none'").rules, ['csp-base-uri-missing:warning'],
    'a repeated header is two policies to browsers: a weakness counts only when both have it');

  t.same(judge(undefined, true, { meta: readMetaTags(`<meta http-equiv="Content-Security-Policy" content="default-src 'self'; frame-ancestors 'none'">`).csp }), {
    rules: ['csp-base-uri-missing:warning', 'csp-object-src-not-none:warning'], frameAncestors: null, source: 'meta',
  }, 'a <meta> policy counts, but cannot set frame-ancestors');

  const invalid = judgeCsp({ header: "default-src 'self'; default-src *", https: true, observatoryInvalid: { kind: 'repeated-directive', directive: 'default-src' } });
  t.equal(invalid.checks[0].text.en, 'CSP sets default-src more than once in one policy; browsers use the first and ignore the rest, and the MDN HTTP Observatory counts the policy as invalid. Put the sources in one directive.');
  const joined = judgeCsp({ header: "script-src 'self'; object-src 'none', object-src 'none'", https: true, observatoryInvalid: { kind: 'repeated-directive', directive: 'object-src' } });
  t.equal(joined.checks[0].text.en, 'Content-Security-Policy is sent more than once. Browsers enforce each policy, but the MDN HTTP Observatory reads them joined ("script-src \'self\'; object-src \'none\', object-src \'none\'") as one policy, which it cannot read. Send the policy in one header.');
  const text = judgeCsp({ header: "script-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'self'", https: true }).checks[0].text;
  t.equal(text.sv, "CSP tillåter 'unsafe-inline' för skript (script-src) utan nonce eller hash; inskjutna skript körs då. Använd nonce eller hash i stället.");
  t.equal(text.en, "CSP allows 'unsafe-inline' for scripts (script-src) without a nonce or hash, so injected scripts run. Use nonces or hashes instead.");
});

t.test('readMetaTags: the <meta> equivalents the Observatory reads', async (t) => {
  t.same(readMetaTags(`<!DOCTYPE html><head>
    <META HTTP-EQUIV=" Content-Security-Policy " CONTENT="default-src &apos;self&apos;">
    <meta http-equiv="content-security-policy" content="">
    <!-- <meta http-equiv="content-security-policy" content="default-src *"> -->
    <script>document.write('<meta http-equiv="content-security-policy" content="script-src *">')</script>
    <noscript><meta http-equiv="content-security-policy" content="img-src *"></noscript>
    <meta name="referrer" content="unsafe-url"><meta name="Referrer" content="no-referrer"><meta name="referrer" content="">
    <meta http-equiv="x-ua-compatible" name="referrer" content="origin">
  </head>`), { csp: ["default-src 'self'"], referrer: 'no-referrer' });
});

// ── HSTS ────────────────────────────────────────────────────────────────────────────────────────

t.test("hstsResult: the Observatory's HSTS result; judgeHsts: the findings", async (t) => {
  const result = (header: string | undefined, verified = true) =>
    hstsResult({ headers: header === undefined ? {} : { 'strict-transport-security': header }, verified });
  t.equal(result('max-age=15552000'), 'hsts-implemented-max-age-at-least-six-months', "15552000 s is the Observatory's six months");
  t.equal(result('max-age=15551999'), 'hsts-implemented-max-age-less-than-six-months');
  t.equal(result('max-age=31536000; includeSubDomains; preload'), 'hsts-implemented-max-age-at-least-six-months');
  t.equal(result('max-age=31536000, max-age=31536000'), 'hsts-header-invalid', 'sent twice');
  t.equal(result('max-age=0'), 'hsts-implemented-max-age-less-than-six-months');
  t.equal(result('includeSubDomains'), 'hsts-header-invalid');
  t.equal(result('max-age = 31536000'), 'hsts-header-invalid', 'no "max-age=" parameter');
  t.equal(result('max-age="300"'), 'hsts-implemented-max-age-at-least-six-months', 'a quoted number is NaN to it, and NaN is not below six months');
  t.equal(result(''), 'hsts-header-invalid');
  t.equal(result(undefined), 'hsts-not-implemented');
  t.equal(result('max-age=31536000', false), 'hsts-invalid-cert');
  t.equal(hstsResult(null), 'hsts-not-implemented-no-https');

  const hsts = (h: string | undefined) => rulesOf(judgeHsts(h).checks);
  t.same(hsts('max-age=300'), ['hsts-no-include-subdomains:warning', 'hsts-no-preload:info', 'hsts-short-max-age:warning']);
  t.equal(judgeHsts('max-age=300').checks.find((c) => c.rule === 'hsts-short-max-age')!.text.sv,
    'HSTS max-age är 300 sekunder; minst ett år (31536000) rekommenderas.');
  t.same(hsts('max-age=15552000; includeSubDomains'), ['hsts-no-preload:info', 'hsts-short-max-age:warning'], 'six months: no Observatory penalty, short of our year');
  t.same(hsts('max-age=31536000; includeSubDomains; preload'), []);
  t.same(hsts('max-age=31536000; includeSubDomains; preload, max-age=300'), ['hsts-invalid:error'], 'sent twice: invalid, and the first is fine');
  t.equal(judgeHsts('max-age=31536000, max-age=300').checks[0].text.en,
    'The HSTS header is sent more than once ("max-age=31536000, max-age=300"). Browsers use the first one (RFC 6797, 8.1), but the MDN HTTP Observatory counts a repeated header as invalid; send it once.');
  t.same(hsts('max-age=300, max-age=31536000; includeSubDomains; preload'),
    ['hsts-invalid:error', 'hsts-no-include-subdomains:warning', 'hsts-no-preload:info', 'hsts-short-max-age:warning'], 'the first, which browsers use, is short');
  t.same(hsts('max-age=0'), ['hsts-missing:error']);
  t.same(hsts('includeSubDomains'), ['hsts-invalid:error']);
  t.same(hsts('max-age=abc'), ['hsts-invalid:error'], 'browsers ignore it (hsts-max-age-unreadable)');
  t.same(hsts('max-age="31536000"; includeSubDomains; preload'), [], 'a quoted number, as browsers read it');
  t.same(hsts(''), ['hsts-invalid:error']);
  t.same(hsts(undefined), ['hsts-missing:error']);
});

// ── Redirection ─────────────────────────────────────────────────────────────────────────────────

t.test("redirectionResult: the Observatory's result from the http:// route; judgeRedirect: the findings", async (t) => {
  const route = (...hops: [string, number][]) => ({ route: hops.map(([url, status]) => ({ url, status })), verified: true });
  t.equal(redirectionResult(route(['http://kommun.test/', 301], ['https://kommun.test/', 200])), 'redirection-to-https');
  t.equal(redirectionResult(route(['http://kommun.test/', 301], ['https://www.kommun.test/', 200])), 'redirection-off-host-from-http');
  t.equal(redirectionResult(route(['http://kommun.test/', 301], ['https://kommun.test/', 301], ['https://www.kommun.test/', 200])), 'redirection-to-https',
    'only the first hop is held to the same host');
  t.equal(redirectionResult(route(['http://kommun.test/', 301], ['http://www.kommun.test/', 301], ['https://www.kommun.test/', 200])),
    'redirection-not-to-https-on-initial-redirection');
  t.equal(redirectionResult(route(['http://kommun.test/', 302], ['https://kommun.test/', 302], ['http://kommun.test/start', 200])), 'redirection-not-to-https');
  t.equal(redirectionResult(route(['http://kommun.test/', 200])), 'redirection-missing');
  t.equal(redirectionResult(null), 'redirection-not-needed-no-http');
  t.equal(redirectionResult({ ...route(['http://kommun.test/', 301], ['https://kommun.test/', 200]), verified: false }), 'redirection-invalid-cert');

  const session = (result: string, chain: [string, number][], extra: Partial<RedirectSession> = {}): RedirectSession => ({
    url: chain[0]?.[0] ?? 'http://kommun.test/', chain: chain.map(([url, status], i) => ({ url, status, location: chain[i + 1]?.[0] ?? null })),
    error: null, failed_url: null, untrusted: [], result, ...extra,
  });
  const findings = (s: RedirectSession, pageCertTrusted = true) => rulesOf(judgeRedirect(s, pageCertTrusted));
  t.same(findings(session('redirection-to-https', [['http://kommun.test/', 301], ['https://kommun.test/', 200]])), []);
  const offHost = judgeRedirect(session('redirection-off-host-from-http', [['http://kommun.test/', 301], ['https://www.kommun.test/', 200]]), true);
  t.same(rulesOf(offHost), ['http-redirect-off-host:warning']);
  t.equal(offHost[0].text.en, 'http://kommun.test/ redirects to HTTPS on another host (https://www.kommun.test/); redirect to https:// on the same host first so that HSTS can be set for it.');
  const initial = judgeRedirect(session('redirection-not-to-https-on-initial-redirection',
    [['http://kommun.test/', 301], ['http://www.kommun.test/', 301], ['https://www.kommun.test/', 200]]), true);
  t.same(rulesOf(initial), ['http-redirect-first-not-https:warning']);
  t.equal(initial[0].text.sv, 'http://kommun.test/ omdirigerar först till http://www.kommun.test/, som inte är HTTPS, och når HTTPS först senare; den första omdirigeringen bör gå direkt till https:// på samma värd.');
  t.same(findings(session('redirection-not-to-https', [['http://kommun.test/', 301], ['http://kommun.test/start', 200]])), ['http-redirect-not-https:error']);
  t.same(findings(session('redirection-missing', [['http://kommun.test/', 200]])), ['http-not-redirected:error']);
  t.same(findings(session('redirection-not-needed-no-http', [], { error: 'connect ECONNREFUSED', failed_url: 'http://kommun.test/' })), []);
  t.same(findings(session('redirection-not-needed-no-http', [['http://kommun.test/', 301]], { error: 'connect ECONNREFUSED', failed_url: 'https://kommun.test/' })),
    ['http-redirect-broken:error'], 'http answers, the https it leads to does not');
  const untrusted = session('redirection-invalid-cert', [['http://kommun.test/', 301], ['https://kommun.test/', 301], ['https://www.kommun.test/', 200]],
    { untrusted: ['https://kommun.test'] });
  t.same(findings(untrusted, true), ['tls-cert-untrusted:critical'], 'a certificate on the way, not the page\'s');
  t.same(findings(untrusted, false), [], "the page's own untrusted certificate is reported by judgeTls");
});

/** Probes answering from a table: URL → answer (not followed); any certificate trusted unless listed. */
function tableProbes(answers: Record<string, { status: number; location?: string; headers?: Record<string, string> } | 'refused'>, untrusted: string[] = []): Probes & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async fetch(url, options) {
      asked.push(`${url} ${options?.followRedirects === false ? 'manual' : 'follow'}`);
      const a = answers[url];
      if (!a || a === 'refused') return { url, status: 0, headers: {}, body: '', chain: [url], error: 'connect ECONNREFUSED' } satisfies ProbeResponse;
      return { url, status: a.status, headers: { ...a.headers, ...(a.location ? { location: a.location } : {}) }, body: '', chain: [url] };
    },
    async tls(host, port = 443) {
      return {
        versions: ['TLSv1.2', 'TLSv1.3'], alpn: 'h2',
        certificate: {
          subject: host, issuer: 'CA', validFrom: '2026-01-01T00:00:00.000Z', validTo: '2027-06-01T00:00:00.000Z', daysToExpiry: 180,
          trusted: !untrusted.includes(`${host}:${port}`), verifyError: untrusted.includes(`${host}:${port}`) ? 'DEPTH_ZERO_SELF_SIGNED_CERT' : null,
        },
      } satisfies TlsProbe;
    },
    dns: noRecordLookup,
    isAllowedAddress: () => false,
  };
}

t.test('followRoute: the http:// route hop by hop, as the Observatory follows it', async (t) => {
  const probes = tableProbes({
    'http://kommun.test/': { status: 301, location: 'http://www.kommun.test/' },
    'http://www.kommun.test/': { status: 302, location: '/start' },
    'http://www.kommun.test/start': { status: 308, location: 'https://www.kommun.test/start' },
    'https://www.kommun.test/start': { status: 200, headers: { 'X-Test': 'a\nb' } },
  }, ['www.kommun.test:443']);
  const route = await followRoute(probes, 'http://kommun.test/');
  t.same(route.hops, [
    { url: 'http://kommun.test/', status: 301, location: 'http://www.kommun.test/', headers: { location: 'http://www.kommun.test/' } },
    { url: 'http://www.kommun.test/', status: 302, location: '/start', headers: { location: '/start' } },
    { url: 'http://www.kommun.test/start', status: 308, location: 'https://www.kommun.test/start', headers: { location: 'https://www.kommun.test/start' } },
    { url: 'https://www.kommun.test/start', status: 200, location: null, headers: { 'x-test': 'a, b' } },
  ]);
  t.same([route.error, route.failedUrl, route.untrusted], [null, null, ['https://www.kommun.test']]);
  t.ok(probes.asked.every((a) => a.endsWith(' manual')), 'every hop asked without following redirects');

  const loop = await followRoute(tableProbes({ 'http://loop.test/': { status: 302, location: 'http://loop.test/' } }), 'http://loop.test/');
  t.equal(loop.hops.length, 11, 'ten redirects followed, the eleventh answer is the last');
  const broken = await followRoute(tableProbes({ 'http://kommun.test/': { status: 301, location: 'https://kommun.test/' } }), 'http://kommun.test/');
  t.same([broken.hops.length, broken.error, broken.failedUrl], [1, 'connect ECONNREFUSED', 'https://kommun.test/']);
  const bare = await followRoute(tableProbes({ 'http://kommun.test/': { status: 302 } }), 'http://kommun.test/');
  t.same(bare.hops.map((h) => h.status), [302], 'a redirect without a Location ends the route (redirect-without-location)');
});

t.test('type 21 judges the redirect from the host asked for: http://kommun.test/ → https://www.kommun.test/', async (t) => {
  const page = 'https://www.kommun.test/';
  const headers = {
    'content-type': 'text/html; charset=utf-8', 'strict-transport-security': 'max-age=31536000; includeSubDomains; preload',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'", 'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer', 'permissions-policy': 'camera=()',
  };
  const probes = tableProbes({
    'http://kommun.test/': { status: 301, location: page },
    [page]: { status: 200, headers },
  });
  const artifacts = makeArtifacts(page, {
    requestedUrl: 'http://kommun.test/',
    mainDocument: { url: page, status: 200, headers, html: '<!DOCTYPE html><title>Kommun</title>' },
    network: [networkRecord(page, 'Document', { protocol: 'h2', responseHeaders: headers })],
  });
  const outcome = await runPlugin(httpNetwork, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(data.redirect, {
    url: 'http://kommun.test/',
    chain: [{ url: 'http://kommun.test/', status: 301, location: page }, { url: page, status: 200, location: null }],
    error: null, failed_url: null, untrusted: [], result: 'redirection-off-host-from-http',
  });
  t.same(rulesOf(data.findings), ['http-redirect-off-host:warning']);
  t.same(data.observatory_modifiers, [
    { test: 'content-security-policy', result: 'csp-implemented-with-no-unsafe-default-src-none', modifier: 10 },
    { test: 'redirection', result: 'redirection-off-host-from-http', modifier: -5 },
    { test: 'referrer-policy', result: 'referrer-policy-private', modifier: 5 },
    { test: 'strict-transport-security', result: 'hsts-implemented-max-age-at-least-six-months', modifier: 0 },
    { test: 'x-content-type-options', result: 'x-content-type-options-nosniff', modifier: 0 },
    { test: 'x-frame-options', result: 'x-frame-options-implemented-via-csp', modifier: 5 },
  ]);
  // 100 − 5 = 95 ≥ 90, so the bonuses count: 95 + 10 + 5 + 5 = 115
  t.equal(data.observatory_like_score, 115);
  t.same(probes.asked.sort(), ['http://kommun.test/ manual', `${page} manual`]);
});

// ── Referrer-Policy, X-Content-Type-Options, X-Frame-Options ────────────────────────────────────

t.test("the other headers: the Observatory's results and the findings read from them", async (t) => {
  const referrer = (value: string | undefined, meta: string | null = null) =>
    referrerResult(pageWith(value === undefined ? {} : { 'referrer-policy': value }, { metaReferrer: meta }));
  t.equal(referrer('no-referrer'), 'referrer-policy-private');
  t.equal(referrer('same-origin'), 'referrer-policy-private');
  t.equal(referrer('strict-origin'), 'referrer-policy-private');
  t.equal(referrer('strict-origin-when-cross-origin'), 'referrer-policy-private');
  t.equal(referrer('no-referrer-when-downgrade'), 'referrer-policy-unsafe', 'unsafe in 1.4.8');
  t.equal(referrer('origin'), 'referrer-policy-unsafe');
  t.equal(referrer('origin-when-cross-origin'), 'referrer-policy-unsafe');
  t.equal(referrer('unsafe-url'), 'referrer-policy-unsafe');
  t.equal(referrer('unsafe-url, strict-origin-when-cross-origin'), 'referrer-policy-private', 'the last valid token counts');
  t.equal(referrer('no-referrer, sometimes'), 'referrer-policy-private');
  t.equal(referrer('sometimes'), 'referrer-policy-header-invalid');
  t.equal(referrer(undefined), 'referrer-policy-not-implemented');
  t.equal(referrer('no-referrer', 'unsafe-url'), 'referrer-policy-unsafe', '<meta name="referrer"> comes after the header');
  t.equal(referrer(undefined, 'same-origin'), 'referrer-policy-private');

  t.equal(xContentTypeOptionsResult({ 'x-content-type-options': 'nosniff' }), 'x-content-type-options-nosniff');
  t.equal(xContentTypeOptionsResult({ 'x-content-type-options': ' NoSniff ' }), 'x-content-type-options-nosniff');
  t.equal(xContentTypeOptionsResult(observatoryHeaders({ 'x-content-type-options': 'nosniff\nNoSniff' })), 'x-content-type-options-header-invalid', 'sent twice');
  t.equal(xContentTypeOptionsResult({ 'x-content-type-options': '' }), 'x-content-type-options-not-implemented');
  t.equal(xContentTypeOptionsResult({}), 'x-content-type-options-not-implemented');

  const noCsp = observatoryCsp({ https: true, meta: [] });
  const xfo = (value: string) => xFrameOptionsResult({ 'x-frame-options': value }, noCsp);
  t.equal(xfo('DENY'), 'x-frame-options-sameorigin-or-deny');
  t.equal(xfo('sameorigin'), 'x-frame-options-sameorigin-or-deny');
  t.equal(xfo('ALLOW-FROM https://a.example'), 'x-frame-options-allow-from-origin');
  t.equal(xfo('DENY, DENY'), 'x-frame-options-header-invalid', 'sent twice');
  t.equal(xfo('allowall'), 'x-frame-options-header-invalid');
  t.equal(xFrameOptionsResult({}, noCsp), 'x-frame-options-not-implemented');
  t.equal(xFrameOptionsResult({}, observatoryCsp({ https: true, header: "default-src 'self'; frame-ancestors *", meta: [] })), 'x-frame-options-implemented-via-csp',
    'any frame-ancestors, even *');
  t.equal(xFrameOptionsResult({}, observatoryCsp({ https: true, meta: ["default-src 'self'; frame-ancestors 'none'"] })), 'x-frame-options-implemented-via-csp',
    'even in a <meta> policy');

  const headers = (page: PageAnswer, frameAncestors: string[] | null = null) => rulesOf(judgeHeaders(page, {
    xContentTypeOptions: xContentTypeOptionsResult(page.headers),
    referrerPolicy: referrerResult(page),
    xFrameOptions: xFrameOptionsResult(page.headers, noCsp),
  }, frameAncestors).checks);
  t.same(headers(pageWith({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer-when-downgrade', 'permissions-policy': 'camera=()', 'x-frame-options': 'SAMEORIGIN' })),
    ['referrer-policy-unsafe:warning']);
  t.same(headers(pageWith({ 'x-content-type-options': 'sniff-away', 'referrer-policy': 'unsafe-url', 'x-frame-options': 'ALLOW-FROM https://a.example' })),
    ['framing-unprotected:error', 'permissions-policy-missing:warning', 'referrer-policy-unsafe:warning', 'x-content-type-options-invalid:warning'],
    'ALLOW-FROM: browsers ignore it (x-frame-options-allow-from)');
  t.same(headers(pageWith({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'permissions-policy': 'camera=()' }), ["'self'"]), []);
  t.same(headers(pageWith({}, { metaReferrer: 'origin' })),
    ['framing-unprotected:error', 'permissions-policy-missing:warning', 'referrer-policy-unsafe:warning', 'x-content-type-options-missing:warning']);
  t.same(headers(pageWith({ 'referrer-policy': 'sometimes' })).filter((r) => r.startsWith('referrer')), ['referrer-policy-invalid:warning']);

  const repeated = pageWith(observatoryHeaders({
    'x-content-type-options': 'nosniff\nNoSniff', 'x-frame-options': 'DENY\nDENY', 'referrer-policy': 'no-referrer', 'permissions-policy': 'camera=()',
  }));
  const found = judgeHeaders(repeated, {
    xContentTypeOptions: xContentTypeOptionsResult(repeated.headers), referrerPolicy: referrerResult(repeated), xFrameOptions: xFrameOptionsResult(repeated.headers, noCsp),
  }, null).checks;
  t.same(rulesOf(found), ['x-content-type-options-invalid:warning', 'x-frame-options-invalid:error']);
  t.equal(found[0].text.en, 'X-Content-Type-Options is sent more than once ("nosniff, NoSniff"); browsers read the first value, but the MDN HTTP Observatory counts the header as invalid. Send nosniff once.');
  t.equal(found[1].text.sv, 'X-Frame-Options skickas mer än en gång ("DENY, DENY"); webbläsare skyddar ändå mot inramning, men MDN HTTP Observatory räknar huvudet som ogiltigt. Skicka DENY eller SAMEORIGIN en gång, eller använd CSP frame-ancestors.');
});

t.test('observatoryScore: penalties first, bonuses only from 90 up, never below 0', async (t) => {
  const score = (...m: number[]) => observatoryScore(m.map((modifier) => ({ modifier })));
  t.equal(score(10, 5, 5, 0), 120);
  t.equal(score(-10, 10, 5), 105, '90 after penalties: bonuses count');
  t.equal(score(-15, 10, 5), 85, '85: they do not');
  t.equal(score(-25, -20, -20, -20, -20, -5), 0);
});

// ── TLS ─────────────────────────────────────────────────────────────────────────────────────────

t.test('judgeTls', async (t) => {
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
});

// ── Type 21 on the gathered fixtures ────────────────────────────────────────────────────────────

t.test('type 21 on the good fixture: https://good.test/, http redirecting to it, every security header in place', async (t) => {
  const { artifacts, probes, url } = fixtures.good;
  const outcome = await runPlugin(httpNetwork, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), []);
  t.same(outcome.ratings, { infosec: 5, webstandard: 5 });
  t.equal(outcome.rating, 5);
  const host = new URL(url).hostname;
  t.same(data.redirect, {
    url: `http://${host}/`,
    chain: [{ url: `http://${host}/`, status: 301, location: url }, { url, status: 200, location: null }],
    error: null, failed_url: null, untrusted: [], result: 'redirection-to-https',
  });
  t.same(data.tls, { host, port: 443, versions: ['TLSv1.2', 'TLSv1.3'], alpn: 'h2', error: null });
  t.match(data.certificate, { subject: host, issuer: 'webperf test world CA', trusted: true, verify_error: null });
  t.same(data.protocol, { document: 'h2', alpn: 'h2', http2: true });
  t.equal(data.headers['content-security-policy'], "default-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'self'");
  t.equal(data.headers['referrer-policy'], 'no-referrer');
  t.same(data.csp.frame_ancestors, ["'none'"]);
  t.same(data.hsts, { header: 'max-age=31536000; includeSubDomains; preload', max_age: 31536000, include_subdomains: true, preload: true });
  t.same(data.mixed_content, { active: [], passive: [] });
  // No penalty: 100 + 5 (csp-implemented-with-no-unsafe) + 5 (referrer-policy-private) + 5 (x-frame-options-implemented-via-csp)
  t.equal(data.observatory_like_score, 115);
  t.equal(outcome.reports.en.overall.split('\n')[0], 'HTTP & Network: HTTPS, TLS TLSv1.2, TLSv1.3, protocol h2; Observatory-like score 115.');
});

t.test('type 21 on the flawed fixture: no security headers', async (t) => {
  const { artifacts, probes } = fixtures.flawed;
  const outcome = await runPlugin(httpNetwork, artifacts, { probes });
  const data = outcome.data as any;
  t.equal(outcome.error, null);
  t.same(rulesOf(data.findings), [
    'csp-missing:error',
    'framing-unprotected:error',
    'hsts-missing:error',
    'permissions-policy-missing:warning',
    'referrer-policy-missing:warning',
    'x-content-type-options-missing:warning',
  ]);
  // infosec 100 − 10 − 10 − 10 − 1 − 1 − 1 = 67 → 3.35; webstandard 100 → 5; overall 4.175 → 4.18
  t.same(outcome.ratings, { infosec: rating(67), webstandard: rating(100) });
  t.same(outcome.ratings, { infosec: 3.35, webstandard: 5 });
  t.equal(outcome.rating, 4.18);
  // 100 − 25 (csp) − 20 (hsts) − 5 (nosniff) − 20 (x-frame-options) = 30
  t.equal(data.observatory_like_score, 30);
  t.same(data.observatory_modifiers.map((m: any) => `${m.result}:${m.modifier}`), [
    'csp-not-implemented:-25', 'redirection-to-https:0', 'referrer-policy-not-implemented:0', 'hsts-not-implemented:-20',
    'x-content-type-options-not-implemented:-5', 'x-frame-options-not-implemented:-20',
  ]);
  t.equal(data.redirect.result, 'redirection-to-https');
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
  t.same(data.redirect, {
    url: 'http://127.0.0.1/',
    chain: [{ url: 'http://127.0.0.1/', status: 301, location: site.url }, { url: site.url, status: 200, location: null }],
    error: null, failed_url: null, untrusted: [`https://127.0.0.1:${site.port}`], result: 'redirection-invalid-cert',
  });
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
