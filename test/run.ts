/**
 * `npm test`: runs as dist/test/run.js once scripts/build.js has built what changed (the files tap
 * runs are the built dist/test/**.test.js; a file is named by its source, test/x.test.ts, on the
 * command line, in the output and in file-times.json). Type-checks the project (for the whole
 * suite, beside the set-up), starts a real
 * PostgreSQL (embedded unless DATABASE_URL is set), migrates a template database that every test
 * file clones (graphile-worker's way), checks that the generated kysely types have not drifted
 * from the migrated schema, serves the fixture sites that many test files
 * load (their gathered start pages are shared through a cache folder made fresh for this run, see
 * loadFixture in test/helpers/fixture-artifacts.ts), then runs tap and ends with the failed
 * assertions, each with its file and subtests (test/helpers/tap-failures.ts), and one line
 * `N passed, N failed` counted from tap's results.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT, findChromium } from '../core/config.js';
import { createDb } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { generateTypes } from '../core/db/generate-types.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { runWorkerMigrations } from '../runners/worker-schema.js';
import { ShareChromium } from './helpers/shared-chromium.js';
import { TapFailures } from './helpers/tap-failures.js';
import { createTestCa } from './helpers/world/ca.js';
import { startWorld, type World } from './helpers/world/index.js';

const TEMPLATE = 'webperf_test_template';
/** Fixture sites whose start page a dozen test files gather: served once, gathered once per run. */
const SHARED_FIXTURES = ['good', 'flawed'];

async function main(): Promise<number> {
  if (!findChromium(process.env.CHROMIUM_PATH)) {
    console.error('Chromium was not found: install it with `apt-get install chromium` (or set CHROMIUM_PATH).');
    return 1;
  }
  const args = process.argv.slice(2);
  const tapBin = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tap');
  // The whole suite is type-checked beside the set-up and the tests (tsc keeps one core busy for
  // about 15 s, while the set-up mostly waits on PostgreSQL): a type error fails the run, and is
  // printed at its end. tap is built with its plugins meanwhile too.
  const typecheck = args.length === 0 ? runTypecheck() : null;
  const tapBuilt = buildTapPlugins(tapBin);
  tapBuilt.catch(() => {});
  typecheck?.catch(() => {});
  let adminUrl: string;
  let stop = async () => {};
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'webperf-test-'));
  let world: World | null = null;
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = '/postgres';
    adminUrl = u.href;
  } else {
    const pg = await startEmbeddedPostgres(path.join(tmp, 'pg'), { fast: true });
    adminUrl = pg.adminUrl;
    stop = pg.stop;
  }
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE}`;
  try {
    // A fresh template each run.
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.end();
    await ensureDatabase(adminUrl, TEMPLATE);
    const db = createDb(templateUrl.href, { max: 2 });
    await migrateToLatest(db);
    await db.destroy();
    await runWorkerMigrations(templateUrl.href);
    console.log('# kysely types: checking core/db/schema.ts against the migrated schema');
    await generateTypes(templateUrl.href, true);

    const gatherCache = path.join(tmp, 'gathered');
    await mkdir(gatherCache);
    // The test world's CA for the whole run (every file and every service process a test starts
    // trusts it), and the shared fixture sites under their names, on https port 443.
    const caDir = path.join(tmp, 'ca');
    await createTestCa(caDir);
    process.env.WEBPERF_TEST_CA_DIR = caDir;
    world = await startWorld();
    const fixtureSites: Record<string, string> = {};
    const sharedHosts: Record<string, string> = {};
    for (const name of SHARED_FIXTURES) {
      const site = await world.site(`${name}.test`, { root: name });
      fixtureSites[name] = site.url;
      sharedHosts[site.name] = site.address;
    }

    await tapBuilt;
    const env = {
      ...process.env,
      WEBPERF_TEST_ADMIN_URL: adminUrl,
      WEBPERF_TEST_TEMPLATE: TEMPLATE,
      WEBPERF_TEST_FIXTURE_SITES: JSON.stringify(fixtureSites),
      WEBPERF_TEST_SHARED_HOSTS: JSON.stringify(sharedHosts),
      WEBPERF_TEST_CA_DIR: caDir,
      WEBPERF_TEST_GATHER_CACHE: gatherCache,
    };
    // Named files: one share of them, as asked; tap options (anything starting with -): tap's own
    // runner. The whole suite: shares of equal time.
    const timeoutS = await tapTimeoutS();
    const runs = args.some((a) => a.startsWith('-'))
      ? [runTap(tapBin, ['--reporter=tap', ...args.map(builtTestFile)], env, false)]
      : args.length > 0
        ? [runFiles(args.map(builtTestFile), env, timeoutS, false)]
        : await runShares(env, timeoutS);
    const results = await Promise.all(runs);
    const typeErrors = await typecheck;
    const num = (key: string) => results.reduce((sum, r) => sum + (r.failures.counts[key] ?? 0), 0);
    // A tap that ended badly without a failed assertion (a file that would not start) is a failure;
    // so is a type error.
    const failed = num('fail') + results.filter((r) => r.code !== 0 && !r.failures.counts.fail).length + (typeErrors ? 1 : 0);
    const skipped = num('skip') + num('todo');
    for (const r of results) for (const line of r.failures.summary()) console.log(line);
    if (typeErrors) {
      process.stdout.write(typeErrors);
      console.log('# the type check failed (tsc --noEmit)');
    }
    if (process.env.WEBPERF_TEST_TIMES === 'write' && args.length === 0) await writeFileTimes(results.flatMap((r) => r.times));
    console.log(`${num('pass')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
    const code = results.every((r) => r.code === 0) && !typeErrors ? 0 : 1;
    return code;
  } finally {
    await world?.close();
    await stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Loaded first into each test file's process: tap's domains without their async hook (see the file). */
const QUIET_DOMAINS = new URL('./helpers/quiet-domains.js', import.meta.url).href;

/** The file that keeps each test file's last measured time (seconds), for balancing the shares. */
const FILE_TIMES = path.join(PROJECT_ROOT, 'test', 'file-times.json');
/** What a file not yet measured is taken to need. */
const UNMEASURED_S = 30;

interface TapRun {
  code: number;
  failures: TapFailures;
  /** Each file's time as tap measured it. */
  times: { file: string; seconds: number }[];
}

/**
 * Test files run one after the other, each in a node process of its own (`node --enable-source-maps
 * --import quiet-domains.js file`), as tap's runner would run them but without its process-info loader: tap's runner starts
 * every test process with `--import @tapjs/processinfo/import` and passes it on in NODE_OPTIONS to
 * every node process a test starts (the CLI, a runner, the service); that loader hooks every module
 * load (a round trip to its thread, the file's source read and its line lengths kept for coverage),
 * which doubled the time a process takes to load its modules (Lighthouse, the API and the plugins:
 * 7.2 s instead of 3.6 s). The suite collects no coverage through tap, so nothing is lost.
 *
 * A test file is a tap program of its own (`import t from 'tap'`): standalone, its root test prints
 * its TAP and closes with its counts (`# { total: 80, pass: 80 }`), and sets exit code 1 when
 * anything failed. Its output goes into the run's as tap's runner puts it (a subtest per file,
 * `ok N - file # time=…`), so TapFailures and the counts read it the same; a file that ends badly
 * without a failed assertion (it would not start, it was killed at its time limit) counts as one
 * failure.
 */
function runFiles(files: readonly string[] | (() => string | undefined), env: NodeJS.ProcessEnv, timeoutS: number, share: string | false): Promise<TapRun> {
  const next = typeof files === 'function' ? files : ((list) => () => list.shift())([...files]);
  const failures = new TapFailures();
  const times: TapRun['times'] = [];
  const counts: Record<string, number> = {};
  const held: string[] = [];
  const emit = (text: string) => {
    failures.write(text);
    if (share) held.push(text);
    else process.stdout.write(text);
  };
  // The share's Chromium, lent to each file in turn (test/helpers/shared-chromium.ts).
  const chromium = new ShareChromium();
  const runOne = (file: string, n: number, chromiumWs: string) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const child = spawn(process.execPath, ['--enable-source-maps', '--import', QUIET_DOMAINS, file], {
        cwd: PROJECT_ROOT,
        env: { ...env, TAP_TIMEOUT: String(timeoutS), WEBPERF_TEST_CHROMIUM_WS: chromiumWs },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      // tap's own limit is inside the file (TAP_TIMEOUT); this one ends a file that hangs outside it.
      const killer = setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }, (timeoutS + 30) * 1000);
      let partial = '';
      let own: Record<string, number> = {};
      const source = sourceTestFile(file);
      emit(`# Subtest: ${source}\n`);
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        const out: string[] = [];
        for (const line of lines) {
          const total = /^# \{ (total: .*) \}$/.exec(line);
          if (total) own = Object.fromEntries(total[1].split(', ').map((pair) => pair.split(': ')).map(([k, v]) => [k, Number(v)]));
          out.push(line ? `    ${line}` : '');
        }
        emit(out.map((l) => `${l}\n`).join(''));
      });
      child.on('close', (code, signal) => {
        clearTimeout(killer);
        if (partial) emit(`    ${partial}\n`);
        const ms = performance.now() - started;
        for (const [k, v] of Object.entries(own)) counts[k] = (counts[k] ?? 0) + v;
        const ok = code === 0;
        if (!ok && !own.fail) counts.fail = (counts.fail ?? 0) + 1;
        counts.total = (counts.total ?? 0) + (!ok && !own.fail ? 1 : 0);
        const time = `# time=${ms.toFixed(3)}ms`;
        emit(ok ? `ok ${n} - ${source} ${time}\n` : `not ok ${n} - ${source} ${time}\n  ---\n  exitCode: ${code}\n  signal: ${signal}\n  ...\n`);
        times.push({ file: source, seconds: ms / 1000 });
        if (share) console.log(`# ${share}: ${ok ? 'ok' : 'not ok'} ${source} (${(ms / 1000).toFixed(0)} s)`);
        resolve();
      });
    });
  return (async () => {
    const started = performance.now();
    emit('TAP version 14\n');
    let n = 0;
    try {
      for (let file = next(); file !== undefined; file = next()) {
        // Should it not start, the file launches its own, as without a share.
        const lent = await chromium.lend().catch((err: Error) => (console.error(`# ${share || 'run'}: no Chromium to lend (${err.message})`), ''));
        await runOne(file, ++n, lent);
      }
    } finally {
      await chromium.close();
    }
    emit(`1..${n}\n# { ${Object.entries(counts).map(([k, v]) => `${k}: ${v}`).join(', ')} }\n# time=${(performance.now() - started).toFixed(3)}ms\n`);
    if (share) process.stdout.write(`# ${share}: its whole output\n${held.join('')}`);
    failures.write('\n');
    return { code: counts.fail ? 1 : 0, failures, times };
  })();
}

/** tap's configured per-file time limit in seconds (package.json's tap.timeout). */
async function tapTimeoutS(): Promise<number> {
  const { TapConfig } = await import('@tapjs/config');
  const config = await TapConfig.load();
  return Number(config.get('timeout') ?? 30);
}

/**
 * One tap process (tap's own runner, for a run given tap's options). Live: its output as it comes (one tap), or, for a share, a line per finished
 * file and the whole output when the share ends, so that three shares' TAP never interleave.
 */
function runTap(tapBin: string, args: string[], env: NodeJS.ProcessEnv, share: string | false): Promise<TapRun> {
  return new Promise((resolve) => {
    const child = spawn(tapBin, args, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    const failures = new TapFailures();
    const times: TapRun['times'] = [];
    const held: string[] = [];
    let partial = '';
    child.stdout.setEncoding('utf8'); // a character split across chunks stays whole
    child.stdout.on('data', (chunk: string) => {
      failures.write(chunk);
      if (share) held.push(chunk);
      else process.stdout.write(chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const done = /^(not ok|ok) \d+ - (\S+\.test\.js) # time=([\d.]+)ms/.exec(line);
        if (!done) continue;
        const file = sourceTestFile(done[2]);
        times.push({ file, seconds: Number(done[3]) / 1000 });
        if (share) console.log(`# ${share}: ${done[1]} ${file} (${(Number(done[3]) / 1000).toFixed(0)} s)`);
      }
    });
    child.on('close', (c) => {
      failures.write('\n');
      if (share) process.stdout.write(`# ${share}: its whole output\n${held.join('')}`);
      resolve({ code: c ?? 1, failures, times });
    });
  });
}

/**
 * The whole suite in as many shares as tap's configured jobs, each running one file at a time
 * (runFiles). The files wait in one queue, longest first by test/file-times.json, and a share
 * takes the next as soon as it is free: the run ends with short files on every share, whatever
 * the machine made of the estimates (files planned to shares beforehand ended up to 75 s apart
 * on a fresh clone, the times being those of a warm checkout).
 */
async function runShares(env: NodeJS.ProcessEnv, timeoutS: number): Promise<Promise<TapRun>[]> {
  const { TapConfig } = await import('@tapjs/config');
  const config = await TapConfig.load();
  const jobs = Math.max(1, Number(config.get('jobs') ?? 1));
  const files = (await readdir(path.join(PROJECT_ROOT, 'test'), { recursive: true }))
    .filter((f) => f.endsWith('.test.ts') && !f.split(path.sep).includes('fixtures'))
    .map((f) => path.posix.join('test', f.split(path.sep).join('/')));
  const known = await readFileTimes();
  const cost = (f: string) => known[f] ?? UNMEASURED_S;
  const queue = [...files].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b)).map(builtTestFile);
  const shares = Math.min(jobs, files.length);
  const total = files.reduce((sum, f) => sum + cost(f), 0);
  console.log(`# ${files.length} test files, longest first, to ${shares} shares as each becomes free: about ${(total / shares).toFixed(0)} s each (test/file-times.json)`);
  return Array.from({ length: shares }, (_, i) => runFiles(() => queue.shift(), env, timeoutS, `share ${i + 1}/${shares}`));
}

/**
 * The built test file tap runs for a source file named on the command line (`test/x.test.ts` is
 * `dist/test/x.test.js`); anything else (a tap option, a built file) as given.
 */
function builtTestFile(arg: string): string {
  if (!/\.test\.ts$/.test(arg)) return arg;
  const rel = path.relative(PROJECT_ROOT, path.resolve(arg));
  return path.join('dist', rel.replace(/\.ts$/, '.js'));
}

/** The source file of a built test file: what people read, and file-times.json's key. */
function sourceTestFile(built: string): string {
  return built.replace(/^dist\//, '').replace(/\.js$/, '.ts');
}

async function readFileTimes(): Promise<Record<string, number>> {
  try {
    return JSON.parse(await readFile(FILE_TIMES, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** WEBPERF_TEST_TIMES=write npm test: keeps this run's times for the next runs' shares. */
async function writeFileTimes(times: { file: string; seconds: number }[]): Promise<void> {
  const sorted = Object.fromEntries([...times].sort((a, b) => a.file.localeCompare(b.file)).map((t) => [t.file, Math.round(t.seconds)]));
  await writeFile(FILE_TIMES, `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`# file times written to ${path.relative(PROJECT_ROOT, FILE_TIMES)}`);
}

/** `tsc --noEmit` (npm run typecheck): its output when it finds errors, else null. */
function runTypecheck(): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', PROJECT_ROOT], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (c: string) => output.push(c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => output.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve(code === 0 ? null : output.join('') || `tsc exited with ${code}\n`));
  });
}

/**
 * package.json keeps tap's default plugins, so the Test class tap is installed with serves as it
 * is: with a plugin list of its own, a fresh install rebuilt it (`tap build` compiles it with tsc,
 * 7 CPU s alone and 14 beside the run's set-up). Files run with plain node (runFiles), so the
 * TypeScript plugin adds no loader to them. Should the configured plugins ever differ from the
 * built ones, tap is built here first: a run that noticed it itself would still start every file
 * with the plugins it was installed with.
 */
async function buildTapPlugins(tapBin: string): Promise<void> {
  const { TapConfig } = await import('@tapjs/config');
  const config = await TapConfig.load();
  // Read, not imported: importing tap's Test class here would start tap in this process.
  const built = await readFile(fileURLToPath(import.meta.resolve('@tapjs/test/test-built')), 'utf8');
  const signature = /^export const signature = `([^`]*)`/m.exec(built)?.[1];
  if (config.pluginSignature === signature) return;
  console.error('# building tap with the configured plugins (once after an install)');
  const code = await new Promise<number | null>((resolve) => {
    spawn(tapBin, ['build'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit'] }).on('close', resolve);
  });
  if (code !== 0) throw new Error(`tap build exited with ${code}`);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
