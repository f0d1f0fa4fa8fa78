/**
 * Type 21 end to end on the ways real sites are set up: each variant is a host of the test world
 * (https on 443 under a name, http on 80), loaded in a real Chromium through the guard and judged
 * by the real plugin through the engine, as a run does. Certificates, TLS versions, HTTP/2, the
 * route from http, HSTS, CSP in a <meta> tag and repeated headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { testPage } from '../../core/engine.js';
import { loadPlugins } from '../../core/registry.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorld, type HttpsOptions, type SiteOptions } from '../helpers/world/index.js';

const world = await startWorld(t);
const guard = world.guard();
// The share's Chromium (it trusts the suite's CA, as this world's guard does).
const pool = testBrowserPool();
const registry = await loadPlugins({ external: [] });
const plugins = registry.select([21]);

const STRICT: Record<string, string> = {
  'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'permissions-policy': 'camera=()',
};

const PAGE = (extraHead = '') => `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><title>Kommunen</title>${extraHead}</head><body><main><h1>Välkommen</h1><p>Kommunens webbplats.</p></main></body></html>`;

/** A page answering with `headers` ([name, value] pairs: repeated names sent repeatedly, as written). */
function page(headers: [string, string][], extraHead = '') {
  return (_req: IncomingMessage, res: ServerResponse) => {
    const flat: string[] = ['content-type', 'text/html; charset=utf-8'];
    for (const [name, value] of headers) flat.push(name, value);
    res.writeHead(200, flat as unknown as Record<string, string>);
    res.end(PAGE(extraHead));
  };
}

const strictPairs = (without: string[] = []) => Object.entries(STRICT).filter(([k]) => !without.includes(k));

async function judge(name: string, options: SiteOptions, start?: string) {
  const site = await world.site(name, options);
  const run = await testPage(start ?? site.url, plugins, { browser: await pool.acquire(), guard, registry }, { loadFailure: 'report' });
  const outcome = run.outcomes[0];
  const data = outcome.data as any;
  return {
    failure: run.failure?.code ?? null,
    error: outcome.error,
    rating: outcome.rating,
    rules: (outcome.findings as { rule: string; severity: string }[]).map((f) => `${f.rule}:${f.severity}`).sort(),
    tests: Object.fromEntries((data.observatory_modifiers as { test: string; result: string; modifier: number }[]).map((m) => [m.test, `${m.result} ${m.modifier}`])),
    score: data.observatory_like_score as number,
    data,
  };
}

const tlsOf = (extra: HttpsOptions): SiteOptions => ({ handler: page(strictPairs()), https: extra });

t.test('certificates: expired, not yet valid, for another name, self-signed, expiring in 10 days', async (t) => {
  const expired = await judge('utgangen.test', tlsOf({ cert: 'expired' }));
  t.equal(expired.failure, null, 'Chromium (trusting the CA by key) loads it; the verdict is the probe\'s');
  t.ok(expired.rules.includes('tls-cert-expired:critical'));
  t.notOk(expired.rules.some((r) => r.startsWith('tls-cert-untrusted')), 'the cause is reported once');
  t.equal(expired.data.certificate.verify_error, 'CERT_HAS_EXPIRED');

  const early = await judge('for-tidigt.test', tlsOf({ cert: 'not-yet-valid' }));
  t.ok(early.rules.includes('tls-cert-untrusted:critical'));
  t.equal(early.data.certificate.verify_error, 'CERT_NOT_YET_VALID');

  const wrongName = await judge('fel-namn.test', tlsOf({ cert: 'wrong-name' }));
  t.ok(wrongName.rules.includes('tls-cert-untrusted:critical'));
  t.equal(wrongName.data.certificate.verify_error, 'ERR_TLS_CERT_ALTNAME_INVALID');
  t.equal(wrongName.data.certificate.subject, 'other-fel-namn.test');

  const selfSigned = await judge('egen.test', tlsOf({ cert: 'self-signed' }));
  t.equal(selfSigned.failure, 'TARGET_CERTIFICATE', 'Chromium refuses the page');
  t.equal(selfSigned.error, null, 'type 21 judges it from its own requests');
  t.ok(selfSigned.rules.includes('tls-cert-untrusted:critical'));
  t.equal(selfSigned.data.certificate.verify_error, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  t.equal(selfSigned.tests['strict-transport-security'], 'hsts-invalid-cert -20');

  const expiring = await judge('snart.test', tlsOf({ days: 10 }));
  t.ok(expiring.rules.includes('tls-cert-expiring:error'));
  t.equal(expiring.data.certificate.days_to_expiry, 9, 'ten days from now, counted in whole days left');
  t.equal(expiring.data.certificate.trusted, true);
});

t.test('TLS 1.0/1.1 still enabled, and no HTTP/2', async (t) => {
  const legacy = await judge('gammal-tls.test', tlsOf({ legacyTls: true }));
  t.same(legacy.data.tls.versions, ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
  t.ok(legacy.rules.includes('tls-old-versions:error'));

  const h1 = await judge('bara-http1.test', tlsOf({ http2: false }));
  t.equal(h1.data.protocol.document, 'http/1.1');
  t.equal(h1.data.protocol.alpn, 'http/1.1');
  t.ok(h1.rules.includes('http2-missing:warning'));

  const strict = await judge('strikt.test', tlsOf({}));
  t.same(strict.rules, [], 'a strict site: nothing to report');
  t.equal(strict.data.protocol.document, 'h2');
  t.equal(strict.tests.redirection, 'redirection-to-https 0');
  t.equal(strict.rating, 5);
});

t.test('the route from http: another host first, http -> http -> https, no http at all', async (t) => {
  // http://kommun.test/ -> https://www.kommun.test/, the page tested being the one asked for.
  await world.site('www.kommun-a.test', { handler: page(strictPairs()) });
  const offHost = await judge('kommun-a.test', { handler: page(strictPairs()), http: (req, res) => void res.writeHead(301, { location: 'https://www.kommun-a.test/' }).end() }, 'http://kommun-a.test/');
  t.equal(offHost.tests.redirection, 'redirection-off-host-from-http -5');
  t.ok(offHost.rules.includes('http-redirect-off-host:warning'));
  t.same(offHost.data.redirect.chain, [
    { url: 'http://kommun-a.test/', status: 301, location: 'https://www.kommun-a.test/' },
    { url: 'https://www.kommun-a.test/', status: 200, location: null },
  ]);

  await world.site('www.kommun-b.test', { handler: page(strictPairs()), http: 'redirect' });
  const twoHops = await judge('kommun-b.test', { handler: page(strictPairs()), http: (req, res) => void res.writeHead(301, { location: 'http://www.kommun-b.test/' }).end() }, 'http://kommun-b.test/');
  t.equal(twoHops.tests.redirection, 'redirection-not-to-https-on-initial-redirection -10');
  t.ok(twoHops.rules.includes('http-redirect-first-not-https:warning') || twoHops.rules.includes('http-redirect-first-not-https:error'));
  t.same(twoHops.data.redirect.chain, [
    { url: 'http://kommun-b.test/', status: 301, location: 'http://www.kommun-b.test/' },
    { url: 'http://www.kommun-b.test/', status: 301, location: 'https://www.kommun-b.test/' },
    { url: 'https://www.kommun-b.test/', status: 200, location: null },
  ]);

  const noHttp = await judge('utan-http.test', { handler: page(strictPairs()), http: 'none' });
  t.equal(noHttp.tests.redirection, 'redirection-not-needed-no-http 0');
  t.notOk(noHttp.rules.some((r) => r.startsWith('http-')), 'port 80 closed needs no redirect');
});

t.test('HSTS missing, short, six months, duplicated, with and without includeSubDomains and preload', async (t) => {
  const hsts = (name: string, values: string[]) => judge(name, { handler: page([...strictPairs(['strict-transport-security']), ...values.map((v): [string, string] => ['Strict-Transport-Security', v])]) });
  const missing = await hsts('hsts-saknas.test', []);
  t.equal(missing.tests['strict-transport-security'], 'hsts-not-implemented -20');
  t.ok(missing.rules.includes('hsts-missing:error'));
  const short = await hsts('hsts-kort.test', ['max-age=86400']);
  t.equal(short.tests['strict-transport-security'], 'hsts-implemented-max-age-less-than-six-months -10');
  t.ok(short.rules.includes('hsts-short-max-age:warning') && short.rules.includes('hsts-no-include-subdomains:warning'));
  const sixMonths = await hsts('hsts-halvar.test', ['max-age=15552000; includeSubDomains']);
  t.equal(sixMonths.tests['strict-transport-security'], 'hsts-implemented-max-age-at-least-six-months 0', "15552000 s is the Observatory's six months");
  t.notOk(sixMonths.rules.includes('hsts-no-include-subdomains:warning'));
  const twice = await hsts('hsts-dubbel.test', ['max-age=63072000; includeSubDomains; preload', 'max-age=0']);
  t.equal(twice.tests['strict-transport-security'], 'hsts-header-invalid -20', 'sent twice: invalid, as the Observatory reads it');
  t.ok(twice.rules.includes('hsts-invalid:error'));
  const full = await hsts('hsts-full.test', ['max-age=63072000; includeSubDomains; preload']);
  t.equal(full.tests['strict-transport-security'], 'hsts-implemented-max-age-at-least-six-months 0');
  t.notOk(full.rules.some((r) => r.startsWith('hsts-')));
});

t.test('CSP only in a <meta> tag; headers repeated and in odd casing', async (t) => {
  const meta = await judge('csp-meta.test', {
    handler: page(strictPairs(['content-security-policy']), `<meta http-equiv="Content-Security-Policy" content="default-src 'self'; object-src 'none'; base-uri 'self'">`),
  });
  t.equal(meta.data.csp.source, 'meta');
  t.equal(meta.tests['content-security-policy'], 'csp-implemented-with-no-unsafe 5');
  t.notOk(meta.rules.some((r) => r.startsWith('csp-missing')));

  // HTTP/1.1: a header line twice and names in any case, as a server writes them (HTTP/2 lowercases
  // names, and Node's HTTP/2 server refuses a second X-Content-Type-Options).
  const repeated = await judge('upprepad.test', {
    handler: page([...strictPairs(['x-content-type-options']), ['X-CONTENT-TYPE-OPTIONS', 'nosniff'], ['x-content-type-options', 'NoSniff']]),
    https: { http2: false },
  });
  t.equal(repeated.tests['x-content-type-options'], 'x-content-type-options-header-invalid -5', "read as the Observatory joins them: 'nosniff, NoSniff'");
  t.ok(repeated.rules.includes('x-content-type-options-invalid:warning'));

  const casing = await judge('versaler.test', { handler: page(Object.entries(STRICT).map(([k, v]) => [k.toUpperCase(), v])), https: { http2: false } });
  t.equal(casing.tests['x-content-type-options'], 'x-content-type-options-nosniff 0', 'header names are case-insensitive');
  t.equal(casing.tests['strict-transport-security'], 'hsts-implemented-max-age-at-least-six-months 0');
});
