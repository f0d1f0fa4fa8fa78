/**
 * Chromium killed (SIGKILL) mid-gather: the attempt fails, the job is retried, the browser pool
 * launches a new Chromium, and the run is stored exactly once. Real runner, Chromium, PostgreSQL.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { findChromium } from '../../core/config.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import { loadPlugins } from '../../core/registry.js';
import { queueRun } from '../../core/store/runs.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { startWorker } from '../../runners/worker.js';
import { running, until } from '../../chaos/processes.js';
import { createTestDb } from '../helpers/db.js';
import { seedSite } from '../helpers/seed.js';

t.test('Chromium killed mid-gather: the job is retried on a relaunched browser and stores its run once', async (t) => {
  const { db, url } = await createTestDb(t);
  let hold = true;
  let held = 0;
  const waiting: http.ServerResponse[] = [];
  const page = '<!doctype html><html lang="en"><head><title>Held</title></head><body><main><h1>Held</h1><p>A page.</p></main></body></html>';
  const site = http.createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    held++;
    if (hold) return void waiting.push(res);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => { site.closeAllConnections(); site.close(() => r()); }));
  const siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;

  const pidDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-chromium-kill-'));
  t.teardown(() => rm(pidDir, { recursive: true, force: true }));
  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH), pidDir);
  t.teardown(() => pool.close());
  const siteId = await seedSite(db, { title: 'Held', url: siteUrl });
  const worker = await startWorker({
    db, connectionString: url, pool, guard: new TargetGuard([new URL(siteUrl).origin]), registry: await loadPlugins(),
    concurrency: 1, jobTimeoutMs: 240_000, schedule: false,
  });
  t.teardown(() => worker.stop());
  const runId = await queueRun(db, { siteId, url: siteUrl, testTypes: [18, 30] });

  await until('Chromium loads the page', 180_000, () => held > 0);
  const chromium = (JSON.parse(readFileSync(path.join(pidDir, `${process.pid}.json`), 'utf8')) as { chromium: number }).chromium;
  t.equal(pool.launches, 1);
  t.ok(running(chromium), 'its Chromium runs, mid-gather');
  process.kill(chromium, 'SIGKILL');
  await until('the killed Chromium is gone', 30_000, () => !running(chromium));
  hold = false;
  for (const res of waiting.splice(0)) res.destroy();

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
  t.equal(pool.launches, 2, 'the pool launched a new Chromium');
  const relaunched = (JSON.parse(readFileSync(path.join(pidDir, `${process.pid}.json`), 'utf8')) as { chromium: number }).chromium;
  t.not(relaunched, chromium);
  t.ok(running(relaunched), 'the new Chromium runs');
  const results = await db.selectFrom('test_results').select(['run_id', 'type_of_test']).orderBy('type_of_test').execute();
  t.same(results, [{ run_id: runId, type_of_test: 18 }, { run_id: runId, type_of_test: 30 }], 'stored once');
  t.same(await db.selectFrom('graphile_worker.jobs' as any).select('id' as any).execute(), [], 'the job is complete');
});
