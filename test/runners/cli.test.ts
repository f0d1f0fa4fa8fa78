/**
 * `webperf test <url>` as an operator runs it, against sites served as real ones are: https on
 * port 443 under a name (https://kommun.test/, https://flawed.test/), the name answered by the
 * test world's DNS server and the certificate issued by the suite's CA. The spawned CLI is
 * configured as an operator would configure it (world.env(): WEBPERF_DNS_SERVERS,
 * WEBPERF_EXTRA_CA_CERTS), so every page load goes through the guard proxy's tunnel on port 443.
 * Every test type on one page, and the start without Chromium, through the spawned CLI; the output
 * formats and the refusals of bad input run the same command in this process (webperfTest).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { discoverPlugins } from '../../core/registry.js';
import httpNetwork from '../../plugins/http-network/index.js';
import { findProgram } from '../../plugins/dns/zonemaster.js';
import { fixtureSite } from '../helpers/fixture-artifacts.js';
import { webperfTest } from '../helpers/operator.js';
import { SCENARIOS, startAuthoritativeDns } from '../helpers/world/authoritative-dns.js';
import { testWorld } from '../helpers/world/index.js';
import { lentChromiumEnv } from '../helpers/shared-chromium.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

/** `webperf test ...` in this process (test/helpers/operator.ts), pointed at this process's world. */
async function webperfInProcess(args: string[]) {
  return webperfTest((await testWorld()).env(), args.slice(1));
}

async function webperf(args: string[], env: Record<string, string> = {}) {
  // Pointed at this process's world unless the test says otherwise.
  const world = (await testWorld()).env();
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...world, ...lentChromiumEnv(), ...env }, timeout: 180_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

const kommun = (await testWorld()).site('kommun.test', { root: 'good', aliases: ['www.kommun.test'] });

t.test('webperf test <url> prints real Lighthouse-based ratings, with progress', async (t) => {
  const site = await fixtureSite('flawed');
  t.equal(site.url, 'https://flawed.test/');
  const json = await webperfInProcess(['test', site.url, '--tests', '30,28', '--format', 'json', '--lang', 'en']);
  t.equal(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout);
  t.equal(body.url, site.url);
  t.equal(body.final_url, site.url);
  t.equal(body.error, null);
  t.same(body.results.map((r: any) => r.type_of_test), [28, 30]);
  const lh = body.results[1];
  t.equal(lh.error, null);
  t.equal(lh.ratings.pagespeed, Math.round(Math.max(1, 5 * lh.json_check_data.scores.performance) * 100) / 100);
  t.equal(lh.ratings.a11y, Math.round(Math.max(1, 5 * lh.json_check_data.scores.accessibility) * 100) / 100);
  t.match(lh.check_report, /^Lighthouse: performance \d+, accessibility \d+, best practice \d+, SEO \d+ \(out of 100\)\./);
  t.equal(body.results[0].rating, 3, 'four HTML errors: 100 - 40 → 3.00');
  t.match(json.stderr, /testing https:\/\/flawed\.test\/ with 2 test type\(s\): 30, 28/);
  t.match(json.stderr, /… lighthouse/);
  t.match(json.stderr, /✓ 30 .*: \d\.\d\d/);

  const text = await webperfInProcess(['test', site.url, '--tests', '28', '--lang', 'sv']);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /^== 28 HTML-validering: 3\.00\n/);
  t.match(text.stdout, /Standarder: Betyg: 3\.00\n- /);
});

t.test('every test type runs on an https://<name>.test/ site, through the guard with the CA configured', async (t) => {
  const site = await kommun;
  t.equal(site.url, 'https://kommun.test/');
  const ids = (await discoverPlugins()).map((p) => p.meta.id);
  const json = await webperf(['test', site.url, '--tests', ids.join(','), '--format', 'json', '--lang', 'en']);
  t.equal(json.code, 0, json.stderr);
  t.match(json.stderr, /page loaded in \d+ ms/, 'the page loaded');
  t.notMatch(json.stderr, /could not be loaded|interstitial|ERR_/);
  const body = JSON.parse(json.stdout);
  t.strictSame([body.final_url, body.error], ['https://kommun.test/', null], 'the page loaded, on https');
  // The good fixture's https is as the Observatory wants it: valid certificate, HSTS, CSP and the rest.
  t.equal(body.results.find((r: any) => r.type_of_test === 21)?.rating, 5, 'type 21 rates it 5.00');
  t.match(json.stderr, new RegExp(`✓ 21 ${httpNetwork.meta.names.en}: 5\\.00\n`));
  t.strictSame(body.results.map((r: any) => r.type_of_test), ids, 'one result per test type');
  t.strictSame(body.results.filter((r: any) => r.error !== null).map((r: any) => [r.type_of_test, r.error]), [], 'none failed');
  // Web analytics (101) rates the tools a page uses: the good fixture has none; DNS (32) a zone
  // with name servers: kommun.test has none in this world; every other type rated the https page,
  // JS lint (29) 5.00 as upstream does for a page without scripts.
  t.strictSame(body.results.filter((r: any) => r.rating === NOT_RATED).map((r: any) => [r.type_of_test, r.json_check_data.failed ?? null]), [[32, 'no-ns'], [101, null]], 'every type but DNS and web analytics rated it');
  t.equal(body.results.find((r: any) => r.type_of_test === 29)?.rating, 5, 'JS lint: no scripts, nothing to fix');
  // Privacy (31): full HSTS, nosniff, frame-ancestors, no-referrer, no cookie, no third party.
  t.match(body.results.find((r: any) => r.type_of_test === 31), { rating: 5, error: null }, 'privacy: every section 5');
});

t.test('webperf test refuses bad input with a clear message', async (t) => {
  const noUrl = await webperfInProcess(['test']);
  t.equal(noUrl.code, 2);
  t.match(noUrl.stderr, /a URL is required/);
  const badTests = await webperfInProcess(['test', 'https://kommun.test/', '--tests', '30,777']);
  t.equal(badTests.code, 2);
  t.match(badTests.stderr, /unknown test types 777/);
  const badLang = await webperfInProcess(['test', 'https://kommun.test/', '--lang', 'de']);
  t.equal(badLang.code, 2);
  t.match(badLang.stderr, /--lang must be one of sv, en, da, no, fi, is/);
});

t.test('without Chromium, start-up fails at once with one line saying how to install it', async (t) => {
  for (const args of [['serve'], ['test', 'https://kommun.test/']]) {
    const res = await webperf(args, { CHROMIUM_PATH: '/nonexistent/chromium', WEBPERF_CHROMIUM_WS: '', WEBPERF_DATA_DIR: '/nonexistent/data' });
    t.equal(res.code, 1);
    t.equal(res.stderr, 'Chromium was not found: install it with `apt-get install chromium` (or set CHROMIUM_PATH).\n');
  }
});

const lent = lentChromiumEnv().WEBPERF_CHROMIUM_WS;
t.test('WEBPERF_CHROMIUM_WS: the command loads its page in a Chromium that runs already, and launches none', { skip: !lent && 'needs the Chromium npm test lends each file' }, async (t) => {
  // CHROMIUM_PATH names no Chromium: had the command launched one, it would have failed.
  const res = await webperf(['test', 'https://flawed.test/', '--tests', '21', '--format', 'json', '--lang', 'en'], { CHROMIUM_PATH: '/nonexistent/chromium', WEBPERF_CHROMIUM_WS: lent });
  t.equal(res.code, 0, res.stderr);
  const body = JSON.parse(res.stdout);
  t.equal(body.error, null);
  t.strictSame(body.results.map((r: any) => r.type_of_test), [21]);
  t.ok(body.results[0].rating >= 1, 'rated from the page loaded in the running Chromium');
  const refused = await webperf(['test', 'https://flawed.test/'], { WEBPERF_CHROMIUM_WS: 'ws://10.1.2.3:9222/devtools/browser/x' });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /WEBPERF_CHROMIUM_WS must be the ws:\/\/ DevTools address of a Chromium on this machine/);
});

t.test('test types that need no page: a mail domain without a web server is tested, with and without a page load', async (t) => {
  const world = await testWorld();
  // utan-webb.test has mail but no web server: its address answers nothing on 443.
  world.record('utan-webb.test', { A: ['127.3.2.1'], MX: [{ exchange: 'mx.utan-webb.test', priority: 10 }], TXT: [['v=spf1 -all']] });
  world.record('mx.utan-webb.test', { A: ['192.0.2.25'] });
  world.record('_dmarc.utan-webb.test', { TXT: [['v=DMARC1; p=reject']] });
  // Only e-mail (24): no Chromium is needed at all, and none is started.
  const only = await webperfTest(world.env({ CHROMIUM_PATH: '/nonexistent/chromium' }), ['https://utan-webb.test/', '--tests', '24', '--lang', 'en', '--format', 'json']);
  t.equal(only.code, 0, only.stderr);
  t.match(only.stderr, /no page load \(the test types read no page\), rated in \d+ ms/);
  t.notMatch(only.stderr, /… lighthouse/, 'no page load began');
  const body = JSON.parse(only.stdout);
  t.equal(body.error, null);
  t.strictSame(body.results.map((r: any) => [r.type_of_test, r.error]), [[24, null]]);
  t.equal(body.results[0].json_check_data.domain, 'utan-webb.test');
  t.ok(body.results[0].rating >= 1, `rated (${body.results[0].rating})`);
  // With a type that needs the page: the page cannot be loaded, that type says why, e-mail is rated.
  const both = await webperfTest(world.env(), ['https://utan-webb.test/', '--tests', '21,24', '--lang', 'en', '--format', 'json']);
  t.equal(both.code, 1, 'the page could not be tested');
  const mixed = JSON.parse(both.stdout);
  t.strictSame(mixed.error, { code: 'TARGET_UNREACHABLE', message: 'The website could not be reached: nothing answered at utan-webb.test (port 443), so the page could not be loaded.' });
  const [http, mail] = mixed.results;
  t.equal(http.type_of_test, 21);
  t.equal(http.rating, NOT_RATED);
  t.equal(http.error, mixed.error.message);
  t.strictSame([mail.type_of_test, mail.error, mail.rating], [24, null, body.results[0].rating], 'e-mail rated as without the page');
});

t.test('DNS (32) from the command line: Zonemaster over a zone of the world without a web server, and a machine without Zonemaster', { skip: findProgram('zonemaster-cli') ? false : 'zonemaster-cli is not installed' }, async (t) => {
  const world = await testWorld();
  const zones = await startAuthoritativeDns({ zones: [SCENARIOS.serial] });
  t.teardown(() => zones.close());
  for (const [name, records] of zones.resolverRecords()) world.record(name, records);
  const env = { CHROMIUM_PATH: '/nonexistent/chromium', WEBPERF_DNS_ROOT_HINTS: zones.hintsFile };
  const res = await webperf(['test', 'https://www.serial.test/', '--tests', '32', '--format', 'json', '--lang', 'en'], env);
  t.equal(res.code, 0, res.stderr);
  const [dns] = JSON.parse(res.stdout).results;
  // As worked out in test/plugins/dns.test.ts: one error (ADDRESS01), one warning (CONSISTENCY01).
  t.strictSame([dns.type_of_test, dns.error, dns.rating, dns.ratings], [32, null, 2.75, { infosec: 4.25, webstandard: 3.5 }]);
  t.equal(dns.json_check_data.zone, 'serial.test');
  const text = await webperf(['test', 'https://www.serial.test/', '--tests', '32', '--lang', 'sv'], env);
  t.match(text.stdout, /Consistency \[varning\] Samma SOA Serial överallt: /);
  const without = await webperf(['test', 'https://www.serial.test/', '--tests', '32', '--format', 'json', '--lang', 'en'], { ...env, WEBPERF_ZONEMASTER_CLI: '/nonexistent/zonemaster-cli' });
  const [missing] = JSON.parse(without.stdout).results;
  t.strictSame([without.code, missing.rating, missing.error, missing.json_check_data.code], [0, NOT_RATED, 'not available on this runner: zonemaster-cli is missing (/nonexistent/zonemaster-cli is not an executable program)', 'TEST_TYPE_UNAVAILABLE']);
});

t.test('webperf test --compare EARLIER.json: what changed since an earlier run, in text and json; a budget still exits 3', async (t) => {
  const world = await testWorld();
  // A page that loses its HSTS header and gains an image without alternative text between runs.
  let changed = false;
  const page = () => `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><title>Jämför</title></head><body><main><h1>Jämför</h1><p>Text.</p>${changed ? '<img src="/bild.png">' : ''}</main></body></html>`;
  const site = await world.site('jamfor.test', {
    handler: (req, res) => {
      if (req.url === '/bild.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex'));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(changed ? {} : { 'strict-transport-security': 'max-age=31536000' }) }).end(page());
    },
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-compare-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const earlier = path.join(dir, 'earlier.json');
  const first = await webperfInProcess(['test', site.url, '--tests', '18,21', '--format', 'json', '--output', earlier, '--lang', 'en']);
  t.equal(first.code, 0, first.stderr);
  const kept = JSON.parse(await readFile(earlier, 'utf8'));
  t.ok(kept.results.every((r: any) => Array.isArray(r.findings)), 'the json output keeps every finding');

  const same = await webperfInProcess(['test', site.url, '--tests', '18,21', '--compare', earlier, '--lang', 'en']);
  t.equal(same.code, 0, same.stderr);
  t.match(same.stdout, new RegExp(`## Changes since ${earlier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(https://jamfor\\.test/\\)\\n== 18 [^\\n]+\\n  \\(nothing changed\\)\\n== 21 [^\\n]+\\n  \\(nothing changed\\)\\n`), 'the same page: nothing changed');

  changed = true;
  const text = await webperfInProcess(['test', site.url, '--tests', '18,21', '--compare', earlier, '--lang', 'en']);
  t.equal(text.code, 0, text.stderr);
  const section = text.stdout.slice(text.stdout.indexOf('## Changes since'));
  t.match(section, /== 18 [^\n]+\n  new: [^\n]*(alt|alternative)[^\n]*\n== 21 /i, 'accessibility: the image without alternative text, and nothing else');
  t.match(section, /== 21 [^\n]+\n  new: [^\n]*HSTS[^\n]*\n  fixed: [^\n]*\n\n$/i, 'HTTP: HSTS gone (and its weaker complaint with it)');
  const json = await webperfInProcess(['test', site.url, '--tests', '18,21', '--compare', earlier, '--format', 'json', '--lang', 'en']);
  const changes = JSON.parse(json.stdout).changes as { type_of_test: number; changes: { change: string; key: string }[] }[];
  // The header's absence replaces its weaker complaint (no includeSubDomains): both are in the diff.
  t.strictSame(changes.map((c) => [c.type_of_test, c.changes.map((x) => `${x.change} ${x.key}`)]), [[18, ['added a11y image-alt']], [21, ['added infosec hsts-missing', 'resolved infosec hsts-no-include-subdomains']]]);

  const budget = await webperfInProcess(['test', site.url, '--tests', '18', '--compare', earlier, '--assert', '18>=5', '--lang', 'en']);
  t.equal(budget.code, 3, 'a broken budget still exits 3');
  t.match(budget.stdout, /## Changes since/);

  const missing = await webperfInProcess(['test', site.url, '--compare', path.join(dir, 'none.json')]);
  t.strictSame([missing.code, missing.stderr.trim()], [2, `webperf test: --compare ${path.join(dir, 'none.json')}: no such file`]);
  await writeFile(path.join(dir, 'other.json'), '{"budgets": []}');
  const foreign = await webperfInProcess(['test', site.url, '--compare', path.join(dir, 'other.json')]);
  t.strictSame([foreign.code, foreign.stderr.trim()], [2, `webperf test: --compare ${path.join(dir, 'other.json')}: not the output of webperf test --format json`]);
});
