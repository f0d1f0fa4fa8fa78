import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { startStaticSite } from '../../runners/static-site.js';
import { fixtureRoot } from '../helpers/fixture-artifacts.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

async function webperf(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 180_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

t.test('webperf test <url> prints real Lighthouse-based ratings, with progress', async (t) => {
  const site = await startStaticSite(fixtureRoot('flawed'));
  t.teardown(() => site.close());
  const json = await webperf(['test', site.url, '--tests', '30,28', '--format', 'json', '--lang', 'en']);
  t.equal(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout);
  t.equal(body.url, site.url);
  t.same(body.results.map((r: any) => r.type_of_test), [28, 30]);
  const lh = body.results[1];
  t.ok(lh.rating >= 1 && lh.rating <= 5);
  t.equal(lh.ratings.pagespeed, Math.round(Math.max(1, 5 * lh.json_check_data.scores.performance) * 100) / 100);
  t.match(lh.check_report, /^Lighthouse: performance \d+, accessibility \d+, best practice \d+, SEO \d+ \(out of 100\)\./);
  t.equal(body.results[0].rating, 3, 'four HTML errors: 100 - 40 → 3.00');
  t.match(json.stderr, /testing .* with 2 test type\(s\): 30, 28/);
  t.match(json.stderr, /… lighthouse/);
  t.match(json.stderr, /✓ 30 .*: \d\.\d\d/);

  const text = await webperf(['test', site.url, '--tests', '28', '--lang', 'sv']);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /^== 28 HTML-validering: 3\.00\n/);
  t.match(text.stdout, /Standarder: Betyg: 3\.00\n- /);
});

t.test('webperf test refuses bad input with a clear message', async (t) => {
  const noUrl = await webperf(['test']);
  t.equal(noUrl.code, 2);
  t.match(noUrl.stderr, /a URL is required/);
  const badTests = await webperf(['test', 'http://127.0.0.1:1/', '--tests', '30,777']);
  t.equal(badTests.code, 2);
  t.match(badTests.stderr, /unknown test types 777/);
  const badLang = await webperf(['test', 'http://127.0.0.1:1/', '--lang', 'de']);
  t.equal(badLang.code, 2);
  t.match(badLang.stderr, /--lang must be one of sv, en, da, no, fi, is/);
});

t.test('without Chromium, start-up fails at once with one line saying how to install it', async (t) => {
  for (const args of [['serve'], ['test', 'http://127.0.0.1:1/']]) {
    const res = await webperf(args, { CHROMIUM_PATH: '/nonexistent/chromium', WEBPERF_DATA_DIR: '/nonexistent/data' });
    t.equal(res.code, 1);
    t.equal(res.stderr, 'Chromium was not found: install it with `apt-get install chromium` (or set CHROMIUM_PATH).\n');
  }
});
