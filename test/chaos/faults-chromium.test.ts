/**
 * Chromium killed (SIGKILL) mid-gather under a `webperf runner` (a real child process) loading
 * https://held.test/ (a host of a test world, chaos/held-site.ts) through its guard: the runner
 * survives (Lighthouse's unhandled Page.navigate rejection does not end it), the attempt fails,
 * the job is retried, the browser pool launches a new Chromium, and the run is stored exactly once.
 */
import { readFileSync } from 'node:fs';
import { startHeldSite } from '../../chaos/held-site.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { queueRun } from '../../core/store/runs.js';
import { running, spawnWebperf, stopProcess, until } from '../../chaos/processes.js';
import { createTestDb } from '../helpers/db.js';
import { seedSite } from '../helpers/seed.js';
import { jobsAtRest } from '../helpers/runner.js';
import { startWorld } from '../helpers/world/index.js';

t.test('Chromium killed mid-gather: the runner survives, the job is retried on a relaunched browser and stores its run once', async (t) => {
  const { db, url } = await createTestDb(t);
  const world = await startWorld(t);
  const site = await startHeldSite(world);
  const siteUrl = site.url;

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-chromium-kill-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const siteId = await seedSite(db, { title: 'Held', url: siteUrl });
  const runId = await queueRun(db, { siteId, url: siteUrl, testTypes: [28, 100] }); // the kill needs a page load under way, whatever is rated from it
  const runner = await spawnWebperf('runner', world.env({
    DATABASE_URL: url, WEBPERF_DATA_DIR: dataDir, WEBPERF_DEMO: '0', WEBPERF_JOB_TIMEOUT_MS: '240000', LOG_LEVEL: 'warn',
  }));
  t.teardown(() => stopProcess(runner));
  const note = () => (JSON.parse(readFileSync(path.join(dataDir, 'chromium', `${runner.pid}.json`), 'utf8')) as { chromium: number }).chromium;

  await until('Chromium loads the page', 180_000, () => site.requests > 0);
  const chromium = note();
  t.ok(running(chromium), 'its Chromium runs, mid-gather');
  process.kill(chromium, 'SIGKILL');
  await until('the killed Chromium is gone', 30_000, () => !running(chromium));
  site.release();

  const between = await until('the attempt fails and waits for its retry', 120_000, async () => {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    return run.error || run.status === 'done' ? run : undefined;
  });
  t.equal(between.status, 'queued', `the run waits for its retry (${between.error})`);

  const done = await until('the run is stored', 300_000, async () => {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    return run.status === 'done' || run.status === 'failed' ? run : undefined;
  });
  t.same(done, { status: 'done', error: null }, 'the retry succeeded');
  t.ok(running(runner.pid), 'the runner process survived the crash of its browser');
  const relaunched = note();
  t.not(relaunched, chromium, 'a new Chromium was launched');
  t.ok(running(relaunched), 'the new Chromium runs');
  const results = await db.selectFrom('test_results').select(['run_id', 'type_of_test', 'error']).orderBy('type_of_test').execute();
  t.same(results, [{ run_id: runId, type_of_test: 28, error: null }, { run_id: runId, type_of_test: 100, error: null }], 'stored once, each rated from the loaded page');
  t.same(await jobsAtRest(db, 30_000), [], 'the job is complete');
});
