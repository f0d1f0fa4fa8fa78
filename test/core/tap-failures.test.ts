/**
 * The failure summary that ends `npm test` (test/run.ts): real tap output of a file with failures
 * nested two deep, fed in chunks that split lines.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { TapFailures } from '../helpers/tap-failures.js';

const FAILING = `import t from 'tap';
t.test('outer', async (t) => {
  t.test('inner', async (t) => {
    t.equal(1, 2, 'one is two');
    t.ok(true, 'fine');
  });
  t.ok(true, 'outer fine');
});
t.equal('a', 'a', 'top passes');
t.equal('a', 'b', 'top fails');
`;

/** A project of its own (tap's config is this project's) that finds this project's tap, with `file` holding `source`. */
async function sampleProject(file: string, source: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tap-sample-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
  await writeFile(path.join(dir, file), source);
  return dir;
}

async function tapOutput(source: string): Promise<string> {
  const dir = await sampleProject('sample.test.mjs', source);
  const tap = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tap');
  try {
    return (await promisify(execFile)(tap, ['--reporter=tap', '--disable-coverage', 'sample.test.mjs'], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } })).stdout;
  } catch (err: any) {
    return err.stdout as string;
  }
}

t.test('names each failed assertion with its file and subtests; parents of a failure are not repeated', async (t) => {
  const out = await tapOutput(FAILING);
  const failures = new TapFailures();
  for (let i = 0; i < out.length; i += 37) failures.write(out.slice(i, i + 37));
  failures.write('\n');
  const leaves = failures.leaves();
  t.strictSame(leaves.map((f) => f.path), [
    ['sample.test.mjs', 'outer', 'inner', 'one is two'],
    ['sample.test.mjs', 'top fails'],
  ]);
  t.strictSame(leaves.map((f) => f.at), ['sample.test.mjs:4', 'sample.test.mjs:10']);
  t.strictSame(leaves[0].diagnostic, ['diff: |', '  --- expected', '  +++ actual', '  @@ -1,1 +1,1 @@', '  -2', '  +1']);
  const summary = failures.summary();
  t.equal(summary[0], '# failed (2):');
  t.equal(summary[1], '#   sample.test.mjs > outer > inner > one is two (sample.test.mjs:4)');
  t.ok(summary.includes('#   sample.test.mjs > top fails (sample.test.mjs:10)'));
});

t.test('a run without failures has no summary', async (t) => {
  const failures = new TapFailures();
  failures.write('TAP version 14\n1..1\n# Subtest: a.test.ts\n    ok 1 - fine\n    1..1\nok 1 - a.test.ts # time=5ms\n# { total: 1, pass: 1 }\n');
  t.strictSame(failures.summary(), []);
  t.strictSame(failures.counts, { total: 1, pass: 1 });
});

t.test("tap's closing counts, as the last CI run printed them", async (t) => {
  const failures = new TapFailures();
  t.strictSame(failures.counts, {}, 'none before the line');
  failures.write('ok 71 - test/web/portal-sessions.test.ts # time=11237.057ms\n\n# No coverage generated\n# { total: 15919, pass: 15916, fail: 3 }\n# time=1212042.132ms\n');
  t.strictSame(failures.counts, { total: 15919, pass: 15916, fail: 3 });
  failures.write('    # { total: 1, pass: 1 }\n');
  t.strictSame(failures.counts, { total: 15919, pass: 15916, fail: 3 }, "an indented line is a subtest's comment, not tap's counts");
});

// A file as the run starts it (test/run.ts: `node --import quiet-domains.js file`): an error thrown
// outside any assertion still fails its subtest; with WEBPERF_TEST_DOMAINS=1, tap reports the error.
const STRAY = `import t from 'tap';
t.test('quiet', async (t) => {
  t.ok(true, 'fine');
  await new Promise((resolve) => setTimeout(() => { resolve(); throw new Error('stray error in a timer'); }, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
});
`;

async function runAsTheSuite(source: string, domains: boolean) {
  const dir = await sampleProject('stray.test.mjs', source);
  const preload = new URL('../helpers/quiet-domains.js', import.meta.url).href;
  const env = { ...process.env, NODE_OPTIONS: '', WEBPERF_TEST_DOMAINS: domains ? '1' : '' };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', preload, 'stray.test.mjs'], { cwd: dir, env });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

t.test('tap without its async hook: a stray error still fails its subtest; WEBPERF_TEST_DOMAINS=1 puts the error there too', async (t) => {
  const summaryOf = (stdout: string) => {
    const failures = new TapFailures();
    failures.write(stdout);
    return failures.summary().filter((l) => /^# {3}\S/.test(l));
  };
  const quiet = await runAsTheSuite(STRAY, false);
  t.equal(quiet.code, 1, 'the process fails');
  t.match(quiet.stderr, /Error: stray error in a timer\n\s+at Timeout\._onTimeout \(file:.*stray\.test\.mjs:4:/, "Node's own message and stack, on stderr");
  t.match(quiet.stdout, /^# \{ total: 2, pass: 1, fail: 1 \}$/m, 'tap closes its counts with the failure');
  t.strictSame(summaryOf(quiet.stdout), ['#   quiet > test unfinished (stray.test.mjs:2)'], 'the subtest fails as unfinished');

  const named = await runAsTheSuite(STRAY, true);
  t.equal(named.code, 1);
  t.strictSame(summaryOf(named.stdout), ['#   quiet > stray error in a timer (stray.test.mjs:4)'], 'tap reports the error itself under its subtest');
});
