/**
 * The rest of the webperf.se catalogue end to end (issue 23): energy efficiency (22), e-mail (24),
 * software (25), accessibility statement (26), JS lint (29), privacy (31, issue 29 §3) and DNS (32, issue 29 §4: the real
 * zonemaster-cli over kommun.test served by the world's own authoritative servers) ordered through the API, run by a
 * real graphile-worker runner with a real Chromium and Lighthouse on one page load of a
 * municipality's website served as real ones are (https://www.kommun.test/ on port 443, its names,
 * MX, SPF, DMARC, MTA-STS and TLS-RPT records answered by the test world's DNS server), and the
 * results where their readers find them: the stored results, /stats/, the monthly scores by
 * category, the webhook, a one-off test of every active type, the portal and the dashboard (also in
 * Chromium at 360, 768 and 1280 px in both languages, with axe).
 *
 * Expected ratings, worked by hand from each plugin's rules (plugins/<name>/index.ts):
 * - 22: the page and its script weigh a few kB, far below webperf.se's 5th percentile
 *   (0.593 g CO2, ≈0.94 MiB): cleaner than ≥ 95 % → 5.00 (overall only).
 * - 24: kommun.test has two MX hosts with IPv4 and IPv6 each, SPF `-all`, DMARC p=reject with
 *   strict alignment and reports, MTA-STS enforced over both hosts, TLS-RPT and a validated
 *   DNSSEC answer: every sub-rating fired is 5 → 5.00, infosec 5.00, webstandard 5.00.
 * - 25: jQuery 3.7.1 alone, one release behind the newest in the vendored data (BEHIND001, 4.9);
 *   no vulnerability, end of life, unmaintained source or overlay (5.0 each): overall
 *   (4.9 + 5 + 5 + 5 + 5) / 5 = 4.98, infosec (4.9 + 5 + 5 + 5) / 4 = 4.975 → 4.98, a11y 5.00.
 * - 26: the footer links the statement (depth 1): fully compliant, a feedback function (e-mail),
 *   DIGG's notification link, an evaluation method (self-assessment), assessed 60 and updated 30
 *   days before the run: no deduction → a11y 100 → 5.00.
 * - 29: the inline script calls eval(): no-eval deducts 10 from infosec (90 → 4.50); no debugger
 *   statement (webstandard 100 → 5.00); overall mean(90, 100) / 20 = 4.75.
 * - 31: https with TLS 1.3 and nothing insecure (HTTPS 5), no Referrer-Policy (3), no cookies (5),
 *   no third party (5), headers 5 − 1.5 (no HSTS) − 0.5 (no nosniff) − 0.5 (no X-Frame-Options or
 *   frame-ancestors) = 2.5, no third-party script (SRI 5): (5 + 3 + 5 + 5 + 2.5 + 5) / 6 = 4.25,
 *   infosec 4.25.
 * - 32: kommun.test's servers answer as they should; what loopback cannot help remains: name
 *   servers at private addresses (ADDRESS01, ERROR, −1.5) and no reverse DNS (a WARNING upstream's
 *   override makes a notice): 5 − 1.5 = 3.50, standards 3.50; nothing in DNSSEC or Consistency
 *   (unsigned is a notice): security 5.00.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Db } from '../../core/db/database.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';
import { checkLayout } from '../helpers/layout.js';
import { browserContext, portalClient, portalSignIn, portalUser, signIn } from '../helpers/portal.js';
import { runEnded, startTestRunner } from '../helpers/runner.js';
import { startAuthoritativeDns } from '../helpers/world/authoritative-dns.js';
import { startWorld } from '../helpers/world/index.js';

const RUN_WAIT_MS = 150_000;
const NEW_TYPES = [22, 24, 25, 26, 29, 31, 32];
const DAY_MS = 86_400_000;
const MONTHS_SV = ['januari', 'februari', 'mars', 'april', 'maj', 'juni', 'juli', 'augusti', 'september', 'oktober', 'november', 'december'];

async function waitFor<T>(what: string, read: () => Promise<T | null>): Promise<T> {
  const until = Date.now() + RUN_WAIT_MS;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`${what}: still waiting after ${RUN_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const runDone = (db: Db, runId: number) => runEnded(db, runId, RUN_WAIT_MS);

// The statement's dates, relative to today (the run judges ages against its own time).
const now = new Date();
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const svDay = (d: Date) => `${d.getUTCDate()} ${MONTHS_SV[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
const assessed = new Date(now.getTime() - 60 * DAY_MS);
const updated = new Date(now.getTime() - 30 * DAY_MS);

const START = `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Kommunen</title></head>
<body><header><a href="/">Kommunen</a></header>
<main><h1>Välkommen till kommunen</h1><p>Här finns information om kommunens service till invånare och företag.</p></main>
<footer><a href="/om-webbplatsen/tillganglighetsredogorelse/">Tillgänglighetsredogörelse</a></footer>
<script src="/js/jquery-3.7.1.min.js"></script>
<script>window.setTimeout(function () { eval('1 + 1'); }, 0);</script>
</body></html>`;

const STATEMENT = `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><title>Tillgänglighetsredogörelse - Kommunen</title></head>
<body><header><a href="/">Kommunen</a></header><main>
<h1>Tillgänglighetsredogörelse</h1>
<p>Kommunen står bakom den här webbplatsen. Vi vill att så många som möjligt ska kunna använda webbplatsen.</p>
<h2>Hur tillgänglig är webbplatsen?</h2>
<p>Den här webbplatsen är helt förenlig med lagen om tillgänglighet till digital offentlig service.</p>
<h2>Rapportera brister i webbplatsens tillgänglighet</h2>
<p>Meddela oss om du upptäcker problem som inte är beskrivna på den här sidan: skicka e-post till <a href="mailto:webb@kommun.test">webb@kommun.test</a>.</p>
<h2>Tillsyn</h2>
<p>Myndigheten för digital förvaltning har ansvaret för tillsyn. Om du inte är nöjd med hur vi hanterar dina synpunkter kan du <a href="https://www.digg.se/tdosanmalan">kontakta Myndigheten för digital förvaltning</a>.</p>
<h2>Hur vi testat webbplatsen</h2>
<p>Vi har gjort en självskattning av webbplatsen. Den senaste bedömningen gjordes ${isoDay(assessed)}.</p>
<p>Redogörelsen uppdaterades senast den ${svDay(updated)}.</p>
</main></body></html>`;

const JQUERY = '/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors | jquery.org/license */\nwindow.jQuery = window.$ = function () { return {}; };\n';

const POLICY = 'version: STSv1\r\nmode: enforce\r\nmx: mx1.kommun.test\r\nmx: mx2.kommun.test\r\nmax_age: 604800\r\n';

interface Served { path: string; browser: boolean; bytes: number }

t.test('types 22, 24, 25, 26, 29, 31 and 32 through the API, a real runner and the pages', async (t) => {
  const world = await startWorld(t);
  const served: Served[] = [];
  const site = await world.site('www.kommun.test', {
    aliases: ['kommun.test'],
    handler: (req: http.IncomingMessage, res: http.ServerResponse) => {
      const path = new URL(req.url ?? '/', 'https://www.kommun.test').pathname;
      const [type, body, status] = path === '/' ? ['text/html; charset=utf-8', START, 200]
        : path === '/om-webbplatsen/tillganglighetsredogorelse/' ? ['text/html; charset=utf-8', STATEMENT, 200]
          : path === '/js/jquery-3.7.1.min.js' ? ['text/javascript; charset=utf-8', JQUERY, 200]
            : ['text/html; charset=utf-8', '<!DOCTYPE html><html lang="sv"><title>Sidan finns inte</title><h1>Sidan finns inte</h1></html>', 404];
      const bytes = Buffer.byteLength(body);
      // The probes (robots.txt, the crawl of type 26) say who they are; Chromium does not.
      served.push({ path, browser: !/webperf/.test(req.headers['user-agent'] ?? ''), bytes });
      res.writeHead(status as number, { 'content-type': type as string, 'content-length': bytes });
      res.end(body);
    },
  });
  await world.site('mta-sts.kommun.test', {
    handler: (req, res) => {
      if (req.url === '/.well-known/mta-sts.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(POLICY);
      else res.writeHead(404).end();
    },
  });
  world.record('kommun.test', {
    MX: [{ exchange: 'mx1.kommun.test', priority: 10 }, { exchange: 'mx2.kommun.test', priority: 20 }],
    TXT: [['v=spf1 ip4:192.0.2.0/24 -all']],
    dnssec: 'validated',
  });
  world.record('mx1.kommun.test', { A: ['192.0.2.1'], AAAA: ['2001:db8::1'] });
  world.record('mx2.kommun.test', { A: ['192.0.2.2'], AAAA: ['2001:db8::2'] });
  world.record('_dmarc.kommun.test', { TXT: [['v=DMARC1; p=reject; adkim=s; aspf=s; rua=mailto:dmarc@kommun.test']] });
  world.record('_mta-sts.kommun.test', { TXT: [['v=STSv1; id=20261101T000000;']] });
  world.record('_smtp._tls.kommun.test', { TXT: [['v=TLSRPTv1; rua=mailto:tlsrpt@kommun.test']] });
  // kommun.test served authoritatively from the world's own root (for DNS, 32): its servers'
  // names and addresses as the resolver gives them, Zonemaster pointed at that root as an operator
  // points it at another (WEBPERF_DNS_ROOT_HINTS, read at each run).
  const authoritative = await startAuthoritativeDns({ zones: [{ name: 'kommun.test', address: site.address }] });
  t.teardown(() => authoritative.close());
  const nameServers = authoritative.zoneNs('kommun.test');
  world.record('kommun.test', { NS: nameServers.map((n) => n.name) });
  for (const n of nameServers) world.record(n.name, { A: [n.address] });
  const hintsBefore = process.env.WEBPERF_DNS_ROOT_HINTS;
  process.env.WEBPERF_DNS_ROOT_HINTS = authoritative.hintsFile;
  t.teardown(() => {
    if (hintsBefore === undefined) delete process.env.WEBPERF_DNS_ROOT_HINTS;
    else process.env.WEBPERF_DNS_ROOT_HINTS = hintsBefore;
  });

  // A webhook receiver of the municipality's own.
  const hooks: { type_of_test: number; rating: number; url: string }[] = [];
  const receiver = await world.site('hooks.kommun.test', {
    handler: (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { data, tested_url: url } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { tested_url: string; data: { type_of_test: number; rating: number } };
        hooks.push({ type_of_test: data.type_of_test, rating: data.rating, url });
        res.writeHead(204).end();
      });
    },
  });

  const guard = world.guard();
  const api = await buildTestApi(t, { rateLimitPerMinute: 100_000 }, { guard });
  const { app, db, registry } = api;
  t.equal(site.url, 'https://www.kommun.test/');
  await db.insertInto('premium_levels').values({ name: 'standard', monthly_quota: 100 }).execute();
  const siteId = await createSite(db, { title: 'Kommunen', url: site.url, premiumLevel: 'standard' });
  // A public-sector website, so that the public dashboard shows it too.
  await db.updateTable('sites').set({ public_sector: true, org_category: 'Municipality', org_code: 'K123' }).where('id', '=', siteId).execute();
  const key = (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key;
  const headers = { 'api-key': key, 'site-id': String(siteId) };
  const hook = await app.inject({ method: 'PUT', url: '/webhook/', headers: { ...headers, 'content-type': 'application/json' }, payload: { url: `${receiver.origin}/webperf` } });
  t.equal(hook.statusCode, 200, hook.body);

  await startTestRunner(t, { db, connectionString: api.url, registry, guard });

  t.strictSame(registry.select(null).map((p) => p.meta.id), [2, 9, 18, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 100, 101], 'seventeen active test types');
  const tests = (await app.inject({ method: 'GET', url: '/v1/tests' })).json().tests as { id: number; active: boolean; available: boolean; categories: string[] }[];
  t.strictSame(
    tests.filter((x) => NEW_TYPES.includes(x.id)).map((x) => [x.id, x.active, x.available, x.categories]),
    [[22, true, true, []], [24, true, true, ['infosec', 'webstandard']], [25, true, true, ['infosec', 'a11y']], [26, true, true, ['a11y']], [29, true, true, ['infosec', 'webstandard']], [31, true, true, ['infosec']], [32, true, true, ['infosec', 'webstandard']]],
    '/v1/tests lists the seven as active and available, with the categories they rate',
  );

  const expected: Record<number, { rating: number; a11y: number | null; sec: number | null; stand: number | null }> = {
    22: { rating: 5, a11y: null, sec: null, stand: null },
    24: { rating: 5, a11y: null, sec: 5, stand: 5 },
    25: { rating: 4.98, a11y: 5, sec: 4.98, stand: null },
    26: { rating: 5, a11y: 5, sec: null, stand: null },
    29: { rating: 4.75, a11y: null, sec: 4.5, stand: 5 },
    31: { rating: 4.25, a11y: null, sec: 4.25, stand: null },
    32: { rating: 3.5, a11y: null, sec: 5, stand: 3.5 },
  };
  const ratingsOf = (rows: { type_of_test: number; rating: number; rating_a11y: number | null; rating_infosec: number | null; rating_webstandard: number | null }[]) =>
    Object.fromEntries(rows.map((r) => [r.type_of_test, { rating: r.rating, a11y: r.rating_a11y, sec: r.rating_infosec, stand: r.rating_webstandard }]));

  let runId = 0;
  await t.test('POST /retest/ with testnums [22,24,25,26,29,31,32]: one page load, seven results, public', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/retest/', headers: { ...headers, testnums: JSON.stringify(NEW_TYPES) } });
    t.equal(res.statusCode, 200, res.body);
    runId = res.json().run_id;
    t.strictSame(await runDone(db, runId), { status: 'done', error: null });
    const results = await db.selectFrom('test_results').selectAll().where('run_id', '=', runId).orderBy('type_of_test').execute();
    t.strictSame(results.map((r) => [r.type_of_test, r.error]), NEW_TYPES.map((id) => [id, null]), 'the seven ran, none failed');
    t.strictSame(ratingsOf(results), expected, 'each rated as worked out above');
    t.ok(results.every((r) => !r.private && r.url === site.url));
    const data = Object.fromEntries(results.map((r) => [r.type_of_test, r.json_check_data as Record<string, any>]));

    // 22: the bytes Chromium was sent, as the server counted them, are the page's weight.
    const browserBytes = served.filter((s) => s.browser).reduce((sum, s) => sum + s.bytes, 0);
    t.equal(data[22].total_byte_weight, browserBytes, `22: ${browserBytes} bytes, the bodies the server sent Chromium`);
    t.strictSame((data[22].sources as { url: string }[]).map((s) => new URL(s.url).pathname).sort(), [...new Set(served.filter((s) => s.browser).map((s) => s.path))].sort(), '22: every request of the page load');
    // 24: the domain without www, both MX hosts, the policy fetched over https.
    t.strictSame([data[24].domain, data[24].mx.records.map((m: { exchange: string }) => m.exchange)], ['kommun.test', ['mx1.kommun.test', 'mx2.kommun.test']]);
    // 25: jQuery 3.7.1 from the script's banner, through RetireJS's matching.
    t.match(JSON.stringify(data[25]), /"jquery"/i);
    t.match(JSON.stringify(data[25]), /3\.7\.1/);
    // 26: found one click from the start page, through the crawl's probes.
    t.strictSame([data[26].statement.url, data[26].statement.depth, data[26].statement_choice], ['https://www.kommun.test/om-webbplatsen/tillganglighetsredogorelse/', 1, 'about-the-website']);
    t.ok(served.some((s) => !s.browser && s.path === '/om-webbplatsen/tillganglighetsredogorelse/'), '26: the statement was read by a probe, not by Chromium');
    // 29: the inline script's eval, by name and line.
    t.strictSame((data[29].places as { script: string; line: number; rule: string }[]).map((p) => [p.script, p.line, p.rule]), [['inline script 1 on https://www.kommun.test/', 1, 'no-eval']]);
    // 31: each section as worked out above, from the same page load.
    t.strictSame(Object.fromEntries(Object.entries(data[31].sections as Record<string, { rating: number }>).map(([k, v]) => [k, v.rating])), { https: 5, referrer_policy: 3, cookies: 5, third_parties: 5, headers: 2.5, sri: 5 });
    t.strictSame([data[31].site, data[31].sections.https.tls_protocol, data[31].sections.third_parties.hosts], ['kommun.test', 'TLS 1.3', []]);
    const privacyReport = results.find((r) => r.type_of_test === 31)!;
    t.equal((privacyReport.reports as any).sv.sec, 'Integritet & säkerhet: Betyg: 4.25\n- Referrer-Policy: ingen referrer-policy är satt, webbläsare kan läcka besökta adresser till andra webbplatser.\n- HTTP-headers: headern Strict-Transport-Security (HSTS) saknas.\n- HTTP-headers: headern X-Content-Type-Options saknas eller är felaktig.\n- HTTP-headers: skydd saknas mot att webbplatsen bäddas in på andra webbplatser (X-Frame-Options eller frame-ancestors).');

    const stats = await app.inject({ method: 'GET', url: `/stats/${siteId}`, headers });
    t.equal(stats.statusCode, 200, stats.body);
    t.strictSame(
      (stats.json().data as { type_of_test: number; rating: number }[]).map((d) => [d.type_of_test, d.rating]).sort((a, b) => a[0] - b[0]),
      NEW_TYPES.map((id) => [id, expected[id].rating]),
      'GET /stats/{siteId} lists the seven',
    );
  });

  await t.test('the webhook delivers each of the seven results', async (t) => {
    await waitFor('seven deliveries', async () => (hooks.length >= NEW_TYPES.length ? true : null));
    t.strictSame(hooks.map((h) => [h.type_of_test, h.rating, h.url]).sort((a, b) => (a[0] as number) - (b[0] as number)), NEW_TYPES.map((id) => [id, expected[id].rating, site.url]));
  });

  await t.test('the monthly scores by category take the seven in', async (t) => {
    const res = await app.inject({ method: 'GET', url: `/stats_per_month/${siteId}`, headers });
    t.equal(res.statusCode, 200, res.body);
    const month = isoDay(new Date()).slice(0, 7);
    const scores = Object.fromEntries((res.json().data as { timeperiod: string; type_of_score: string; score: number }[]).filter((d) => d.timeperiod === month).map((d) => [d.type_of_score, d.score]));
    // The month's mean of each kind of rating: overall of the seven; a11y of 25 and 26; infosec of
    // 24, 25, 29, 31 and 32; webstandard of 24, 29 and 32; no performance rating.
    t.strictSame(scores, {
      'kat-a11y': 5,
      'kat-infosec': 4.75, // (5 + 4.98 + 4.5 + 4.25 + 5) / 5 = 4.746
      'kat-total': 4.64, // (5 + 5 + 4.98 + 5 + 4.75 + 4.25 + 3.5) / 7 = 4.64
      'kat-webstandard': 4.5, // (5 + 5 + 3.5) / 3
    });
  });

  await t.test('a runner without zonemaster-cli: a re-test of DNS (32) is not available there, not charged, and the rated result stays the latest', async (t) => {
    const before = process.env.WEBPERF_ZONEMASTER_CLI;
    process.env.WEBPERF_ZONEMASTER_CLI = '/nonexistent/zonemaster-cli';
    t.teardown(() => {
      if (before === undefined) delete process.env.WEBPERF_ZONEMASTER_CLI;
      else process.env.WEBPERF_ZONEMASTER_CLI = before;
    });
    const res = await app.inject({ method: 'POST', url: '/retest/', headers: { ...headers, testnums: '[32]' } });
    t.equal(res.statusCode, 200, res.body);
    const orderId = res.json().order_id as number;
    t.strictSame(await runDone(db, res.json().run_id), { status: 'done', error: null });
    const [row] = await db.selectFrom('test_results').selectAll().where('run_id', '=', res.json().run_id).execute();
    t.strictSame([row.type_of_test, row.rating, row.error, (row.json_check_data as { code: string }).code], [32, NOT_RATED, 'not available on this runner: zonemaster-cli is missing (/nonexistent/zonemaster-cli is not an executable program)', 'TEST_TYPE_UNAVAILABLE']);
    const ledger = await db.selectFrom('credit_ledger').select('credits').where('order_id', '=', orderId).orderBy('id').execute();
    t.strictSame(ledger.map((l) => l.credits), [1, -1], 'charged 1 credit when ordered, given back when the runner could not run it');
    const stats = await app.inject({ method: 'GET', url: `/stats/${siteId}`, headers });
    t.equal((stats.json().data as { type_of_test: number; rating: number }[]).find((d) => d.type_of_test === 32)?.rating, expected[32].rating, "/stats/ still shows the rated result as type 32's latest");
  });

  await t.test('POST /test_once/: every active type on one page load, private', async (t) => {
    const body = new FormData();
    body.append('urls', site.url);
    const form = new Request('http://x/', { method: 'POST', body });
    const res = await app.inject({ method: 'POST', url: '/test_once/', headers: { ...headers, 'content-type': form.headers.get('content-type')! }, payload: Buffer.from(await form.arrayBuffer()) });
    t.equal(res.statusCode, 200, res.body);
    const [testId] = Object.keys(res.json().results as Record<string, string>);
    t.strictSame(await runDone(db, Number(testId)), { status: 'done', error: null });
    const results = await db.selectFrom('test_results').selectAll().where('run_id', '=', Number(testId)).orderBy('type_of_test').execute();
    t.strictSame(results.map((r) => r.type_of_test), registry.select(null).map((p) => p.meta.id), 'all seventeen ran');
    t.strictSame(results.filter((r) => r.error !== null).map((r) => [r.type_of_test, r.error]), [], 'none failed');
    t.ok(results.every((r) => r.private));
    t.strictSame(ratingsOf(results.filter((r) => NEW_TYPES.includes(r.type_of_test))), expected, 'the seven rate the page as the re-test did');
    // CSS lint (27) rates a page's stylesheets and web analytics (101) the tools it uses: this page has neither.
    t.strictSame(results.filter((r) => r.rating === NOT_RATED).map((r) => r.type_of_test), [27, 101], 'every type but CSS lint and web analytics rated it');
  });

  await t.test('the portal and the dashboard show the seven', async (t) => {
    const names = Object.fromEntries(NEW_TYPES.map((id) => [id, registry.testType(id)!.names]));
    await portalUser(api, 'webb@kommun.test', 'ett långt lösenord', 'standard', [siteId]);
    const c = portalClient(app);
    t.equal((await portalSignIn(c, 'webb@kommun.test', 'ett långt lösenord')).statusCode, 303);
    const portal = await c.get(`/portal/sites/${siteId}`);
    t.equal(portal.statusCode, 200);
    for (const id of NEW_TYPES) t.ok(portal.body.includes(names[id].en), `portal: ${names[id].en}`);
    for (const lang of ['sv', 'en'] as const) {
      const page = await app.inject({ method: 'GET', url: `/site/${siteId}`, headers: { accept: 'text/html', 'accept-language': lang } });
      t.equal(page.statusCode, 200);
      for (const id of NEW_TYPES) t.ok(page.body.includes(names[id][lang].replace(/&/g, '&amp;')), `dashboard (${lang}): ${names[id][lang]}`);
    }

    // As people see them: in Chromium, in both languages, at phone and desktop widths, with axe.
    // The reports of the new types hold long addresses (the statement's, a script's).
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    for (const lang of ['sv', 'en'] as const) {
      const { page } = await browserContext(t);
      await page.setExtraHTTPHeaders({ 'accept-language': lang });
      await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
      await page.goto(`${base}/site/${siteId}`);
      t.equal(await page.$eval('html', (h) => h.lang), lang);
      for (const id of NEW_TYPES) t.ok((await page.$eval('main', (m) => (m as HTMLElement).innerText)).includes(names[id][lang]), `dashboard in Chromium (${lang}): ${names[id][lang]}`);
      await checkLayout(t, page, `dashboard /site/{id} (${lang})`);
      t.equal(await signIn(page, base, 'webb@kommun.test', 'ett långt lösenord'), 200);
      await page.goto(`${base}/portal/sites/${siteId}`);
      await checkLayout(t, page, `portal /portal/sites/{id} (${lang})`);
    }
  });

  // Issue 29 §2: a type that needs no page (e-mail, 24) is rated for a mail domain whose web site
  // is absent, through the API's re-test and one-off test, the runner, the webhook and the portal.
  await t.test('a mail domain without a web server: e-mail alone loads no page; a one-off test rates e-mail and says why for the rest; webhook and portal', async (t) => {
    // utan-webb.test has mail but no web server: its address answers nothing on 443.
    world.record('utan-webb.test', { A: ['127.3.2.1'], MX: [{ exchange: 'mx.utan-webb.test', priority: 10 }], TXT: [['v=spf1 -all']] });
    world.record('mx.utan-webb.test', { A: ['192.0.2.25'] });
    world.record('_dmarc.utan-webb.test', { TXT: [['v=DMARC1; p=reject']] });
    const mailSite = await createSite(db, { title: 'Utan webb', url: 'https://utan-webb.test/', premiumLevel: 'standard' });
    const mailHeaders = { 'api-key': (await createKey(db, { kind: 'standard', siteIds: [mailSite] })).key, 'site-id': String(mailSite) };
    const hooked = await app.inject({ method: 'PUT', url: '/webhook/', headers: { ...mailHeaders, 'content-type': 'application/json' }, payload: { url: `${receiver.origin}/utan-webb` } });
    t.equal(hooked.statusCode, 200, hooked.body);

    const retest = await app.inject({ method: 'POST', url: '/retest/', headers: { ...mailHeaders, testnums: '[24]' } });
    t.equal(retest.statusCode, 200, retest.body);
    t.strictSame(await runDone(db, retest.json().run_id), { status: 'done', error: null }, 'e-mail alone: done, no page load to fail');
    const [mail] = await db.selectFrom('test_results').selectAll().where('run_id', '=', retest.json().run_id).execute();
    t.strictSame([mail.type_of_test, mail.error, mail.private], [24, null, false]);
    t.ok(mail.rating >= 1 && mail.rating <= 5, `e-mail rated (${mail.rating})`);
    t.equal((mail.json_check_data as { domain: string }).domain, 'utan-webb.test');

    const delivered = await waitFor('the e-mail delivery', async () => hooks.find((h) => h.url === 'https://utan-webb.test/') ?? null);
    t.strictSame(delivered, { type_of_test: 24, rating: mail.rating, url: 'https://utan-webb.test/' }, 'the webhook delivers the e-mail result');

    const body = new FormData();
    body.append('urls', 'https://utan-webb.test/');
    const form = new Request('http://x/', { method: 'POST', body });
    const once = await app.inject({ method: 'POST', url: '/test_once/', headers: { ...mailHeaders, 'content-type': form.headers.get('content-type')! }, payload: Buffer.from(await form.arrayBuffer()) });
    t.equal(once.statusCode, 200, once.body);
    const testId = Number(Object.keys(once.json().results as Record<string, string>)[0]);
    await runDone(db, testId);
    const results = await db.selectFrom('test_results').selectAll().where('run_id', '=', testId).orderBy('type_of_test').execute();
    const unreachable = 'The website could not be reached: nothing answered at utan-webb.test (port 443), so the page could not be loaded.';
    t.strictSame(results.map((r) => r.type_of_test), registry.select(null).map((p) => p.meta.id), 'every active type has a result');
    t.strictSame(
      results.map((r) => [r.type_of_test, r.type_of_test === 24 ? r.rating : r.rating === NOT_RATED, r.error]),
      results.map((r) => (r.type_of_test === 24 ? [24, mail.rating, null] : r.type_of_test === 32 ? [32, true, null] : [r.type_of_test, true, unreachable])),
      'e-mail rated as by the re-test; DNS (32), which needs no page either, not rated for a domain without name servers; every other type not rated, saying why',
    );
    t.ok(results.every((r) => r.private), 'private');
    const privateStats = await app.inject({ method: 'GET', url: `/private_stats/${mailSite}/${testId}?lang=en`, headers: mailHeaders });
    t.equal(privateStats.statusCode, 200, privateStats.body);
    const shown = (privateStats.json().data as { type_of_test: number; rating: number; check_report: string }[]);
    t.equal(shown.find((d) => d.type_of_test === 24)?.rating, mail.rating, '/private_stats/ shows the e-mail rating');
    t.ok(shown.filter((d) => d.type_of_test !== 24 && d.type_of_test !== 32).every((d) => d.check_report.startsWith(unreachable)), '/private_stats/ says why for the rest');
    t.match(shown.find((d) => d.type_of_test === 32)?.check_report, /^utan-webb\.test: the domain has no name servers \(no NS records\), so it could not be tested\./, '… and why DNS (32) could not test the domain');

    await portalUser(api, 'post@utan-webb.test', 'ett långt lösenord', 'standard', [mailSite]);
    const c = portalClient(app);
    t.equal((await portalSignIn(c, 'post@utan-webb.test', 'ett långt lösenord')).statusCode, 303);
    const portal = await c.get(`/portal/sites/${mailSite}`);
    t.equal(portal.statusCode, 200);
    // The site's results as the portal lists them: one section per type, its rating in data-rating.
    const sections = [...portal.body.matchAll(/<section class="result"[^>]*data-type-of-test="(\d+)">\s*<h3[^>]*>([^<]*)<\/h3>\s*<p>[^<]*<strong data-rating="([^"]+)"/g)].map((m) => [Number(m[1]), m[2], Number(m[3])]);
    t.strictSame(sections, [[24, registry.testType(24)!.names.en, mail.rating]], 'the portal lists the public e-mail result with its rating (the one-off test is private)');
  });
});
