/**
 * Sites that refuse the test: a start page answering 403 with a Cloudflare-like bot check ("Just
 * a moment..."), 503 with a CAPTCHA, a plain 500 or a 503 for maintenance, and a TLS handshake
 * that never completes. The run says what happened in plain words (Swedish and English), and no
 * test type rates it: every registered plugin's outcome is that reason, not rated. Real Chromium,
 * Lighthouse and plugins on the test world, through testPage as the CLI and the runner call it;
 * one case through a real runner into PostgreSQL and out of the API, one through the CLI's command.
 */
import type { ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import type { Db } from '../../core/db/database.js';
import { testPage, type PageTest } from '../../core/engine.js';
import { ErrorCodes } from '../../core/errors.js';
import { HANDSHAKE_CHECK_MS, answeringDocument, explainLoadFailure, tlsHandshake } from '../../core/gather/load-failure.js';
import { NOT_RATED, type NetworkRecord } from '../../core/plugin-api.js';
import { loadPlugins } from '../../core/registry.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { networkRecord } from '../helpers/infosec-tls.js';
import { webperfTest } from '../helpers/operator.js';
import { startTestRunner } from '../helpers/runner.js';
import { startWorld } from '../helpers/world/index.js';

const world = await startWorld(t);
const guard = world.guard();
// Every test type the service runs (the built-ins), and a third-party plugin loaded by name.
const registry = await loadPlugins({ external: ['webperf-plugin-example'] });
const plugins = registry.all();
const ids = plugins.map((p) => p.meta.id);

const html = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) =>
  void res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

const CLOUDFLARE_CHALLENGE = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="360"></head><body><div class="main-wrapper"><h1>kommun.test</h1>
<h2 id="challenge-running">Checking if the site connection is secure</h2>
<noscript>Enable JavaScript and cookies to continue</noscript>
<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f"></script></div></body></html>`;

const CAPTCHA = `<!DOCTYPE html><html lang="sv"><head><title>Verifiera att du är en människa</title></head><body>
<main><h1>Ett ögonblick</h1><p>Vi behöver kontrollera att du inte är en robot.</p>
<form method="post"><div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div><button>Fortsätt</button></form></main></body></html>`;

const MAINTENANCE = '<!DOCTYPE html><html lang="sv"><head><title>Underhåll</title></head><body><main><h1>Vi uppdaterar webbplatsen</h1><p>Välkommen tillbaka om en stund.</p></main></body></html>';

const sites = {
  challenge: await world.site('skyddad.test', { handler: (_req, res) => html(res, 403, CLOUDFLARE_CHALLENGE, { 'cf-mitigated': 'challenge', server: 'cloudflare' }) }),
  captcha: await world.site('captcha.test', { handler: (_req, res) => html(res, 503, CAPTCHA) }),
  broken: await world.site('trasig.test', { handler: (_req, res) => void res.writeHead(500).end() }),
  maintenance: await world.site('underhall.test', { handler: (_req, res) => html(res, 503, MAINTENANCE, { 'retry-after': '3600' }) }),
  hang: await world.site('tyst.test', { https: { handshake: 'hang' } }),
};

/** The page the world serves, tested with every plugin as the CLI and the runner test it. */
async function tested(url: string): Promise<PageTest> {
  return testPage(url, plugins, { browser: await testBrowserPool().acquire(), guard, registry }, { loadFailure: 'report' });
}

interface Expected {
  code: string;
  en: string;
  sv: string;
  details: Record<string, unknown>;
}

/** The failure as expected, and every test type's outcome that failure, not rated. */
function assertRefused(t: Test, result: PageTest, expected: Expected): void {
  t.ok(result.failure, 'the page could not be loaded');
  t.strictSame(
    { code: result.failure!.code, status: result.failure!.status, message: result.failure!.message, text: result.failure!.text, details: result.failure!.details },
    { code: expected.code, status: 502, message: expected.en, text: { sv: expected.sv, en: expected.en }, details: expected.details },
  );
  t.ok(expected.code in ErrorCodes, `${expected.code} is in the error catalogue`);
  t.strictSame(result.outcomes.map((o) => o.typeOfTest), ids, 'an outcome for every test type');
  // E-mail (24) and DNS (32) need no page: they judge the domain in DNS whatever the web server
  // does (DNS finds no name servers for these names in the world: not rated, but no error).
  const pageless = result.outcomes.filter((o) => registry.get(o.typeOfTest)?.meta.needsPage === false);
  t.strictSame(pageless.map((o) => [o.typeOfTest, o.error]), [[24, null], [32, null]], 'the types that need no page ran');
  for (const o of result.outcomes.filter((x) => !pageless.includes(x))) {
    t.strictSame(
      { rating: o.rating, ratings: o.ratings, error: o.error, findings: o.findings, data: o.data, sv: o.reports.sv, en: o.reports.en },
      {
        rating: NOT_RATED,
        ratings: {},
        error: expected.en,
        findings: [],
        data: { error: expected.en, code: expected.code, ...expected.details },
        sv: { overall: `${expected.sv}\nInte bedömt`, a11y: '', perf: '', sec: '', stand: '' },
        en: { overall: `${expected.en}\nNot rated`, a11y: '', perf: '', sec: '', stand: '' },
      },
      `type ${o.typeOfTest}: not rated, saying why`,
    );
  }
  t.strictSame(result.outcomes.filter((o) => o.rating !== NOT_RATED && !pageless.includes(o)), [], 'no test type rates the page');
}

t.test('403 with a Cloudflare-like bot check ("Just a moment..."): refused, said so, nothing rated', async (t) => {
  const result = await tested(sites.challenge.url);
  assertRefused(t, result, {
    code: 'TARGET_REFUSED',
    en: 'The website refused the test: https://skyddad.test/ answered 403 with a bot check ("Just a moment..."), a page from a firewall or CAPTCHA service that keeps automated visitors out, instead of the page. The site\'s owner can let the test through.',
    sv: 'Webbplatsen stoppade testet: https://skyddad.test/ svarade 403 med en robotkontroll (”Just a moment...”), en sida från en brandvägg eller CAPTCHA-tjänst som håller automatiska besökare ute, i stället för sidan. Webbplatsens ägare kan släppa igenom testet.',
    details: { url: 'https://skyddad.test/', status: 403, lighthouse_error: 'ERRORED_DOCUMENT_REQUEST', bot_check: true },
  });
  t.equal(result.artifacts.lighthouse, null, 'nothing of the page was kept');
});

t.test('503 with a CAPTCHA: refused, said so, nothing rated', async (t) => {
  const result = await tested(sites.captcha.url);
  assertRefused(t, result, {
    code: 'TARGET_REFUSED',
    en: 'The website refused the test: https://captcha.test/ answered 503 with a bot check ("Verifiera att du är en människa"), a page from a firewall or CAPTCHA service that keeps automated visitors out, instead of the page. The site\'s owner can let the test through.',
    sv: 'Webbplatsen stoppade testet: https://captcha.test/ svarade 503 med en robotkontroll (”Verifiera att du är en människa”), en sida från en brandvägg eller CAPTCHA-tjänst som håller automatiska besökare ute, i stället för sidan. Webbplatsens ägare kan släppa igenom testet.',
    details: { url: 'https://captcha.test/', status: 503, lighthouse_error: 'ERRORED_DOCUMENT_REQUEST', bot_check: true },
  });
});

t.test('a plain 500 (no body: the browser shows its own error page): a server error, nothing rated', async (t) => {
  const result = await tested(sites.broken.url);
  assertRefused(t, result, {
    code: 'TARGET_SERVER_ERROR',
    en: 'The website could not serve the page: https://trasig.test/ answered 500 Internal Server Error, a server error.',
    sv: 'Webbplatsen kunde inte visa sidan: https://trasig.test/ svarade 500 Internal Server Error, ett serverfel.',
    // Lighthouse calls it an interstitial: Chromium showed its own error page for the empty answer.
    details: { url: 'https://trasig.test/', status: 500, lighthouse_error: 'CHROME_INTERSTITIAL_ERROR' },
  });
});

t.test('503 for maintenance, no bot check: a server error, not a refusal, nothing rated', async (t) => {
  const result = await tested(sites.maintenance.url);
  assertRefused(t, result, {
    code: 'TARGET_SERVER_ERROR',
    en: 'The website could not serve the page: https://underhall.test/ answered 503 Service Unavailable, a server error.',
    sv: 'Webbplatsen kunde inte visa sidan: https://underhall.test/ svarade 503 Service Unavailable, ett serverfel.',
    details: { url: 'https://underhall.test/', status: 503, lighthouse_error: 'ERRORED_DOCUMENT_REQUEST' },
  });
});

t.test('a TLS handshake that never completes: said so, nothing rated', async (t) => {
  const result = await tested(sites.hang.url);
  // Two 30-second limits race here: Lighthouse's wait for a first paint (NO_FCP: it waited for a
  // paint that never came) and Chromium's for the handshake (ERR_TIMED_OUT: the document request
  // failed, or Chromium's error page was shown). Whichever ends first, the explanation is the same;
  // only the details Lighthouse and Chromium gave differ, each exactly one of these.
  const raceDetails: Record<string, Record<string, string>> = {
    NO_FCP: {},
    CHROME_INTERSTITIAL_ERROR: {},
    FAILED_DOCUMENT_REQUEST: { net_error: 'net::ERR_TIMED_OUT' },
  };
  const lighthouseError = String(result.failure?.details?.lighthouse_error);
  t.ok(lighthouseError in raceDetails, `Lighthouse's code: ${lighthouseError}`);
  assertRefused(t, result, {
    code: 'TARGET_TLS_FAILED',
    en: 'The secure connection to tyst.test (port 443) was never set up: the server accepted the connection but did not complete the TLS handshake, so the page could not be loaded.',
    sv: 'Den säkra anslutningen till tyst.test (port 443) kom aldrig till stånd: servern tog emot anslutningen men slutförde inte TLS-handskakningen, så sidan kunde inte laddas.',
    details: { url: 'https://tyst.test/', host: 'tyst.test', port: 443, lighthouse_error: lighthouseError, ...raceDetails[lighthouseError], handshake: 'never completed' },
  });
});

t.test('without loadFailure: report, the refusal is thrown (the audit records a failed page)', async (t) => {
  await t.rejects(
    testPage(sites.captcha.url, plugins, { browser: await testBrowserPool().acquire(), guard, registry }),
    { name: 'PageLoadFailure', code: 'TARGET_REFUSED', message: /^The website refused the test: https:\/\/captcha\.test\/ answered 503 with a bot check/ },
  );
});

async function waitForRun(db: Db, runId: number) {
  const until = Date.now() + 120_000;
  for (;;) {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    if (run.status === 'done' || run.status === 'failed') return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

t.test('a re-test through the API and a real runner: every result but e-mail stored not rated, the API shows why', async (t) => {
  const api = await buildTestApi(t, { rateLimitPerMinute: 100_000 });
  const { app, db } = api;
  await db.insertInto('premium_levels').values({ name: 'standard', monthly_quota: 100 }).execute();
  const siteId = await createSite(db, { title: 'Skyddad kommun', url: sites.challenge.url, premiumLevel: 'standard' });
  const headers = { 'api-key': (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key, 'site-id': String(siteId) };
  await startTestRunner(t, { db, connectionString: api.url, registry: api.registry, guard });

  const order = await app.inject({ method: 'POST', url: '/retest/', headers });
  t.equal(order.statusCode, 200, 'the re-test is ordered');
  const run = await waitForRun(db, order.json().run_id);
  t.strictSame(run, { status: 'done', error: null }, 'the run is done: the refusal is its result');
  const active = api.registry.select(null).map((p) => p.meta.id);
  const results = await db.selectFrom('test_results').select(['type_of_test', 'rating', 'rating_a11y', 'rating_infosec', 'rating_pagespeed', 'rating_webstandard', 'error'])
    .where('run_id', '=', order.json().run_id).orderBy('type_of_test').execute();
  const en = 'The website refused the test: https://skyddad.test/ answered 403 with a bot check ("Just a moment..."), a page from a firewall or CAPTCHA service that keeps automated visitors out, instead of the page. The site\'s owner can let the test through.';
  // E-mail (24) needs no page: it judged the domain and is stored rated; every other type says why not.
  const mail = results.find((r) => r.type_of_test === 24)!;
  t.strictSame([mail.error, mail.rating >= 1, mail.rating_infosec !== null], [null, true, true], 'e-mail stored rated');
  // DNS (32) needs no page either: skyddad.test has no name servers in this world, said so, no error.
  const dns = results.find((r) => r.type_of_test === 32)!;
  t.strictSame([dns.error, dns.rating], [null, NOT_RATED], 'DNS: no zone to test, no error');
  t.strictSame(results.filter((r) => r !== mail && r !== dns), active.filter((id) => id !== 24 && id !== 32).map((id) => ({ type_of_test: id, rating: NOT_RATED, rating_a11y: null, rating_infosec: null, rating_pagespeed: null, rating_webstandard: null, error: en })), 'every other active type stored, not rated, with the reason');
  const monthly = await db.selectFrom('monthly_scores').select(['type_of_score']).where('site_id', '=', siteId).execute();
  t.strictSame(monthly.map((m) => m.type_of_score).sort(), ['kat-infosec', 'kat-total', 'kat-webstandard'], "only e-mail's scores counted for the month (its two categories and the total)");

  const stats = await app.inject({ method: 'GET', url: `/stats/${siteId}?lang=sv`, headers });
  t.equal(stats.statusCode, 200, 'GET /stats/{siteId} answers');
  const sv = 'Webbplatsen stoppade testet: https://skyddad.test/ svarade 403 med en robotkontroll (”Just a moment...”), en sida från en brandvägg eller CAPTCHA-tjänst som håller automatiska besökare ute, i stället för sidan. Webbplatsens ägare kan släppa igenom testet.';
  t.strictSame(
    stats.json().data.filter((d: { type_of_test: number }) => d.type_of_test !== 24 && d.type_of_test !== 32).map((d: { type_of_test: number; rating: number; check_report: string; json_check_data: string }) => [d.type_of_test, d.rating, d.check_report, JSON.parse(d.json_check_data).code]),
    active.filter((id) => id !== 24 && id !== 32).map((id) => [id, NOT_RATED, `${sv}\nInte bedömt`, 'TARGET_REFUSED']),
    'GET /stats/{siteId}?lang=sv: every type but e-mail not rated, saying why in Swedish',
  );
});

t.test('webperf test on a refusing site: the reason first, every type but e-mail not rated, exit code 1', async (t) => {
  // The command in this process (its exit code recorded): cli.test.ts spawns it.
  const res = await webperfTest(world.env(), [sites.captcha.url, '--lang', 'sv']);
  t.equal(res.code, 1, 'exit code 1');
  const sv = 'Webbplatsen stoppade testet: https://captcha.test/ svarade 503 med en robotkontroll (”Verifiera att du är en människa”), en sida från en brandvägg eller CAPTCHA-tjänst som håller automatiska besökare ute, i stället för sidan. Webbplatsens ägare kan släppa igenom testet.';
  const active = registry.select(null).filter((p) => p.meta.id !== 150 && p.meta.id !== 24 && p.meta.id !== 32);
  // E-mail (24) needs no page: its block is a rating like any run's; DNS (32) neither: it says the
  // domain has no name servers (none in this world).
  const mail = /== 24 E-post \(Beta\): (\d\.\d\d)\n[\s\S]*?\n\n(?=== 25 )/.exec(res.stdout);
  t.ok(mail, 'e-mail rated');
  const dns = /== 32 DNS \(Zonemaster\): -\ncaptcha\.test: domänen har inga namnservrar \(inga NS-poster\), så den kunde inte testas\.\n[\s\S]*?\n\n(?=== 100 )/.exec(res.stdout);
  t.ok(dns, 'DNS: no zone to test');
  t.equal(res.stdout.replace(mail?.[0] ?? '', '').replace(dns?.[0] ?? '', ''), [
    `!! ${sv}\n`,
    ...active.map((p) => `== ${p.meta.id} ${p.meta.names.sv}: -\n${sv}\nInte bedömt\n`),
  ].join('\n') + '\n', 'stdout: the reason, then every other active type not rated');
  t.match(res.stderr, /the page could not be loaded \(TARGET_REFUSED\)/);
  t.match(res.stderr, /✗ 21 HTTP & nätverk: not rated: The website refused the test: https:\/\/captcha\.test\/ answered 503 with a bot check/);
});

t.test("what the failed load's own records say, without Chromium: a 404 after two redirects, a handshake reset, neither", async (t) => {
  const loadOf = (url: string, network: NetworkRecord[], message = 'Lighthouse was unable to reliably load the page you requested.') => ({
    url,
    runtimeError: { code: 'ERRORED_DOCUMENT_REQUEST', message },
    network,
    readHtml: async () => '<!DOCTYPE html><html lang="sv"><head><title>Sidan finns inte</title></head><body><h1>404</h1></body></html>',
    guard,
  });
  // http -> https -> the page's new address, which is gone: the last hop is the answer.
  const hops = [
    networkRecord('http://flyttad.test/', 'Document', { status: 301, responseHeaders: { location: 'https://flyttad.test/' } }),
    networkRecord('https://flyttad.test/', 'Document', { status: 302, responseHeaders: { location: '/ny-adress/' } }),
    networkRecord('https://flyttad.test/ny-adress/', 'Document', { status: 404 }),
  ];
  t.same(answeringDocument(hops, 'http://flyttad.test/'), hops[2], 'the redirects followed to the answer');
  const gone = await explainLoadFailure(loadOf('http://flyttad.test/', hops));
  t.strictSame(
    { code: gone?.code, text: gone?.text, details: gone?.details },
    {
      code: 'TARGET_ERROR_STATUS',
      text: {
        en: 'The page could not be tested: https://flyttad.test/ny-adress/ answered 404 Not Found instead of the page.',
        sv: 'Sidan kunde inte testas: https://flyttad.test/ny-adress/ svarade 404 Not Found i stället för sidan.',
      },
      details: { url: 'https://flyttad.test/ny-adress/', status: 404, lighthouse_error: 'ERRORED_DOCUMENT_REQUEST' },
    },
    'a 4xx that is no bot check: the status, in plain words',
  );
  // A Location that is no address, and a hop that ends nowhere: the hop before is the answer.
  const badLocation = [networkRecord('https://flyttad.test/', 'Document', { status: 301, responseHeaders: { location: 'https://[flyttad' } })];
  t.equal(answeringDocument(badLocation, 'https://flyttad.test/'), badLocation[0]);
  const unfollowed = [networkRecord('https://flyttad.test/', 'Document', { status: 301, responseHeaders: { location: '/annan/' } })];
  t.equal(answeringDocument(unfollowed, 'https://flyttad.test/'), unfollowed[0]);
  t.equal(answeringDocument([], 'https://flyttad.test/'), undefined, 'no document at all');

  // Plain HTTP on port 443 (a server misconfigured): the handshake failed, and why.
  const plain = await world.site('okrypterad.test', { https: { handshake: 'plain-http' } });
  const failed = await explainLoadFailure(loadOf(plain.url, [], 'Lighthouse was unable to reliably load the page you requested. (Details: net::ERR_SSL_PROTOCOL_ERROR)'));
  t.strictSame(
    { code: failed?.code, text: failed?.text, details: failed?.details },
    {
      code: 'TARGET_TLS_FAILED',
      text: {
        en: 'The secure connection to okrypterad.test (port 443) could not be set up: the TLS handshake failed (net::ERR_SSL_PROTOCOL_ERROR), so the page could not be loaded.',
        sv: 'Den säkra anslutningen till okrypterad.test (port 443) kunde inte upprättas: TLS-handskakningen misslyckades (net::ERR_SSL_PROTOCOL_ERROR), så sidan kunde inte laddas.',
      },
      details: { url: 'https://okrypterad.test/', host: 'okrypterad.test', port: 443, lighthouse_error: 'ERRORED_DOCUMENT_REQUEST', net_error: 'net::ERR_SSL_PROTOCOL_ERROR', handshake: 'ERR_SSL_WRONG_VERSION_NUMBER' },
    },
  );
  t.same(await tlsHandshake(guard, 'okrypterad.test', 443, HANDSHAKE_CHECK_MS), { error: 'ERR_SSL_WRONG_VERSION_NUMBER' }, 'our own handshake fails the same way');
  // A TLS terminator that resets every connection at once: a failed handshake too, not "unreachable".
  await world.site('aterstalld.test', { https: { handshake: 'reset' } });
  t.same(await tlsHandshake(guard, 'aterstalld.test', 443, HANDSHAKE_CHECK_MS), { error: 'ECONNRESET' });
  // A site whose handshake completes: nothing to explain here (the caller's error stays).
  t.equal(await explainLoadFailure(loadOf(sites.captcha.url, [])), null);
});
