/**
 * A certificate Chromium does not trust: without the extra-CA setting (WEBPERF_EXTRA_CA_CERTS),
 * the same https fixture site that loads with it is refused by the browser. Type 21 still judges
 * it from the probes (meta.judgesFromProbes) and reports the certificate untrusted
 * (tls-cert-untrusted); every type that needs the page says plainly that the page could not be
 * loaded because of its certificate, as Lighthouse's INSECURE_DOCUMENT_REQUEST does, and rates
 * nothing. Real Chromium, Lighthouse and plugins on the test world; through testPage and the CLI.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { findChromium, PROJECT_ROOT } from '../../core/config.js';
import { testPage } from '../../core/engine.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import { NOT_RATED, type Finding } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { loadPlugins } from '../../core/registry.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorld } from '../helpers/world/index.js';

const world = await startWorld(t);
const site = await world.site('kommun.test', { root: 'good', aliases: ['www.kommun.test'] });
const registry = await loadPlugins({ external: ['webperf-plugin-example'] });
const plugins = registry.all();

const EN = 'The page could not be loaded because of its certificate: it is not issued by an authority the browser trusts (net::ERR_CERT_AUTHORITY_INVALID). Browsers show visitors a security warning instead of the page.';
const SV = 'Sidan kunde inte laddas på grund av sitt certifikat: det är inte utfärdat av en utfärdare som webbläsaren litar på (net::ERR_CERT_AUTHORITY_INVALID). Webbläsare visar besökarna en säkerhetsvarning i stället för sidan.';
const DETAILS = { url: 'https://kommun.test/', lighthouse_error: 'INSECURE_DOCUMENT_REQUEST', net_error: 'net::ERR_CERT_AUTHORITY_INVALID' };

interface Type21Data {
  findings: { rule: string; severity: string; details: Record<string, unknown> }[];
  certificate: { trusted: boolean; verify_error: string | null; issuer: string };
  page_load_failure?: { code: string; message: string };
}

t.test('with the extra CA, the same site loads and type 21 finds its certificate trusted', async (t) => {
  const result = await testPage(site.url, [registry.get(21)!], { browser: await testBrowserPool().acquire(), guard: world.guard(), registry }, { loadFailure: 'report' });
  t.equal(result.failure, null, 'the page loaded');
  const [type21] = result.outcomes;
  const data = type21.data as unknown as Type21Data;
  t.strictSame([data.certificate.trusted, data.certificate.verify_error], [true, null]);
  t.strictSame(data.findings.filter((f) => f.rule.startsWith('tls-cert')), [], 'no certificate finding');
  t.equal(data.page_load_failure, undefined);
});

t.test('without it: type 21 reports tls-cert-untrusted from the probes, e-mail judges the domain, every other type says why and rates nothing', async (t) => {
  // The service without WEBPERF_EXTRA_CA_CERTS: a guard without the CA's trust, Chromium without its SPKI.
  const guard = new TargetGuard(['127.0.0.0/8'], { resolver: world.resolver });
  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH), null, guard.trust.chromiumArgs);
  t.teardown(() => pool.close());
  t.strictSame(guard.trust.chromiumArgs, [], 'no trust given to Chromium');
  const result = await testPage(site.url, plugins, { browser: await pool.acquire(), guard, registry }, { loadFailure: 'report' });

  t.strictSame(
    { code: result.failure?.code, message: result.failure?.message, text: result.failure?.text, details: result.failure?.details, probesSuffice: result.failure?.probesSuffice },
    { code: 'TARGET_CERTIFICATE', message: EN, text: { en: EN, sv: SV }, details: DETAILS, probesSuffice: true },
  );
  t.strictSame(result.outcomes.map((o) => o.typeOfTest), plugins.map((p) => p.meta.id), 'an outcome for every test type');
  t.strictSame(
    [result.artifacts.finalUrl, result.artifacts.mainDocument.status, result.artifacts.network, result.artifacts.lighthouse, result.artifacts.axe],
    ['https://kommun.test/', 200, [], null, null],
    'the artifacts are what a probe read of the page, nothing from the browser',
  );

  const type21 = result.outcomes.find((o) => o.typeOfTest === 21)!;
  const data = type21.data as unknown as Type21Data;
  t.equal(type21.error, null, 'type 21 ran');
  t.strictSame(
    data.findings.filter((f) => f.rule === 'tls-cert-untrusted'),
    [{ rule: 'tls-cert-untrusted', category: 'infosec', severity: 'critical', details: { verify_error: 'SELF_SIGNED_CERT_IN_CHAIN', issuer: 'webperf test world CA' } }],
    'the certificate is reported untrusted, as the probes verified it (the world sends the chain, its CA included)',
  );
  t.strictSame([data.certificate.trusted, data.certificate.verify_error], [false, 'SELF_SIGNED_CERT_IN_CHAIN']);
  const rated = issueRatings(type21.findings as Finding[], ['infosec', 'webstandard']);
  t.strictSame([type21.rating, type21.ratings], [rated.rating, rated.ratings], 'rated from its findings, the untrusted certificate among them');
  t.ok(type21.ratings.infosec! < 5, `infosec ${type21.ratings.infosec}: the critical finding counts`);
  t.strictSame(data.page_load_failure, { code: 'TARGET_CERTIFICATE', message: EN });
  t.ok(type21.reports.en.overall.endsWith(`\nJudged without the page, from the service's own requests to the site. ${EN}`), 'its report says it was judged without the page, and why');
  t.ok(type21.reports.sv.overall.endsWith(`\nBedömt utan sidan, utifrån tjänstens egna anrop till webbplatsen. ${SV}`));

  // E-mail (24) needs no page: it ran on the domain as on any other.
  const mail = result.outcomes.find((x) => x.typeOfTest === 24);
  t.strictSame([mail?.error, (mail?.data as { domain?: string } | undefined)?.domain], [null, 'kommun.test'], 'type 24 needs no page: judged the domain, not the certificate');
  // DNS (32) needs no page either: it looked for kommun.test's name servers (this test's guard asks
  // no DNS server for records), and says it could not.
  const dns = result.outcomes.find((x) => x.typeOfTest === 32);
  t.strictSame([dns?.error, dns?.rating, dns?.data.failed, dns?.data.zone], [null, NOT_RATED, 'lookup', 'kommun.test'], 'type 32 needs no page: looked for the domain\'s name servers');
  for (const o of result.outcomes.filter((x) => x.typeOfTest !== 21 && x.typeOfTest !== 24 && x.typeOfTest !== 32)) {
    t.strictSame(
      { rating: o.rating, ratings: o.ratings, error: o.error, data: o.data, sv: o.reports.sv.overall, en: o.reports.en.overall },
      { rating: NOT_RATED, ratings: {}, error: EN, data: { error: EN, code: 'TARGET_CERTIFICATE', ...DETAILS }, sv: `${SV}\nInte bedömt`, en: `${EN}\nNot rated` },
      `type ${o.typeOfTest}: the page could not be loaded because of its certificate, not rated`,
    );
  }
});

t.test('webperf test without WEBPERF_EXTRA_CA_CERTS: the certificate said first, type 21 rated, the others not', async (t) => {
  const env: Record<string, string | undefined> = { ...process.env, ...world.env() };
  delete env.WEBPERF_EXTRA_CA_CERTS;
  delete env.NODE_EXTRA_CA_CERTS;
  const args = [path.join(PROJECT_ROOT, 'bin', 'webperf.js'), 'test', site.url, '--tests', '21,30,28', '--format', 'json', '--lang', 'en'];
  const res = await promisify(execFile)(process.execPath, args, { env, timeout: 180_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
  t.equal(res.code, 1, 'exit code 1: the page could not be loaded');
  const body = JSON.parse(res.stdout) as { error: unknown; final_url: string; results: { type_of_test: number; rating: number; error: string | null; check_report: string; json_check_data: Type21Data }[] };
  t.strictSame(body.error, { code: 'TARGET_CERTIFICATE', message: EN });
  t.equal(body.final_url, 'https://kommun.test/');
  t.strictSame(body.results.map((r) => [r.type_of_test, r.error]), [[21, null], [28, EN], [30, EN]]);
  const [type21, type28, type30] = body.results;
  t.ok(type21.rating >= 1 && type21.rating <= 5, `type 21 rated ${type21.rating}`);
  t.strictSame(type21.json_check_data.findings.filter((f) => f.rule === 'tls-cert-untrusted').map((f) => f.details.verify_error), ['SELF_SIGNED_CERT_IN_CHAIN']);
  for (const r of [type28, type30]) t.strictSame([r.rating, r.check_report], [NOT_RATED, `${EN}\nNot rated`], `type ${r.type_of_test} not rated`);
  t.match(res.stderr, /the page could not be loaded \(TARGET_CERTIFICATE\)/);
});
