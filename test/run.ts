/**
 * `npm test`: starts a real PostgreSQL (embedded unless DATABASE_URL is set), migrates a template
 * database that every test file clones (graphile-worker's way), checks that the generated kysely
 * types have not drifted from the migrated schema, serves the fixture sites that many test files
 * load (their gathered start pages are shared through a cache folder made fresh for this run, see
 * loadFixture in test/helpers/fixture-artifacts.ts), then runs tap and ends with the failed
 * assertions, each with its file and subtests (test/helpers/tap-failures.ts), and one line
 * `N passed, N failed` counted from tap's results.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT, findChromium } from '../core/config.js';
import { createDb } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { generateTypes } from '../core/db/generate-types.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { runWorkerMigrations } from '../runners/worker-schema.js';
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

    const args = process.argv.slice(2);
    const tapBin = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tap');
    await buildTapPlugins(tapBin);
    const code = await new Promise<number>((resolve) => {
      const child = spawn(tapBin, ['--reporter=tap', ...args], {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          WEBPERF_TEST_ADMIN_URL: adminUrl,
          WEBPERF_TEST_TEMPLATE: TEMPLATE,
          WEBPERF_TEST_FIXTURE_SITES: JSON.stringify(fixtureSites),
          WEBPERF_TEST_SHARED_HOSTS: JSON.stringify(sharedHosts),
          WEBPERF_TEST_CA_DIR: caDir,
          WEBPERF_TEST_GATHER_CACHE: gatherCache,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const results = new TapFailures();
      child.stdout.setEncoding('utf8'); // a character split across chunks stays whole
      child.stdout.on('data', (chunk: string) => {
        process.stdout.write(chunk);
        results.write(chunk);
      });
      child.on('close', (c) => {
        results.write('\n');
        const num = (key: string) => results.counts[key] ?? 0;
        const failed = num('fail') + (c !== 0 && num('fail') === 0 ? 1 : 0);
        const skipped = num('skip') + num('todo');
        for (const line of results.summary()) console.log(line);
        console.log(`${num('pass')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
        resolve(c ?? 1);
      });
    });
    return code;
  } finally {
    await world?.close();
    await stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * tap builds its Test class with the configured plugins (package.json leaves out its TypeScript
 * plugin: tsx loads the sources) the first time it runs on a fresh install, but the run that
 * notices still starts every test file with the plugins it was installed with: on a fresh clone
 * (CI) each file also loaded ts-node's loader. Built here first when the plugins differ.
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
