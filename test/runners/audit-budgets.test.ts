/**
 * `webperf audit` in a CI pipeline: every page must meet the budgets (`--assert`, `--budget`), each
 * broken one is a line naming the page, the exit code is 3, and `--junit FILE` writes a test suite
 * per page. The spawned CLI is pointed at the test world (world.env()) and crawls a municipality
 * whose start page is within its budgets, whose /bygga-bo/ is outside them (an image without alt
 * text) and whose /om-kommunen/ could not be tested (it answers 500). A crawl within its budgets
 * and the refusals run the same command in this process (webperfCommand, test/helpers/operator.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { staticHandler } from '../../runners/static-site.js';
import { webperfCommand } from '../helpers/operator.js';
import { startWorld } from '../helpers/world/index.js';
import { lentChromiumEnv } from '../helpers/shared-chromium.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

async function webperf(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { timeout: 500_000, env: { ...process.env, ...lentChromiumEnv(), ...env } });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

t.test('webperf audit: every page must meet the budgets; lines, exit code 3 and a JUnit suite per page', async (t) => {
  const world = await startWorld(t);
  const files = await staticHandler(path.join(PROJECT_ROOT, 'test', 'fixtures', 'sites', 'kommun-www'), () => 'https://www.kommun.test');
  await world.site('www.kommun.test', {
    handler: (req, res) => {
      if (req.url === '/om-kommunen/') res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html lang="sv"><title>Fel</title><p>Serverfel</p></html>');
      else files(req, res);
    },
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-audit-budgets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const budget = path.join(dir, 'budget.json');
  await writeFile(budget, JSON.stringify({ budgets: [{ category: 'security', min: 4 }] }));
  const report = path.join(dir, 'junit.xml');
  const out = path.join(dir, 'out');
  const r = await webperf(['audit', 'https://www.kommun.test/', '--pages', '3', '--out', out, '--junit', report, '--assert', '18>=4.5', '--budget', budget], world.env());
  t.equal(r.code, 3, r.stderr);
  t.match(r.stderr, /\[#{8}-{16}\] 1\/3 ✓ https:\/\/www\.kommun\.test\/\n/);
  t.match(r.stderr, /\[#{24}\] 3\/3 ✗ https:\/\/www\.kommun\.test\/om-kommunen\/\n/);
  const reason = 'the page could not be tested: The website could not serve the page: https://www.kommun.test/om-kommunen/ answered 500 Internal Server Error, a server error';
  t.strictSame(r.stderr.split('\n').filter((l) => l.startsWith('budget')), [
    'budget broken: 18>=4.5 on https://www.kommun.test/bygga-bo/: 3.75, limit 4.5',
    `budget broken: 18>=4.5 on https://www.kommun.test/om-kommunen/: not rated: ${reason}, limit 4.5`,
    `budget broken: infosec>=4 on https://www.kommun.test/om-kommunen/: not rated by test type 23: ${reason}, limit 4`,
    'budgets: 3 of 6 broken',
  ], 'the start page meets them; /bygga-bo/ does not; /om-kommunen/ could not be tested');
  t.equal(r.stdout.split('\n').at(-2), report, 'the report is listed with the files written');
  t.ok(r.stdout.startsWith(`${path.join(out, 'accessibility_summary.json')}\n`), 'the summaries are written as before');

  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(await readFile(report, 'utf8'));
  const root = doc.testsuites;
  t.strictSame([root.name, root.tests, root.failures, root.errors, root.skipped], ['webperf audit', '18', '7', '0', '2']);
  const suites = root.testsuite as any[];
  t.strictSame(suites.map((s) => [s.name, s.tests, s.failures, s.skipped]), [
    ['https://www.kommun.test/', '6', '0', '1'],
    ['https://www.kommun.test/bygga-bo/', '6', '1', '1'],
    ['https://www.kommun.test/om-kommunen/', '6', '6', '0'],
  ], 'a suite per page');
  const lighthouse = 'test type 30 Accessibility, Best Practice, Performance & SEO (Lighthouse)';
  const names = ['test type 18 Accessibility (Pa11y)', 'test type 23 Tracking and Privacy', lighthouse, 'test type 101 Web analytics', 'budget 18>=4.5', 'budget infosec>=4'];
  for (const s of suites) t.strictSame(s.testcase.map((c: any) => [c.classname, c.name]), names.map((n) => [s.name, n]), `${s.name}: a case per test type of the audit and per budget`);
  const [start, bygga, down] = suites.map((s) => s.testcase as any[]);
  t.strictSame(start.map((c) => c.failure ?? null), [null, null, null, null, null, null], 'the start page: nothing failed');
  t.equal(start[4]['system-out'], '5.00, limit 4.5');
  t.equal(start[5]['system-out'], '5.00 (test type 23), limit 4');
  t.equal(bygga[0]['system-out'], 'rating 3.75');
  t.strictSame(bygga[4].failure, { message: '3.75, limit 4.5', type: 'budget' });
  t.strictSame(down.map((c) => c.failure), [
    ...[0, 1, 2, 3].map(() => ({ message: `not rated: ${reason}.`, type: 'error' })),
    { message: `not rated: ${reason}, limit 4.5`, type: 'budget' },
    { message: `not rated by test type 23: ${reason}, limit 4`, type: 'budget' },
  ], '/om-kommunen/: every test type failed with the reason, and both budgets');
});

t.test('webperf audit within its budgets exits with 0', async (t) => {
  const world = await startWorld(t);
  await world.site('www.kommun.test', { root: 'kommun-www' });
  const out = await mkdtemp(path.join(os.tmpdir(), 'webperf-audit-budgets-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  const r = await webperfCommand(world.env(), 'audit', ['https://www.kommun.test/', '--pages', '1', '--out', out, '--assert', '18>=4.5,23:security>=4']);
  t.equal(r.code, 0, r.stderr);
  t.strictSame(r.stderr.split('\n').filter((l) => l.startsWith('budget')), ['budgets: all 2 met']);
});

t.test('webperf audit refuses budgets it cannot judge, with exit code 2', async (t) => {
  const refused = async (args: string[], stderr: string) => {
    const r = await webperfCommand({}, 'audit', ['https://www.kommun.test/', '--pages', '2', ...args]);
    t.strictSame([r.code, r.stderr, r.stdout], [2, stderr, ''], args.join(' '));
  };
  await refused(['--format', 'csv', '--assert', '18>=4'], 'webperf audit: budgets and --junit need the test types of --format audit_v2 (csv runs axe alone)\n');
  await refused(['--format', 'csv', '--junit', 'report.xml'], 'webperf audit: budgets and --junit need the test types of --format audit_v2 (csv runs axe alone)\n');
  await refused(['--assert', '28>=4,webstandard>=4,30:infosec>=4'], [
    'webperf audit: budget "28>=4": test type 28 is not run (the test types run: 18, 23, 30, 101)',
    'webperf audit: budget "webstandard>=4": none of the test types run (18, 23, 30, 101) rates webstandard',
    'webperf audit: budget "30:infosec>=4": test type 30 does not rate infosec (it rates a11y, pagespeed)',
  ].join('\n') + '\n');
  await refused(['--assert', '18 >= six'], 'webperf audit: --assert: budget "18 >= six": the limit must be a rating from 1 to 5, e.g. 4 or 4.5\n');
});
