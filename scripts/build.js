// The build: every TypeScript source of the project (core, plugins, api, runners, migrations,
// chaos, bench, test) transformed to JavaScript with a linked source map in dist/, the same tree
// one folder down, and the files the code reads beside itself (templates, static files, JSON data,
// the demo site) copied there. The sources stay the only
// sources: dist/ is not committed, `npm ci` builds it (prepare), and `npm start`, `npm test` and
// bin/webperf.js build what changed before they run, so a stale build cannot run by mistake.
//
// esbuild transforms one file at a time (no bundling, imports stay as written); types are checked
// by `tsc --noEmit` (npm run typecheck, and npm test beside the suite). Incremental: a file is
// rebuilt when its source is newer than its output, and an output whose source is gone is removed.
// Plain JavaScript on purpose: it runs before there is anything built.
import { copyFile, mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
/** The folders whose code runs from dist/ (tsconfig.json's include, less bin/). */
export const SOURCE_DIRS = ['core', 'plugins', 'api', 'runners', 'migrations', 'chaos', 'bench', 'test'];
/** The folders the service itself runs from (bin/webperf.js builds only these). */
export const SERVICE_DIRS = ['core', 'plugins', 'api', 'runners', 'migrations'];
/** Not built: the fixture websites and plugin packages the tests serve or install as they are. */
const SKIPPED = [path.join('test', 'fixtures')];
/** Sources read by people, never by the code. */
const NOT_COPIED = /\.(md|ts)$|^file-times\.json$/;

/** Every file under `base`/`dir` for each of `dirs`, relative to `root`; a folder that is not there has none. */
async function filesUnder(root, base, dirs) {
  const out = [];
  for (const dir of dirs) {
    let entries;
    try {
      entries = await readdir(path.join(base, dir), { recursive: true, withFileTypes: true });
    } catch (err) {
      if (err.code === 'ENOENT') continue;
      throw err;
    }
    for (const e of entries) if (e.isFile()) out.push(path.relative(root, path.join(e.parentPath ?? e.path, e.name)));
  }
  return out;
}

/** Every file under the source folders, relative to the root. */
async function sourceFiles(root, dirs) {
  return (await filesUnder(root, root, dirs)).filter((rel) => !SKIPPED.some((s) => rel === s || rel.startsWith(s + path.sep)));
}

/** dist/'s name for a source file, or null when the file stays out of dist/. */
function outputOf(rel) {
  if (rel.endsWith('.d.ts')) return null;
  if (rel.endsWith('.ts')) return path.join('dist', rel.replace(/\.ts$/, '.js'));
  if (NOT_COPIED.test(path.basename(rel))) return null;
  return path.join('dist', rel);
}

async function mtime(file) {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * Builds what changed. Returns what it did: the files transformed, copied and removed. Quiet when
 * nothing changed; else one line on stderr (unless `quiet`).
 */
export async function build({ root = ROOT, dirs = SOURCE_DIRS, quiet = false, force = false } = {}) {
  const started = performance.now();
  const dist = path.join(root, 'dist');
  const files = await sourceFiles(root, dirs);
  const wanted = new Set();
  const toCompile = [];
  const toCopy = [];
  await Promise.all(
    files.map(async (rel) => {
      const out = outputOf(rel);
      if (!out) return;
      wanted.add(out);
      if (rel.endsWith('.ts')) wanted.add(`${out}.map`);
      if (!force && (await mtime(path.join(root, out))) >= (await mtime(path.join(root, rel)))) return;
      (rel.endsWith('.ts') ? toCompile : toCopy).push(rel);
    }),
  );
  // Outputs whose source is gone (a file deleted or renamed) would still be importable: removed.
  const removed = (await filesUnder(root, dist, dirs)).filter((rel) => !wanted.has(rel));
  await Promise.all(removed.map((rel) => rm(path.join(root, rel), { force: true })));
  if (toCompile.length > 0) {
    const esbuild = await import('esbuild');
    await esbuild.build({
      absWorkingDir: root,
      entryPoints: toCompile,
      outdir: dist,
      outbase: root,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      // A stack trace names the .ts file and line: the map points back at the source beside it.
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'error',
    });
  }
  for (const rel of toCopy) {
    const out = path.join(root, outputOf(rel));
    await mkdir(path.dirname(out), { recursive: true });
    await copyFile(path.join(root, rel), out);
  }
  const result = { compiled: toCompile.length, copied: toCopy.length, removed: removed.length, ms: Math.round(performance.now() - started) };
  if (!quiet && (result.compiled || result.copied || result.removed)) {
    const parts = [`${result.compiled} compiled`, result.copied ? `${result.copied} copied` : '', result.removed ? `${result.removed} removed` : ''].filter(Boolean);
    process.stderr.write(`# build: ${parts.join(', ')} into dist/ (${result.ms} ms): the sources had changed\n`);
  }
  return result;
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const force = process.argv.includes('--force');
  if (force) await rm(DIST, { recursive: true, force: true });
  try {
    await build({ force });
  } catch (err) {
    process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
