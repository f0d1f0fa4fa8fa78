/**
 * The build (scripts/build.js): the TypeScript sources to JavaScript in dist/, incrementally, with
 * source maps that make a stack trace name the .ts file and line. Tried on a small project of its
 * own in a temporary folder; and the project itself runs what it built: this file is the built
 * dist/test/build.test.js, and its own stack names test/build.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { CODE_ROOT, PROJECT_ROOT } from '../core/config.js';

type Built = { compiled: number; copied: number; removed: number; ms: number };
// Plain JavaScript beside the sources, not in dist/ (it runs before anything is built).
const { build } = (await import(pathToFileURL(path.join(PROJECT_ROOT, 'scripts', 'build.js')).href)) as { build(o: Record<string, unknown>): Promise<Built> };
const run = (root: string, opts: Record<string, unknown> = {}) => build({ root, dirs: ['core'], quiet: true, ...opts });

t.test('built once, then only what changed, and outputs whose source is gone are removed', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'webperf-build-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'core', 'data'), { recursive: true });
  await writeFile(path.join(root, 'core', 'a.ts'), "import { fail } from './b.js';\nexport const a: number = 1;\nexport { fail };\n");
  await writeFile(path.join(root, 'core', 'b.ts'), "type Why = string;\nexport function fail(why: Why): never {\n  throw new Error(why);\n}\n");
  await writeFile(path.join(root, 'core', 'data', 'rules.json'), '{"x":1}\n');
  await writeFile(path.join(root, 'core', 'README.md'), '# not code\n');

  t.strictSame(pick(await run(root)), { compiled: 2, copied: 1, removed: 0 }, 'two sources compiled, the JSON copied, the README left out');
  t.match(await readFile(path.join(root, 'dist', 'core', 'a.js'), 'utf8'), /^import \{ fail \} from "\.\/b\.js";\nconst a = 1;/, 'types gone, imports as written');
  t.equal(JSON.parse(await readFile(path.join(root, 'dist', 'core', 'b.js.map'), 'utf8')).sources[0], '../../core/b.ts', 'the map points at the source');
  await t.rejects(stat(path.join(root, 'dist', 'core', 'README.md')), { code: 'ENOENT' });

  t.strictSame(pick(await run(root)), { compiled: 0, copied: 0, removed: 0 }, 'nothing changed: nothing built');

  // Everything built a minute ago from sources two minutes old; then b.ts edited 30 s ago.
  const ago = (s: number) => new Date(Date.now() - s * 1000);
  for (const f of ['a.js', 'a.js.map', 'b.js', 'b.js.map', path.join('data', 'rules.json')]) await utimes(path.join(root, 'dist', 'core', f), ago(60), ago(60));
  for (const f of ['a.ts', 'b.ts', path.join('data', 'rules.json')]) await utimes(path.join(root, 'core', f), ago(120), ago(120));
  t.strictSame(pick(await run(root)), { compiled: 0, copied: 0, removed: 0 }, 'outputs newer than their sources: nothing built');
  await utimes(path.join(root, 'core', 'b.ts'), ago(30), ago(30));
  t.strictSame(pick(await run(root)), { compiled: 1, copied: 0, removed: 0 }, 'one source changed: that one built');

  await rm(path.join(root, 'core', 'a.ts'));
  t.strictSame(pick(await run(root)), { compiled: 0, copied: 0, removed: 2 }, 'a deleted source: its JavaScript and map removed');
  await t.rejects(stat(path.join(root, 'dist', 'core', 'a.js')), { code: 'ENOENT' });

  // A stack trace of the built code names the TypeScript source and its line.
  const script = `import('${path.join(root, 'dist', 'core', 'b.js')}').then((m) => m.fail('boom')).catch((e) => console.log(e.stack))`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--enable-source-maps', '-e', script], { timeout: 30_000 });
  t.match(stdout, new RegExp(`^Error: boom\\n\\s+at (Module\\.)?fail \\(${escape(path.join(root, 'core', 'b.ts'))}:3:9\\)`));
});

t.test('a rebuild says so in one line; a build with nothing to do says nothing', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'webperf-build-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'core'));
  await writeFile(path.join(root, 'core', 'x.ts'), 'export const x = 1;\n');
  const said: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (said.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    await run(root, { quiet: false });
    await run(root, { quiet: false });
  } finally {
    process.stderr.write = write;
  }
  t.equal(said.length, 1);
  t.match(said[0], /^# build: 1 compiled into dist\/ \(\d+ ms\): the sources had changed\n$/);
});

t.test('the suite runs the built JavaScript, and its stack traces name the TypeScript', async (t) => {
  const here = fileURLToPath(import.meta.url);
  t.equal(path.relative(PROJECT_ROOT, here), path.join('dist', 'test', 'build.test.js'));
  t.equal(CODE_ROOT, path.join(PROJECT_ROOT, 'dist'));
  t.match(new Error('here').stack ?? '', `(${path.join(PROJECT_ROOT, 'test', 'build.test.ts')}:`);
  // What is loaded first: the suite's quiet-domains.js (test/run.ts), or tap's process info under
  // tap's runner; no TypeScript loader.
  const args = process.execArgv.flatMap((a, i, all) => (/^--(import|loader|require|experimental-loader)$/.test(a) ? [`${a}=${all[i + 1]}`] : /^--(import|loader|require|experimental-loader)=/.test(a) ? [a] : []));
  const expected = new URL('./helpers/quiet-domains.js', import.meta.url).href;
  t.strictSame(args.filter((a) => !a.includes('@tapjs/processinfo') && a !== `--import=${expected}`), [], 'no loader');
});

function pick(b: Built) {
  return { compiled: b.compiled, copied: b.copied, removed: b.removed };
}

function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
