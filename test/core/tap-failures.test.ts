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

async function tapOutput(source: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tap-failures-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // A project of its own (tap's config is this project's) that finds this project's tap.
  await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
  await writeFile(path.join(dir, 'sample.test.mjs'), source);
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
