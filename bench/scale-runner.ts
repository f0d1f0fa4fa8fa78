/**
 * The scale bench's simulated runners (bench/scale.ts): one Node process holding many runners,
 * each the real runner code (runners/worker.ts startWorker: graphile-worker's test and delivery
 * pools, the run_tests task, executeRun and saveRunResults, the heartbeat, webhook delivery) with
 * the pools `webperf runner` opens (runners/database.ts queryPool, WEBPERF_WORKER_POOL_MAX), and
 * only the page test replaced: every active type's plugin answers what it answered on the demo
 * page (bench/scale-record.ts), after a wait as long as a page test.
 *
 * Sharing the process changes nothing PostgreSQL sees: each runner has its own pools, so its own
 * connections (named bench-runner-N in pg_stat_activity) and its own LISTEN, heartbeat row and
 * worker ids, as a process of its own would. What is shared is Node's: one event loop (a busy one
 * delays a runner's next query, as a loaded machine would), the modules loaded once, one
 * Prometheus registry. Run as a child of the bench: `node dist/bench/scale-runner.js`; it takes
 * its orders and reports over the IPC channel.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Runner } from 'graphile-worker';
import { loadConfig } from '../core/config.js';
import { createDb, type Db } from '../core/db/database.js';
import { TargetGuard } from '../core/net/target-guard.js';
import { definePlugin, type TestPlugin } from '../core/plugin-api.js';
import { loadPlugins, PluginRegistry } from '../core/registry.js';
import type { BrowserPool } from '../runners/browser-pool.js';
import { queryPool } from '../runners/database.js';
import { tolerateBrowserCrashAndDatabaseOutageRejections } from '../runners/tolerated-rejections.js';
import { startWorker } from '../runners/worker.js';
import { readRecordedPageTest, type RecordedPageTest } from './scale-record.js';

/** Orders from the bench. */
export type RunnerOrder = { start: { url: string; outcomesFile: string; pageMs: number } } | { add: { count: number; firstIndex: number } } | { stop: true };

/** Reports to the bench: each run_tests job as it was taken (PostgreSQL's clock), log lines of note. */
export type RunnerReport = { alive: true } | { ready: true } | { added: number } | { taken: { at: number; waitMs: number }[] } | { errors: string[] } | { stopped: true };

/** Every active type's plugin, answering as on the demo page after `pageMs` (the page test's time). */
export async function replayingRegistry(recorded: RecordedPageTest, pageMs: number): Promise<PluginRegistry> {
  const real = (await loadPlugins()).select(null);
  const byType = new Map(recorded.results.map((r) => [r.typeOfTest, r]));
  return new PluginRegistry(real.map((p): TestPlugin => {
    const answer = byType.get(p.meta.id);
    return definePlugin({
      // Needs no page: the run loads none, and every type waits out the page test at once.
      meta: { ...p.meta, needsPage: false, requiredArtifacts: [], requires: undefined, timeoutMs: pageMs + 30_000 },
      async run(_artifacts, context) {
        await delay(pageMs, undefined, { signal: context.signal });
        if (!answer?.result) throw new Error(answer?.error ?? `type ${p.meta.id} was not recorded`);
        return structuredClone(answer.result);
      },
    });
  }));
}

/** A browser pool that is never asked for a page. */
const noBrowser = { acquire: async () => null, close: async () => {} } as unknown as BrowserPool;

async function main(): Promise<void> {
  const send = (report: RunnerReport) => process.send?.(report);
  const errors: string[] = [];
  const log = (line: string) => errors.push(line);
  tolerateBrowserCrashAndDatabaseOutageRejections(log);
  let setup: { url: string; registry: PluginRegistry } | null = null;
  const runners: { worker: Runner; db: Db }[] = [];
  let taken: { at: number; waitMs: number }[] = [];
  const flush = setInterval(() => {
    if (taken.length) send({ taken });
    if (errors.length) send({ errors: errors.splice(0) });
    taken = [];
  }, 1_000);
  // As `webperf runner` at concurrency 1 configures itself (no environment given: the defaults).
  const config = loadConfig({ NODE_ENV: 'production' });
  process.on('message', async (order: RunnerOrder) => {
    if ('start' in order) {
      const recorded = await readRecordedPageTest(order.start.outcomesFile);
      setup = { url: order.start.url, registry: await replayingRegistry(recorded, order.start.pageMs) };
      send({ ready: true });
    } else if ('add' in order && setup) {
      const { url, registry } = setup;
      await Promise.all(Array.from({ length: order.add.count }, async (_, i) => {
        const u = new URL(url);
        u.searchParams.set('application_name', `bench-runner-${order.add.firstIndex + i}`);
        const db = createDb(u.href, queryPool(config, { api: false, log }));
        const worker = await startWorker({
          db, connectionString: u.href, pool: noBrowser, guard: new TargetGuard(['127.0.0.0/8']), registry,
          concurrency: config.concurrency, deliveryConcurrency: config.deliveryConcurrency, jobTimeoutMs: config.jobTimeoutMs,
          heartbeatMs: config.heartbeatMs, staleAfterMs: config.staleAfterMs, workerPoolMax: config.pools.workerMax,
          idleTimeoutMs: config.pools.idleTimeoutMs, schedule: false, log,
        });
        worker.events.on('job:start', ({ job }) => {
          if (job.task_identifier !== 'run_tests' || !job.locked_at) return;
          const lockedAt = new Date(job.locked_at).getTime();
          taken.push({ at: lockedAt, waitMs: lockedAt - new Date(job.run_at).getTime() });
        });
        worker.events.on('job:error', ({ error, job }) => log(`job ${job.id} (${job.task_identifier}): ${error instanceof Error ? error.message : String(error)}`));
        runners.push({ worker, db });
      }));
      send({ added: runners.length });
    } else if ('stop' in order) {
      clearInterval(flush);
      await Promise.all(runners.map(async ({ worker, db }) => {
        await worker.stop().catch(() => {});
        await db.destroy().catch(() => {});
      }));
      send({ stopped: true });
      process.exit(0);
    }
  });
  send({ alive: true });
}

if (process.send) void main();
