/**
 * A runner's connection budget (README, "Scale-out: the connection budget"), measured from
 * pg_stat_activity, not read from the pool settings: a real runner at concurrency 1 with the pools
 * `webperf runner` gives it (a query pool of 1, graphile-worker's pool of WORKER_POOL_MAX) holds at
 * most 4 connections while it runs a job, stores it, queues and sends its webhook deliveries and
 * beats; one of them listens; a quiet runner closes its idle ones. And a runner that cannot get a
 * connection (max_connections used up by other clients) waits and tries again: it starts once a
 * connection can be had, its tested page is stored once a slot frees, exactly once, and no job fails.
 *
 * The runner's connections carry an application_name of their own (in the URL, which wins over the
 * pools' own names) so that they can be told from the test's. The full server is one of the test's
 * own (max_connections 20), so that using it up starves no other test file of the run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import t from 'tap';
import { loadConfig, WORKER_POOL_MAX } from '../../core/config.js';
import { createDb } from '../../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../../core/db/embedded.js';
import { sql } from '../../core/db/kysely.js';
import { migrateToLatest } from '../../core/db/migrate.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import { definePlugin, type TestPlugin } from '../../core/plugin-api.js';
import { loadPlugins, PluginRegistry } from '../../core/registry.js';
import { queueRun } from '../../core/store/runs.js';
import { setWebhook } from '../../core/store/webhooks.js';
import type { BrowserPool } from '../../runners/browser-pool.js';
import { queryPool } from '../../runners/database.js';
import { runWorkerMigrations, startWorker } from '../../runners/worker.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { createTestDb } from '../helpers/db.js';
import { jobsAtRest, runEnded } from '../helpers/runner.js';
import { seedSite } from '../helpers/seed.js';

/** Page-less plugins named as two real types are: no Chromium, the run's path through the database unchanged. */
async function pagelessRegistry(gate: () => Promise<void>): Promise<PluginRegistry> {
  const builtins = (await loadPlugins()).all();
  const like = (id: number): TestPlugin['meta'] => {
    const { names, descriptions, categories } = builtins.find((p) => p.meta.id === id)!.meta;
    return { id, names, descriptions, categories, active: true, requiredArtifacts: [], needsPage: false };
  };
  return new PluginRegistry([
    definePlugin({
      meta: like(100),
      async run() {
        await gate();
        return { rating: 4, ratings: {}, findings: [], summary: { sv: 'Bra', en: 'Good' }, data: {} };
      },
    }),
    definePlugin({ meta: like(101), run: () => ({ rating: 3, ratings: {}, findings: [], summary: { sv: 'Godkänd', en: 'Fair' }, data: {} }) }),
  ]);
}

/** A browser pool that is never used: the plugins need no page. */
const noBrowser = { acquire: async () => null, close: async () => {} } as unknown as BrowserPool;


/** The URL with the application_name that marks the runner's connections. */
function named(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.href;
}

/** Samples the connections named `name` every 25 ms until stopped: the most at once, and those listening. */
function sampleConnections(db: ReturnType<typeof createDb>, name: string) {
  let most = 0;
  let listening = 0;
  let samples = 0;
  const counts: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await sql<{ n: number; listening: number }>`
        select count(*)::int as n, count(*) filter (where query like 'LISTEN %')::int as listening
        from pg_stat_activity where application_name = ${name}`.execute(db);
      most = Math.max(most, rows[0].n);
      listening = Math.max(listening, rows[0].listening);
      counts.push(rows[0].n);
      samples++;
      await delay(25);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const sorted = [...counts].sort((a, b) => a - b);
      // What it holds most of the time: the median sample.
      return { most, listening, samples, usual: sorted[Math.floor(sorted.length / 2)] ?? 0 };
    },
  };
}

async function connectionsNamed(db: ReturnType<typeof createDb>, name: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where application_name = ${name}`.execute(db);
  return rows[0].n;
}

t.test('the query pool by process kind: 10 with an API, the test concurrency in a runner alone, which waits for a full server', async (t) => {
  const api = queryPool(loadConfig({}), { api: true });
  t.strictSame([api.max, api.connectTimeoutMs, api.waitForSlots, api.applicationName], [10, undefined, undefined, 'webperf'], 'the API fails fast (503) rather than keep its callers waiting');
  const runner = queryPool(loadConfig({}), { api: false });
  t.strictSame([runner.max, runner.connectTimeoutMs, runner.waitForSlots?.withinMs, runner.applicationName], [1, 30_000, 300_000, 'webperf-runner']);
  t.equal(queryPool(loadConfig({ WEBPERF_CONCURRENCY: '3' }), { api: false }).max, 3);
  t.equal(queryPool(loadConfig({ WEBPERF_CONCURRENCY: '3', WEBPERF_DB_POOL_MAX: '2' }), { api: false }).max, 2, 'WEBPERF_DB_POOL_MAX wins');
  t.equal(queryPool(loadConfig({ WEBPERF_DB_POOL_MAX: '25' }), { api: true }).max, 25);
});

t.test('a runner at concurrency 1 holds at most 4 connections at peak (one listening), and fewer when quiet', async (t) => {
  const { db, url } = await createTestDb(t);
  const hook = await startWebhookReceiver();
  t.teardown(hook.close);
  const siteId = await seedSite(db, { title: 'Kommun', url: 'https://kommun.example/' });
  await setWebhook(db, { siteId, url: hook.url, threshold: null, itemUri: `http://webperf.test/item/${siteId}`, apiVersion: '0.1' });

  const name = 'budget-runner';
  const runnerUrl = named(url, name);
  // As `webperf runner` opens them at concurrency 1 (runners/service.ts queryPool): one query connection.
  const runnerDb = createDb(runnerUrl, { max: 1, idleTimeoutMs: 1_000, connectTimeoutMs: 30_000 });
  t.teardown(() => runnerDb.destroy());
  const sampler = sampleConnections(db, name);
  const worker = await startWorker({
    db: runnerDb, connectionString: runnerUrl, pool: noBrowser, guard: new TargetGuard(['127.0.0.0/8']),
    registry: await pagelessRegistry(() => delay(300)), concurrency: 1, jobTimeoutMs: 60_000, schedule: false,
    heartbeatMs: 5_000, staleAfterMs: 10_000, idleTimeoutMs: 1_000,
  });
  t.teardown(() => worker.stop());

  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await queueRun(db, { siteId, url: 'https://kommun.example/' }));
  for (const runId of runs) t.equal((await runEnded(db, runId, 30_000)).status, 'done', `run ${runId} stored`);
  // Each run stored two results, each result queued a delivery: six sent, by polling.
  const end = Date.now() + 15_000;
  while (hook.received() < 6 && Date.now() < end) await delay(50);
  t.equal(hook.received(), 6, 'every delivery sent');
  const busy = await sampler.stop();
  t.ok(busy.samples > 20, `sampled often (${busy.samples} samples)`);
  t.ok(busy.most <= 4, `at most 4 connections at once while working (most: ${busy.most}, limit: ${WORKER_POOL_MAX} + 1)`);
  t.equal(busy.listening, 1, 'one connection listens (the test pool); the delivery pool polls');

  // Quiet: the idle timeout closes what the heartbeat and the job fetches do not keep busy.
  await delay(2_500);
  const quiet = sampleConnections(db, name);
  await delay(1_500);
  const idle = await quiet.stop();
  // Most of the time; a heartbeat, a poll of each pool and an idle connection not yet closed may
  // still meet for a moment (4, the budget) on a busy machine.
  t.ok(idle.usual <= 3 && idle.most <= 4, `a quiet runner holds fewer (usually ${idle.usual}, most ${idle.most})`);
  t.equal(await jobsAtRest(db, 5_000).then((jobs) => jobs.length), 0, 'no job left or failed');

  await worker.stop();
  for (let i = 0; i < 40 && (await connectionsNamed(db, name)) > 1; i++) await delay(50);
  await runnerDb.destroy();
  for (let i = 0; i < 40 && (await connectionsNamed(db, name)) > 0; i++) await delay(50);
  t.equal(await connectionsNamed(db, name), 0, 'a stopped runner holds none');
});

/** Opens connections to `url` until PostgreSQL refuses one (53300): the slots left, all taken. */
async function takeEverySlot(url: string): Promise<pg.Client[]> {
  const taken: pg.Client[] = [];
  for (;;) {
    const client = new pg.Client({ connectionString: named(url, 'other-client') });
    client.on('error', () => {});
    try {
      await client.connect();
      taken.push(client);
    } catch (err) {
      if ((err as { code?: string }).code !== '53300') throw err;
      return taken;
    }
  }
}

t.test('a runner that cannot get a connection waits and tries again: it starts, and stores its tested page once, once slots free', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-full-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const server = await startEmbeddedPostgres(path.join(dir, 'pg'), { fast: true, maxConnections: 20 });
  t.teardown(() => server.stop());
  await ensureDatabase(server.adminUrl, 'full');
  const url = server.urlFor('full');
  // The test's own connection, kept open: it reads while the others hold every slot.
  const db = createDb(url, { max: 1, idleTimeoutMs: 600_000 });
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  await runWorkerMigrations(url);
  const siteId = await seedSite(db, { title: 'Kommun', url: 'https://kommun.example/' });
  const runnerUrl = named(url, 'full-runner');
  // As `webperf runner` opens it (runners/service.ts queryPool), the idle timeout short.
  const runnerDb = createDb(runnerUrl, { max: 1, idleTimeoutMs: 100, connectTimeoutMs: 30_000, waitForSlots: { withinMs: 60_000 } });
  t.teardown(() => runnerDb.destroy());
  const logs: string[] = [];
  let enterGate: () => void = () => {};
  const inPageTest = new Promise<void>((resolve) => (enterGate = resolve));
  let leaveGate: () => void = () => {};
  const pageTested = new Promise<void>((resolve) => (leaveGate = resolve));
  const registry = await pagelessRegistry(async () => {
    enterGate();
    await pageTested;
  });

  // Every slot is taken as the runner starts: it waits, and starts once one frees.
  let others = await takeEverySlot(url);
  t.ok(others.length > 0, `other clients hold the slots left (${others.length})`);
  const starting = startWorker({
    db: runnerDb, connectionString: runnerUrl, pool: noBrowser, guard: new TargetGuard(), registry,
    concurrency: 1, jobTimeoutMs: 60_000, schedule: false, heartbeatMs: 30_000, staleAfterMs: 60_000, idleTimeoutMs: 100,
    log: (line) => logs.push(line),
  });
  const said = Date.now() + 20_000;
  while (!logs.some((l) => /no connection slot left/.test(l)) && Date.now() < said) await delay(50);
  t.ok(logs.some((l) => /no connection slot left.*too many clients/.test(l)), 'the runner said why it waits', { logs });
  await Promise.all(others.map((c) => c.end()));
  const worker = await starting;
  t.teardown(() => worker.stop());

  // Mid-run: the page is tested while every slot is taken again; the save waits for one.
  const runId = await queueRun(db, { siteId, url: 'https://kommun.example/' });
  await inPageTest;
  // The runner's idle query connection closes (idle timeout 100 ms); the slots it and others free are taken.
  await delay(400);
  others = await takeEverySlot(url);
  leaveGate();
  await delay(2_000);
  const meanwhile = await db.selectFrom('test_runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow();
  t.equal(meanwhile.status, 'running', 'the run waits, not failed, while no connection can be had');
  await Promise.all(others.map((c) => c.end()));

  t.equal((await runEnded(db, runId, 30_000)).status, 'done', 'stored once a slot freed');
  const results = await db.selectFrom('test_results').select('type_of_test').where('run_id', '=', runId).orderBy('type_of_test').execute();
  t.same(results.map((r) => r.type_of_test), [100, 101], 'stored exactly once: one result per type');
  const jobs = await jobsAtRest(db, 10_000);
  t.same(jobs, [], 'the job completed: no attempt failed, nothing queued again');
  const runs = await db.selectFrom('test_runs').select('id').where('site_id', '=', siteId).execute();
  t.equal(runs.length, 1, 'no second run');
});
