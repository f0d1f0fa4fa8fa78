/**
 * `webperf test` in a CI pipeline: budgets (`--assert`, `--budget FILE.json`), the exit code and
 * the JUnit report, against sites served as real ones are (world.env(): the test world's DNS
 * server and CA). The same budgets on a page within them (https://good.test/) and on one outside
 * them (https://flawed.test/), on a page that could not be tested (answers 500), and refused before
 * any page is loaded when they are wrong. The page outside its budgets is tested as a pipeline
 * runs it, by the spawned CLI (its exit code 3 is the process's); the rest runs the same command
 * in this process (webperfTest, test/helpers/operator.ts), each loading its page in a Chromium of
 * its own as the spawned one does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { fixtureSite } from '../helpers/fixture-artifacts.js';
import { webperfTest } from '../helpers/operator.js';
import { testWorld } from '../helpers/world/index.js';
import { lentChromiumEnv } from '../helpers/shared-chromium.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

/** `webperf test ...` in this process. */
async function webperf(args: string[]) {
  return webperfTest((await testWorld()).env(), args.slice(args[0] === 'test' ? 1 : 0));
}

/** `node bin/webperf.js ...`, as a pipeline runs it. */
async function spawned(args: string[]) {
  const world = (await testWorld()).env();
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...world, ...lentChromiumEnv() }, timeout: 300_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

/** The lines about budgets on stderr (the rest is progress). */
const budgetLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('budget'));

/** A JUnit document as a CI system reads it: suites and cases always lists. */
function junit(xml: string) {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml);
  const suites = doc.testsuites.testsuite as any[];
  return {
    root: doc.testsuites,
    suites,
    cases: suites.flatMap((s) => s.testcase as any[]).map((c) => ({ name: c.name as string, failure: c.failure as { message: string; type: string } | undefined, skipped: 'skipped' in c })),
  };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-budgets-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const budgetFile = path.join(dir, 'budget.json');
await writeFile(budgetFile, JSON.stringify({ budgets: [{ type: 18, min: 4 }, 'webstandard>=4.5'] }));

/** The same budgets for both pages: from --assert (twice, one with two) and from the file. */
const BUDGETS = ['--assert', 'a11y>=4.5,21>=4', '--assert', '28:standards>=4.5', '--budget', budgetFile];
const TESTS = ['--tests', '18,21,28,101', '--lang', 'en'];
const TYPE_CASES = ['test type 18 Accessibility (Pa11y)', 'test type 21 HTTP & Network', 'test type 28 HTML Lint', 'test type 101 Web analytics'];

t.test('a page within its budgets: exit code 0, a JUnit report without failures', async (t) => {
  const site = await fixtureSite('good');
  const out = path.join(dir, 'good.xml');
  const r = await webperf(['test', site.url, ...TESTS, ...BUDGETS, '--format', 'junit', '--output', out]);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, '', 'the report went to --output');
  t.strictSame(budgetLines(r.stderr), ['budgets: all 5 met']);
  const { root, suites, cases } = junit(await readFile(out, 'utf8'));
  t.strictSame([root.name, root.tests, root.failures, root.errors, root.skipped], ['webperf test', '9', '0', '0', '1']);
  t.strictSame(suites.map((s) => s.name), ['https://good.test/']);
  t.strictSame(cases, [
    ...TYPE_CASES.map((name) => ({ name, failure: undefined, skipped: name === 'test type 101 Web analytics' })),
    ...['a11y>=4.5', '21>=4', '28:webstandard>=4.5', '18>=4', 'webstandard>=4.5'].map((b) => ({ name: `budget ${b}`, failure: undefined, skipped: false })),
  ], 'one case per test type (web analytics had nothing to rate: skipped) and per budget, each passed');
  const webstandard = suites[0].testcase.find((c: any) => c.name === 'budget webstandard>=4.5');
  t.equal(webstandard['system-out'], '5.00 (mean of 21: 5.00, 28: 5.00), limit 4.5');
});

t.test('a page outside its budgets: exit code 3, one line per broken budget, failures in the JUnit report on stdout', async (t) => {
  const site = await fixtureSite('flawed');
  const r = await spawned(['test', site.url, ...TESTS, ...BUDGETS, '--assert', '101>=1', '--format', 'junit']);
  t.equal(r.code, 3, r.stderr);
  t.strictSame(budgetLines(r.stderr), [
    'budget broken: a11y>=4.5 on https://flawed.test/: 1.50 (test type 18), limit 4.5',
    'budget broken: 28:webstandard>=4.5 on https://flawed.test/: 3.00, limit 4.5',
    'budget broken: 101>=1 on https://flawed.test/: not rated, limit 1',
    'budget broken: 18>=4 on https://flawed.test/: 1.50, limit 4',
    'budget broken: webstandard>=4.5 on https://flawed.test/: 4.00 (mean of 21: 5.00, 28: 3.00), limit 4.5',
    'budgets: 5 of 6 broken',
  ]);
  t.match(r.stderr, /page loaded in \d+ ms/, 'the page was tested');
  const { root, cases } = junit(r.stdout);
  t.strictSame([root.tests, root.failures, root.skipped], ['10', '5', '1']);
  t.strictSame(cases, [
    ...TYPE_CASES.map((name) => ({ name, failure: undefined, skipped: name === 'test type 101 Web analytics' })),
    { name: 'budget a11y>=4.5', failure: { message: '1.50 (test type 18), limit 4.5', type: 'budget' }, skipped: false },
    { name: 'budget 21>=4', failure: undefined, skipped: false },
    { name: 'budget 28:webstandard>=4.5', failure: { message: '3.00, limit 4.5', type: 'budget' }, skipped: false },
    { name: 'budget 101>=1', failure: { message: 'not rated, limit 1', type: 'budget' }, skipped: false },
    { name: 'budget 18>=4', failure: { message: '1.50, limit 4', type: 'budget' }, skipped: false },
    { name: 'budget webstandard>=4.5', failure: { message: '4.00 (mean of 21: 5.00, 28: 3.00), limit 4.5', type: 'budget' }, skipped: false },
  ]);
});

t.test('a page that could not be tested: exit code 1, its budgets broken, its test types failed', async (t) => {
  const site = await (await testWorld()).site('nere.test', { handler: (_req, res) => void res.writeHead(500).end() });
  const reason = 'The website could not serve the page: https://nere.test/ answered 500 Internal Server Error, a server error';
  const json = await webperf(['test', site.url, '--tests', '18,28', '--lang', 'en', '--assert', '28>=1,a11y>=1', '--format', 'json']);
  t.equal(json.code, 1, 'the page could not be tested: 1, not 3');
  t.strictSame(budgetLines(json.stderr), [
    `budget broken: 28>=1 on https://nere.test/: not rated: ${reason}, limit 1`,
    `budget broken: a11y>=1 on https://nere.test/: not rated by test type 18: ${reason}, limit 1`,
    'budgets: 2 of 2 broken',
  ]);
  const body = JSON.parse(json.stdout);
  t.equal(body.error.code, 'TARGET_SERVER_ERROR');
  t.strictSame(body.budgets, [
    { budget: '28>=1', met: false, actual: null, limit: 1, message: `not rated: ${reason}, limit 1` },
    { budget: 'a11y>=1', met: false, actual: null, limit: 1, message: `not rated by test type 18: ${reason}, limit 1` },
  ]);

  const out = path.join(dir, 'down.xml');
  const xml = await webperf(['test', site.url, '--tests', '18,28', '--lang', 'en', '--assert', '28>=1', '--format', 'junit', '--output', out]);
  t.equal(xml.code, 1);
  const { root, cases } = junit(await readFile(out, 'utf8'));
  t.strictSame([root.tests, root.failures, root.skipped], ['3', '3', '0']);
  t.strictSame(cases, [
    { name: 'test type 18 Accessibility (Pa11y)', failure: { message: `not rated: ${reason}.`, type: 'error' }, skipped: false },
    { name: 'test type 28 HTML Lint', failure: { message: `not rated: ${reason}.`, type: 'error' }, skipped: false },
    { name: 'budget 28>=1', failure: { message: `not rated: ${reason}, limit 1`, type: 'budget' }, skipped: false },
  ], 'each test type failed with the reason, and the budget');
});

// Each kind of refusal once through the command (the grammar's and the budget file's every error
// are in test/core/budgets.test.ts).
t.test('wrong budgets are refused with exit code 2 before any page is loaded', async (t) => {
  const refused = async (args: string[], stderr: string) => {
    const r = await webperf(['test', 'https://good.test/', ...args]);
    t.equal(r.code, 2, args.join(' '));
    t.equal(r.stderr, stderr, args.join(' '));
    t.equal(r.stdout, '');
  };
  await refused(['--assert', 'a11y>4'], 'webperf test: --assert: budget "a11y>4": budgets are minimum ratings: the only comparison is >=\n');
  const missing = path.join(dir, 'missing.json');
  await refused(['--budget', missing], `webperf test: budget file ${missing} cannot be read: ENOENT: no such file or directory, open '${missing}'\n`);
  const bad = path.join(dir, 'bad.json');
  await writeFile(bad, JSON.stringify({ budgets: ['a11y>=4.5', { type: 30, minimum: 4 }] }));
  await refused(['--budget', bad], `webperf test: budget file ${bad}: budgets[1] {"type":30,"minimum":4}: unknown field "minimum" (a budget has type, category and min)\n`);
  await refused(['--tests', '18,21,28', '--assert', '30:pagespeed>=4,21:a11y>=4,pagespeed>=3,21>=4'], [
    'webperf test: budget "30:pagespeed>=4": test type 30 is not run (the test types run: 18, 21, 28)',
    'webperf test: budget "21:a11y>=4": test type 21 does not rate a11y (it rates infosec, webstandard)',
    'webperf test: budget "pagespeed>=3": none of the test types run (18, 21, 28) rates pagespeed',
  ].join('\n') + '\n');
  const format = await webperf(['test', 'https://good.test/', '--format', 'xml']);
  t.strictSame([format.code, format.stderr], [2, 'webperf test: --format must be text, json or junit\n']);
  const unknown = await webperf(['test', 'https://good.test/', '--asert', 'a11y>=4']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /^webperf test: Unknown option '--asert'/);
});
