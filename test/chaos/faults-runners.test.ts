/**
 * Runners (`webperf runner`, real child processes) killed with SIGKILL twice on the same job: on
 * its first and on its last attempt. The job is unlocked from the dead runners (heartbeats), gets
 * back the attempt the second crash cost it, and a third runner stores the run exactly once, with
 * the credits charged once. Real PostgreSQL, Chromium and a site of a test world
 * (https://held.test/ on port 443, chaos/held-site.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { startHeldSite } from '../../chaos/held-site.js';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createKey } from '../../core/store/keys.js';
import { spawnWebperf, until, type WebperfProcess } from '../../chaos/processes.js';
import { buildTestApi } from '../helpers/api.js';
import { seedLevel, seedSite } from '../helpers/seed.js';
import { startWorld } from '../helpers/world/index.js';

t.test('a job whose runner is killed on its first and its last attempt still ends done, once', async (t) => {
  const { app, db, url } = await buildTestApi(t);
  const world = await startWorld(t);
  const site = await startHeldSite(world);
  const siteUrl = site.url;

  await seedLevel(db, 'gold', 100);
  const siteId = await seedSite(db, { title: 'Held', url: siteUrl, premiumLevel: 'gold' });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  const headers = { 'api-key': key, 'site-id': String(siteId) };
  const order = await app.inject({ method: 'POST', url: '/retest/', headers: { ...headers, testnums: '[28,100]' } }); // the kills need a page load under way, whatever is rated from it
  t.equal(order.statusCode, 200, order.body);
  const runId: number = order.json().run_id;

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-runner-kills-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env = world.env({
    DATABASE_URL: url, WEBPERF_DATA_DIR: dataDir, WEBPERF_DEMO: '0',
    WEBPERF_HEARTBEAT_MS: '1000', WEBPERF_STALE_AFTER_MS: '3000', WEBPERF_JOB_TIMEOUT_MS: '240000', LOG_LEVEL: 'warn',
  });
  const job = async () => (await db.selectFrom('graphile_worker.jobs' as any).select(['attempts', 'max_attempts', 'locked_by'] as any).executeTakeFirst()) as { attempts: number; max_attempts: number; locked_by: string | null } | undefined;
  const runners: WebperfProcess[] = [];
  t.teardown(() => { for (const r of runners) r.child.kill('SIGKILL'); });

  for (const attempt of [1, 2]) {
    const before = site.requests;
    const runner = await spawnWebperf('runner', env);
    runners.push(runner);
    await until(`runner ${attempt} loads the page`, 240_000, () => site.requests > before);
    if (!t.match(await job(), { attempts: attempt, max_attempts: 2 }, `attempt ${attempt} of 2 runs`)) t.comment(runner.lines.join('\n'));
    runner.child.kill('SIGKILL');
    await runner.exited;
  }
  site.release();
  const third = await spawnWebperf('runner', env);
  runners.push(third);
  const done = await until('the run is stored', 300_000, async () => {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    return run.status === 'done' || run.status === 'failed' ? run : undefined;
  });
  t.same(done, { status: 'done', error: null }, 'the run ends done');
  const results = await db.selectFrom('test_results').select(['run_id', 'type_of_test', 'error']).orderBy('type_of_test').execute();
  t.same(results, [{ run_id: runId, type_of_test: 28, error: null }, { run_id: runId, type_of_test: 100, error: null }], 'stored once, each rated from the loaded page');
  t.same(await db.selectFrom('orders').select('status').execute(), [{ status: 'done' }]);
  const quota = await app.inject({ url: '/quota/', headers });
  t.equal(quota.json().used, 2, 'credits charged once');
  // graphile-worker records the job's completion just after the task stored the run.
  t.ok(await until('the job is complete', 30_000, async () => (await job()) === undefined), 'the job is complete');
});
