/**
 * A real runner (graphile-worker, Chromium, Lighthouse) with a guard built as the service builds
 * it (the test world's resolver and the suite's CA): the bundled demo, which the service serves on
 * plain http on loopback and allowlists by its origin; the job time limit against a site on
 * https://langsam.test/ that never answers; a page on a loopback host not allowlisted, refused.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseCrontab } from 'graphile-worker';
import { buildTestApi } from '../helpers/api.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { jobsAtRest } from '../helpers/runner.js';
import { PluginRegistry, discoverPlugins } from '../../core/registry.js';
import { throwingPlugin } from '../helpers/throwing-plugin.js';
import { startDemo } from '../../runners/demo.js';
import { startWorker } from '../../runners/worker.js';
import { CRONTAB } from '../../runners/tasks/schedule-followed-sites.js';
import type { Db } from '../../core/db/database.js';
import { testWorld } from '../helpers/world/index.js';

async function waitForRun(db: Db, runId: number, ms = 120_000) {
  const until = Date.now() + ms;
  for (;;) {
    const run = await db.selectFrom('test_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    if (run.status === 'done' || run.status === 'failed') return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.status} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const builtins = await discoverPlugins();
const throwing = throwingPlugin(builtins);

t.test('the demo site is registered, tested by a real runner, and its scores appear at /item/{id} with the demo key', async (t) => {
  const { app, db, url } = await buildTestApi(t);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-demo-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const demo = await startDemo(db, dataDir);
  t.teardown(() => demo.close());
  t.equal((await stat(path.join(dataDir, 'demo.json'))).mode & 0o777, 0o600, 'the demo key file is private to its owner');

  const registry = new PluginRegistry([...builtins, throwing]);
  // As the service allowlists its demo: that origin only (scheme, loopback address and port).
  const guard = (await testWorld()).guard([new URL(demo.url).origin]);
  const worker = await startWorker({
    db, connectionString: url, pool: testBrowserPool(), guard, registry,
    concurrency: 1, jobTimeoutMs: 120_000, schedule: false,
  });
  t.teardown(() => worker.stop());

  const first = await db.selectFrom('test_runs').select('id').where('site_id', '=', demo.siteId).executeTakeFirstOrThrow();
  const run = await waitForRun(db, first.id);
  t.equal(run.status, 'done', run.error ?? '');
  const results = await db.selectFrom('test_results').selectAll().where('run_id', '=', first.id).orderBy('type_of_test').execute();
  t.same(results.map((r) => r.type_of_test), registry.select(null).map((p) => p.meta.id), 'one result per active plugin, in one run');
  const failed = results.find((r) => r.type_of_test === 990)!;
  t.equal(failed.rating, -1);
  t.equal(failed.error, 'boom');
  t.equal((failed.reports as any).en.overall, 'The test could not be completed: boom');
  const lh = results.find((r) => r.type_of_test === 30)!;
  t.equal(lh.error, null);
  t.ok(lh.rating >= 1 && lh.rating <= 5);

  const res = await app.inject({ url: `/item/${demo.siteId}`, headers: { 'api-key': demo.key } });
  t.equal(res.statusCode, 200);
  const scores = res.json().data.scores;
  t.equal(scores.pagespeed, Math.round(lh.rating_pagespeed! * 100) / 100);
  t.equal(scores.a11y !== null && scores.a11y >= 1 && scores.a11y <= 5, true);
  t.equal(res.json().data.title, 'Exempelby kommun (demo)');

  // An order placed with the demo key produces real results where the spec says.
  const order = await app.inject({ method: 'POST', url: '/retest/', headers: { 'api-key': demo.key, 'site-id': String(demo.siteId), testnums: '[18,30]' } });
  t.equal(order.statusCode, 200);
  t.same(order.json().test_types, [18, 30]);
  t.equal(order.json().credits, 2);
  const retest = await waitForRun(db, order.json().run_id);
  t.equal(retest.status, 'done', retest.error ?? '');
  const stats = await app.inject({ url: `/stats/${demo.siteId}?lang=en`, headers: { 'api-key': demo.key } });
  t.equal(stats.statusCode, 200);
  const byType = new Map(stats.json().data.map((r: any) => [r.type_of_test, r]));
  const retestResults = await db.selectFrom('test_results').select(['type_of_test', 'test_date']).where('run_id', '=', retest.id).orderBy('type_of_test').execute();
  t.same(retestResults.map((r) => r.type_of_test), [18, 30]);
  for (const r of retestResults) t.equal((byType.get(r.type_of_test) as any).test_date, r.test_date.toISOString(), `type ${r.type_of_test}: the re-test is the latest result`);
  t.equal((byType.get(101) as any).test_date, lh.test_date.toISOString(), 'types not re-tested keep their first result');
  const quota = await app.inject({ url: '/quota/', headers: { 'api-key': demo.key, 'site-id': String(demo.siteId) } });
  t.same({ used: quota.json().used, available: quota.json().available, monthly_quota: quota.json().monthly_quota }, { used: 2, available: 198, monthly_quota: 200 });

  // A second start reuses the site and the key, and does not test again.
  const again = await startDemo(db, dataDir);
  t.teardown(() => again.close());
  t.equal(again.siteId, demo.siteId);
  t.equal(again.key, demo.key);
  t.equal(Number((await db.selectFrom('test_runs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 2, 'the first run and the re-test; no new first-start run');
});

t.test('a job over its hard time limit fails the run; the guard refuses a loopback page not allowlisted', async (t) => {
  const { db, url } = await buildTestApi(t);
  // A site that never answers in time, and another on loopback that is not allowlisted.
  const world = await testWorld();
  const slow = await world.site('langsam.test', {
    handler: (_req, res) => {
      const timer = setTimeout(() => res.end('late'), 60_000);
      res.on('close', () => clearTimeout(timer));
    },
  });
  const other = await world.site('annan.test');
  t.teardown(() => Promise.all([slow.close(), other.close()]));
  const slowUrl = slow.url;

  const site = await db.insertInto('sites').values({ title: 'slow', url: slowUrl }).returning('id').executeTakeFirstOrThrow();
  const { queueRun } = await import('../../core/store/runs.js');
  const worker = await startWorker({
    db, connectionString: url, pool: testBrowserPool(), guard: world.guard([slow.origin]),
    registry: new PluginRegistry(builtins), concurrency: 1, jobTimeoutMs: 3_000, schedule: false,
  });
  t.teardown(() => worker.stop());
  const slowRun = await queueRun(db, { siteId: site.id, url: slowUrl });
  const failed = await waitForRun(db, slowRun, 60_000);
  t.equal(failed.status, 'failed');
  t.match(failed.error, /longer than 3000 ms/);

  const blockedRun = await queueRun(db, { siteId: site.id, url: other.url });
  const blocked = await waitForRun(db, blockedRun, 60_000);
  t.equal(blocked.status, 'failed');
  t.equal(blocked.error, `The address annan.test resolves to ${other.address}, which is not allowed as a test target`);
  const jobs = (await jobsAtRest(db, 30_000)).map(({ id, attempts, last_error }) => ({ id, attempts, last_error }));
  t.same(jobs, [{ id: '1', attempts: 2, last_error: `run ${slowRun} took longer than 3000 ms` }], 'the timed-out job failed only after its last attempt; the blocked one is not retried');
});

t.test('the crontab queues a daily test of every followed site', async (t) => {
  const items = parseCrontab(CRONTAB);
  t.equal(items.length, 1);
  t.equal(items[0].task, 'schedule_followed_sites');
  t.same([items[0].match], [items[0].match]);
  const { db } = await buildTestApi(t);
  const { scheduleFollowedSitesTask } = await import('../../runners/tasks/schedule-followed-sites.js');
  await db.insertInto('sites').values([
    { title: 'a', url: 'https://a.example/', followed: true },
    { title: 'b', url: 'https://b.example/', followed: false },
    { title: 'c', url: 'https://c.example/', followed: true },
  ]).execute();
  const logs: string[] = [];
  await scheduleFollowedSitesTask(db)({}, { logger: { info: (m: string) => logs.push(m) } } as any);
  const runs = await db.selectFrom('test_runs').select(['url', 'private', 'status']).orderBy('id').execute();
  t.same(runs, [
    { url: 'https://a.example/', private: false, status: 'queued' },
    { url: 'https://c.example/', private: false, status: 'queued' },
  ]);
  const jobs = await db.selectFrom('graphile_worker.jobs' as any).select(['task_identifier'] as any).execute();
  t.same(jobs, [{ task_identifier: 'run_tests' }, { task_identifier: 'run_tests' }]);
  t.same(logs, ['queued 2 followed sites']);
});

t.test('the browser pool relaunches Chromium after a crash', async (t) => {
  const { BrowserPool } = await import('../../runners/browser-pool.js');
  const { findChromium } = await import('../../core/config.js');
  const pool = new BrowserPool(findChromium());
  t.teardown(() => pool.close());
  const first = await pool.acquire();
  t.equal(pool.launches, 1);
  t.equal(await pool.acquire(), first, 'the same Chromium serves the next job');
  first.process()!.kill('SIGKILL');
  await new Promise((r) => first.once('disconnected', r));
  const second = await pool.acquire();
  t.not(second, first);
  t.equal(pool.launches, 2);
  const page = await second.newPage();
  t.equal(await page.evaluate(() => 1 + 1), 2, 'the new Chromium works');
  const missing = new BrowserPool(null);
  await t.rejects(missing.acquire(), { code: 'CHROMIUM_MISSING', message: /apt-get install chromium/ });
});
