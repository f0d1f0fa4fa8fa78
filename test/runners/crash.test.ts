/**
 * Crash-proof runs: a runner killed with SIGKILL mid-run has its job picked up by another runner
 * (heartbeats, forceUnlockWorkers) and the run is stored exactly once; its Chromium does not
 * outlive it; a job over its time limit stores nothing from the late attempt; a start ends the
 * Chromium an earlier crash left behind. Real child processes, real Chromium, real PostgreSQL;
 * the sites are https on port 443 under their names in the test world, and the runner processes
 * are pointed at it as an operator would configure them (world.env(): its DNS server, the suite's
 * CA).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from '../../core/db/kysely.js';
import t from 'tap';
import { PROJECT_ROOT, findChromium } from '../../core/config.js';
import type { Db } from '../../core/db/database.js';
import { meta as analyticsMeta } from '../../plugins/analytics/meta.js';
import { definePlugin } from '../../core/plugin-api.js';
import { PluginRegistry, loadPlugins } from '../../core/registry.js';
import { createKey } from '../../core/store/keys.js';
import { queueRun } from '../../core/store/runs.js';
import { cleanupOrphanedChromium } from '../../runners/browser-pool.js';
import { startWorker } from '../../runners/worker.js';
import { running, until } from '../../chaos/processes.js';
import { buildTestApi } from '../helpers/api.js';
import { fixtureSite, testBrowserPool } from '../helpers/fixture-artifacts.js';
import { seedLevel, seedSite } from '../helpers/seed.js';
import { jobsAtRest } from '../helpers/runner.js';
import { testWorld } from '../helpers/world/index.js';

const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

async function finished(db: Db, runId: number, ms: number) {
  return until(`run ${runId} finished`, ms, async () => {
    const run = await db.selectFrom('test_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    return run.status === 'done' || run.status === 'failed' ? run : undefined;
  });
}

/** A runner child process (`webperf runner`), ready when it prints its last start line. */
async function startRunner(env: Record<string, string>): Promise<{ child: ChildProcess; exited: Promise<unknown>; lines: string[] }> {
  const child = spawn(process.execPath, [BIN, 'runner'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise((r) => child.on('exit', r));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      lines.push(...chunk.toString().split('\n'));
      if (lines.some((l) => l.includes('Ctrl-C stops everything'))) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => lines.push(`stderr: ${chunk}`));
    void exited.then(() => reject(new Error(`the runner exited:\n${lines.join('\n')}`)));
  });
  return { child, exited, lines };
}

t.test('a runner killed mid-run: another runner finishes the run exactly once, and the killed Chromium is gone', async (t) => {
  const { app, db, url } = await buildTestApi(t);
  // The page's document is held back until the test lets go, so the first runner is surely mid-run.
  let hold = true;
  let held = 0;
  const world = await testWorld();
  const site = await world.site('held.test', {
    handler: (req, res) => {
      if (req.url !== '/') {
        res.writeHead(404).end();
        return;
      }
      const answer = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><head><title>Held</title></head><body><main><h1>Held</h1><p>A page.</p></main></body></html>');
      if (!hold) return answer();
      held++;
    },
  });
  t.teardown(() => site.close());
  const siteUrl = site.url;

  await seedLevel(db, 'gold', 100);
  const siteId = await seedSite(db, { title: 'Held', url: siteUrl, premiumLevel: 'gold' });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  const headers = { 'api-key': key, 'site-id': String(siteId) };
  const order = await app.inject({ method: 'POST', url: '/retest/', headers: { ...headers, testnums: '[18,30]' } });
  t.equal(order.statusCode, 200, order.body);
  t.equal(order.json().credits, 2);
  const runId: number = order.json().run_id;

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-crash-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  // The operator allowlists the site's origin; names come from the world's DNS, its CA is trusted.
  const env = world.env({
    DATABASE_URL: url, WEBPERF_DATA_DIR: dataDir, WEBPERF_ALLOW_TARGETS: site.origin, WEBPERF_DEMO: '0',
    WEBPERF_HEARTBEAT_MS: '1000', WEBPERF_STALE_AFTER_MS: '5000', WEBPERF_JOB_TIMEOUT_MS: '90000', LOG_LEVEL: 'warn',
  });
  const first = await startRunner(env);
  t.teardown(() => first.child.kill('SIGKILL'));
  await until('the first runner loads the page', 60_000, () => held > 0);
  const run = await db.selectFrom('test_runs').select(['status']).where('id', '=', runId).executeTakeFirstOrThrow();
  t.equal(run.status, 'running');
  const heartbeats = await db.selectFrom('runner_heartbeats').select(['pid', 'worker_ids']).execute();
  t.same(heartbeats.map((h) => h.pid), [first.child.pid], 'the runner announces itself');
  const job = await db.selectFrom('graphile_worker.jobs' as any).select(['locked_by', 'attempts'] as any).executeTakeFirstOrThrow() as any;
  t.match(job.locked_by, /^pool-/);
  t.ok(heartbeats[0].worker_ids.includes(job.locked_by), 'with the lock id of the job it holds');
  t.equal(job.attempts, 1);
  const notes = readdirSync(path.join(dataDir, 'chromium'));
  t.same(notes, [`${first.child.pid}.json`], 'the runner notes its Chromium');
  const chromium = JSON.parse(readFileSync(path.join(dataDir, 'chromium', notes[0]), 'utf8')).chromium as number;
  t.ok(running(chromium), 'its Chromium runs');

  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = Date.now();
  await until('the killed runner\'s Chromium ends', 30_000, () => !running(chromium));
  t.pass('no Chromium of the killed runner survives');
  hold = false;

  const second = await startWorker({
    db, connectionString: url, pool: testBrowserPool(), guard: world.guard([site.origin]),
    registry: await loadPlugins(),
    concurrency: 1, jobTimeoutMs: 90_000, schedule: false, heartbeatMs: 1000, staleAfterMs: 5000,
  });
  t.teardown(() => second.stop());
  const done = await finished(db, runId, 120_000);
  t.equal(done.status, 'done', done.error ?? '');
  t.ok(Date.now() - killedAt < 120_000, 'finished within two minutes of the crash');

  const results = await db.selectFrom('test_results').selectAll().where('run_id', '=', runId).orderBy('type_of_test').execute();
  t.same(results.map((r) => r.type_of_test), [18, 30], 'exactly one set of results');
  t.same(results.map((r) => [r.url, r.error]), [[siteUrl, null], [siteUrl, null]], 'both of https://held.test/, without error');
  t.equal(Number((await db.selectFrom('test_results').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 2);
  const monthly = await db.selectFrom('monthly_scores').select(['type_of_score', 'score_sum', 'score_count']).where('site_id', '=', siteId).orderBy('type_of_score').execute();
  const expected = ([['kat-a11y', 'rating_a11y'], ['kat-infosec', 'rating_infosec'], ['kat-perf', 'rating_pagespeed'], ['kat-total', 'rating'], ['kat-webstandard', 'rating_webstandard']] as const)
    .map(([type, column]) => {
      const values = results.map((r) => Number(r[column])).filter((v) => r1(v));
      return { type_of_score: type, score_sum: round(values.reduce((a, b) => a + b, 0)), score_count: values.length };
    })
    .filter((m) => m.score_count > 0);
  t.same(monthly.map((m) => ({ ...m, score_sum: round(Number(m.score_sum)) })), expected, 'monthly averages counted once');
  const orderRow = await db.selectFrom('orders').select(['status']).executeTakeFirstOrThrow();
  t.equal(orderRow.status, 'done');
  const quota = await app.inject({ url: '/quota/', headers });
  t.equal(quota.json().used, 2, 'credits charged once');
  t.same(await jobsAtRest(db, 30_000), [], 'the job is complete');
  const left = await db.selectFrom('runner_heartbeats').select('pid').execute();
  t.same(left.map((h) => h.pid), [process.pid], 'the dead runner\'s heartbeat is forgotten');
});

const r1 = (v: number) => Number.isFinite(v) && v >= 1;
const round = (v: number) => Math.round(v * 1e5) / 1e5;

t.test('a job over its time limit stores nothing from the late attempt; the retry stores once', async (t) => {
  const { db, url } = await buildTestApi(t);
  const site = await fixtureSite('flawed');
  const names = analyticsMeta;
  let calls = 0;
  let lateReturned = false;
  let release!: () => void;
  const timedOut = new Promise<void>((r) => (release = r));
  // The first attempt's plugin outlives the time limit and then returns a result anyway, as a
  // plugin deaf to its signal would: only once its retry is pending.
  const deafOnce = definePlugin({
    // Its own limit is far beyond the job's: the job's time limit is what ends the first attempt.
    meta: { id: 990, names: names.names, descriptions: names.descriptions, active: true, categories: ['a11y'], requiredArtifacts: [], timeoutMs: 600_000 },
    async run() {
      calls++;
      if (calls === 1) {
        await timedOut;
        lateReturned = true;
      }
      return { rating: 4, ratings: { a11y: 4 }, findings: [], summary: { sv: 'Bra', en: 'Good' }, data: {} };
    },
  });
  const siteId = await seedSite(db, { title: 'flawed', url: site.url });
  const worker = await startWorker({
    db, connectionString: url, pool: testBrowserPool(), guard: (await testWorld()).guard([site.origin]),
    registry: new PluginRegistry([deafOnce]), concurrency: 1, jobTimeoutMs: 40_000, schedule: false,
  });
  t.teardown(() => worker.stop());
  const runId = await queueRun(db, { siteId, url: site.url });
  // The job's last error stays while its retry runs; the run's own error is cleared as soon as the
  // retry starts (a window of graphile-worker's ~3 s backoff, too short to poll reliably).
  const between = await until('the first attempt times out', 150_000, async () => {
    const { rows } = await sql<{ attempts: number; last_error: string | null }>`select attempts, last_error from graphile_worker.jobs where task_identifier = 'run_tests'`.execute(db);
    return rows[0]?.last_error ? rows[0] : undefined;
  });
  t.equal(between.last_error, `run ${runId} took longer than 40000 ms`);
  const meanwhile = await db.selectFrom('test_runs').select(['status']).where('id', '=', runId).executeTakeFirstOrThrow();
  t.not(meanwhile.status, 'failed', 'not failed while an attempt is left');
  release();
  const done = await finished(db, runId, 120_000);
  t.equal(done.status, 'done', done.error ?? '');
  t.equal(lateReturned, true, 'the late attempt returned its result');
  t.equal(calls, 2, 'two attempts');
  const results = await db.selectFrom('test_results').select(['type_of_test', 'rating']).where('run_id', '=', runId).execute();
  t.same(results.map((r) => ({ ...r, rating: Number(r.rating) })), [{ type_of_test: 990, rating: 4 }], 'one result: the late attempt stored nothing');
  const monthly = await db.selectFrom('monthly_scores').select(['type_of_score', 'score_count']).where('site_id', '=', siteId).orderBy('type_of_score').execute();
  t.same(monthly, [{ type_of_score: 'kat-a11y', score_count: 1 }, { type_of_score: 'kat-total', score_count: 1 }], 'counted once');
});

t.test('a start ends the Chromium that a dead runner of the same installation left behind, and only that', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-pids-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // An orphan as earlier versions left them: a Chromium in a process group of its own.
  const orphan = spawn(findChromium()!, ['--headless=new', '--no-sandbox', '--disable-gpu', '--remote-debugging-port=0', `--user-data-dir=${path.join(dir, 'profile')}`, 'about:blank'], { detached: true, stdio: 'ignore' });
  t.teardown(() => { try { process.kill(-orphan.pid!, 'SIGKILL'); } catch { /* gone */ } });
  const deadRunner = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => deadRunner.on('exit', r));
  const liveRunner = spawn('sleep', ['60']);
  t.teardown(() => liveRunner.kill('SIGKILL'));
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${deadRunner.pid}.json`), JSON.stringify({ runner: deadRunner.pid, chromium: orphan.pid }));
  await writeFile(path.join(dir, `${liveRunner.pid}.json`), JSON.stringify({ runner: liveRunner.pid, chromium: liveRunner.pid }));
  t.ok(running(orphan.pid!), 'the orphan runs');
  t.same(cleanupOrphanedChromium(dir), [orphan.pid], 'the dead runner\'s Chromium is ended');
  await until('the orphan is gone', 10_000, () => !running(orphan.pid!));
  t.ok(running(liveRunner.pid!), 'a live runner\'s process is left alone');
  t.same(readdirSync(dir).filter((f) => f.endsWith('.json')), [`${liveRunner.pid}.json`]);
});
