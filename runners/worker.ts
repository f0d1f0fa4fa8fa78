/**
 * graphile-worker wiring: the task list, the crontab and the runner.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { makeWorkerUtils, parseCrontab, run, type Logger, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { CruxSettings } from '../core/audit/crux.js';
import { WORKER_POOL_MAX } from '../core/config.js';
import { retryWhileUnavailable, type Db } from '../core/db/database.js';
import { SparePage } from '../core/gather/guarded-context.js';
import { lighthouseModules } from '../core/gather/lighthouse-modules.js';
import type { TargetGuard } from '../core/net/target-guard.js';
import type { PluginRegistry } from '../core/registry.js';
import type { BrowserPool } from './browser-pool.js';
import { startHeartbeat } from './heartbeat.js';
import { jobsLockedBy, restoreCrashedAttempts, unlockJobs } from '../core/store/jobs.js';
import { runTestsTask, type RunTestsDeps } from './tasks/run-tests.js';
import { runAuditTask } from './tasks/run-audit.js';
import { CRONTAB, scheduleFollowedSitesTask } from './tasks/schedule-followed-sites.js';
import { deliverWebhookTask } from './tasks/deliver-webhook.js';
import { DELIVER_TASK } from '../core/store/webhooks.js';
import { quietLogger, runWorkerMigrations, withoutListening, workerPgPool } from './worker-schema.js';

export { quietLogger, runWorkerMigrations };

export interface WorkerDeps {
  db: Db;
  connectionString: string;
  pool: BrowserPool;
  guard: TargetGuard;
  registry: PluginRegistry;
  /** Test jobs (run_tests, run_audit) at once. */
  concurrency: number;
  /** Webhook deliveries at once, in a pool of their own (default DELIVERY_CONCURRENCY). */
  deliveryConcurrency?: number;
  /**
   * Connections of the runner's graphile-worker pool (default WORKER_POOL_MAX): one listens for
   * new test jobs; the others fetch and complete the jobs of both worker pools and serve the
   * heartbeat's unlocks. At least 2.
   */
  workerPoolMax?: number;
  /** An idle connection of that pool is closed after this long (default 10 s). */
  idleTimeoutMs?: number;
  jobTimeoutMs: number;
  /** How often the runner announces it is alive (and looks for silent runners' jobs). */
  heartbeatMs?: number;
  /** A runner silent this long is dead: its jobs are unlocked. */
  staleAfterMs?: number;
  /** Run the daily schedule too (one scheduler per installation is enough, more are harmless). */
  schedule?: boolean;
  logger?: Logger;
  /** Where the supervision says why it starts a new worker pool (default: the logger's errors). */
  log?: (line: string) => void;
  onStored?: RunTestsDeps['onStored'];
  /** CrUX settings for the audits' field data (none: the audits say it is not available). */
  crux?: CruxSettings;
}

export function taskList(deps: WorkerDeps & { spare?: SparePage }): TaskList {
  return {
    run_tests: runTestsTask(deps) as TaskList[string],
    schedule_followed_sites: scheduleFollowedSitesTask(deps.db) as TaskList[string],
    [DELIVER_TASK]: deliverWebhookTask(deps) as TaskList[string],
    run_audit: runAuditTask({ ...deps, crux: deps.crux ?? { apiKey: null, endpoint: '' } }) as TaskList[string],
  };
}

/** First and longest wait before a worker pool that ended by itself is started again. */
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;
/**
 * How long a job whose end was announced may stay locked by us before its end counts as lost:
 * 2 heartbeats, at least 5 s, so that a completion merely in flight is never touched.
 */
export function lostEndGraceMs(heartbeatMs: number): number {
  return Math.max(2 * heartbeatMs, 5_000);
}

/**
 * Starts the runner's two graphile-worker pools under supervision, on one heartbeat:
 *
 * - the test pool (`concurrency` workers): run_tests, run_audit and the daily schedule;
 * - the delivery pool (`deliveryConcurrency` workers, default DELIVERY_CONCURRENCY): deliver_webhook
 *   only. graphile-worker fetches only the jobs whose task is in a pool's task list, so a slow or
 *   hanging receiver (each attempt waits up to its 10 s timeout) holds a delivery worker, never a
 *   test slot: deliveries neither block nor slow the tests (test/runners/delivery-pool.test.ts).
 *
 * The supervision of each pool covers two ways graphile-worker (0.17) can fail to record a job's
 * end while the database is away:
 *
 * - Non-batched completion (ours): its worker calls completeJob/failJob without awaiting them and
 *   retries only a few error codes, so a refused or cut connection is an unhandled rejection
 *   (let pass by the runner process, tolerated-rejections.ts) and the job row stays locked by our
 *   live pool, which graphile-worker frees only after 4 hours and our heartbeat never (the pool is
 *   announced alive). So the jobs our workers run are tracked (`job:start`, `job:complete`), and
 *   every heartbeat period the jobs still locked by our pool that none of our workers runs, and
 *   whose end was announced more than lostEndGraceMs ago, are unlocked, those jobs only (the
 *   pool's other workers are running theirs); a job whose lost end was a success gets back the
 *   attempt it would not have cost. While the database is still away this simply fails and is
 *   tried again next period. test/chaos/faults-completion.test.ts proves it with a real runner.
 * - Batched completion (not enabled, see below) turns the same failure into the end of the whole
 *   worker pool, and nothing would start it again: the runner would stay up doing nothing. So
 *   whenever a pool ends without our asking, the reason is logged and a new pool is started
 *   (after 1 s, doubling to 30 s while the database is still away); the jobs the ended pool still
 *   held are then unlocked (the heartbeat stops announcing its id, so it would unlock them too,
 *   later).
 *
 * Either way the job whose end was lost runs again. A `run_tests` job finds its run stored and
 * stores, notifies and charges nothing (executeRun returns for a `done` run; credits are charged
 * when an order is placed); `run_audit` returns for a `done` audit (executeAudit);
 * `deliver_webhook` sends nothing for an attempt already recorded.
 * The returned Runner stays valid across restarts: `stop()` ends both pools and their
 * supervision, and `promise` settles then; `events` carries both pools' events.
 */
export async function startWorker(deps: WorkerDeps): Promise<Runner> {
  const logger = deps.logger ?? quietLogger();
  const log = deps.log ?? ((line: string) => logger.error(line));
  const events = new EventEmitter() as WorkerEvents;
  const stopped = new AbortController();
  const state = { stopping: false };
  // One connection pool for graphile-worker, shared by both worker pools and the heartbeat: the
  // test pool's LISTEN connection and, for the rest, connections taken for a query and given back
  // (README, "Scale-out: the connection budget"). Ended, awaited, once both pools and the heartbeat
  // have ended: a completion graphile-worker did not await may still be on the wire until then.
  const pgPool = workerPgPool(deps.connectionString, Math.max(2, deps.workerPoolMax ?? WORKER_POOL_MAX), logger, { idleTimeoutMs: deps.idleTimeoutMs, say: log });
  const ctx: PoolContext = { deps, logger, log, events, signal: stopped.signal, state, pgPool };
  // A runner loads pages: Lighthouse's modules are loaded before it takes a job, so that loading
  // them (seconds of this process's event loop) never stalls an API answered beside a run.
  await lighthouseModules();
  // The test jobs' next page load finds its browser context and page open (SparePage).
  const spare = new SparePage();
  const all = taskList({ ...deps, spare });
  const { [DELIVER_TASK]: deliver, ...testTasks } = all;
  const endPgPool = () => Promise.race([pgPool.end().catch(() => {}), delay(10_000, undefined, { ref: false })]);
  const pools: Awaited<ReturnType<typeof supervisedPool>>[] = [];
  let heartbeat: Awaited<ReturnType<typeof startHeartbeat>>;
  const heartbeatMs = deps.heartbeatMs ?? 15_000;
  try {
    pools.push(await supervisedPool(ctx, { name: 'test', concurrency: deps.concurrency, taskList: testTasks, cron: deps.schedule !== false, listen: true }));
    // Deliveries are found by polling (DELIVERY_POLL_MS): see withoutListening.
    pools.push(await supervisedPool(ctx, { name: 'delivery', concurrency: deps.deliveryConcurrency ?? DELIVERY_CONCURRENCY, taskList: { [DELIVER_TASK]: deliver }, cron: false, listen: false }));
    heartbeat = await untilConnected(ctx, 'start the heartbeat', () => startHeartbeat({
      db: deps.db,
      pgPool,
      intervalMs: heartbeatMs,
      staleMs: deps.staleAfterMs ?? 60_000,
      workerIds: () => pools.flatMap((p) => [...p.workerIds]),
      logger,
    }));
  } catch (err) {
    state.stopping = true;
    stopped.abort();
    await Promise.all(pools.map((p) => p.current().stop().catch(() => {})));
    await Promise.all(pools.map((p) => p.supervision));
    await spare.close();
    await endPgPool();
    throw err;
  }
  const graceMs = lostEndGraceMs(heartbeatMs);
  let sweeping: Promise<void> = Promise.resolve();
  const sweep = setInterval(() => {
    sweeping = sweeping.then(async () => {
      for (const pool of pools) await pool.releaseLostEnds(graceMs);
    });
  }, heartbeatMs);
  // A runner stopped in an orderly way announces nothing more and leaves no heartbeat behind.
  const promise = Promise.all(pools.map((p) => p.supervision)).then(() => {}).finally(async () => {
    clearInterval(sweep);
    await sweeping;
    await heartbeat.stop();
    await spare.close();
    await endPgPool();
  });
  const end = async (how: (runner: Runner) => Promise<void>) => {
    if (!state.stopping) {
      state.stopping = true;
      stopped.abort();
      await Promise.all(pools.map((p) => how(p.current()).catch(() => {})));
    }
    await promise;
  };
  return {
    stop: (reason?: string) => end((runner) => runner.stop(reason)),
    kill: (reason?: string) => end((runner) => runner.kill(reason)),
    addJob: (...args) => pools[0].current().addJob(...args),
    get promise() {
      return promise;
    },
    events,
  };
}

/** Webhook delivery workers per runner: deliveries wait on the network, not on the CPU. */
export const DELIVERY_CONCURRENCY = 4;

/**
 * How often an idle worker looks for a job: a test worker is also woken at once by the NOTIFY of a
 * job queued (its pool listens); a delivery worker only polls (its pool does not listen).
 */
export const TEST_POLL_MS = 1_000;
export const DELIVERY_POLL_MS = 2_000;

/** First and longest wait between attempts to start while the database cannot be had. */
/**
 * `start()`, tried again while no database connection can be had, with a log line each time; any
 * other failure, or the runner's stop, ends the attempts.
 */
function untilConnected<T>(ctx: PoolContext, what: string, start: () => Promise<T>): Promise<T> {
  return retryWhileUnavailable(start, {
    onWait: (err, waitMs) => ctx.log(`runner: could not ${what}: ${err instanceof Error ? err.message : String(err)}; trying again in ${(waitMs / 1000).toFixed(1)} s`),
    stopped: () => ctx.state.stopping,
    sleep: (ms) => sleep(ms, ctx.signal),
  });
}

/** What a runner's pools share. */
interface PoolContext {
  deps: WorkerDeps;
  logger: Logger;
  log: (line: string) => void;
  /** The runner's events: every pool's events are emitted here too. */
  events: WorkerEvents;
  /** Aborted when the runner stops. */
  signal: AbortSignal;
  state: { stopping: boolean };
  /** The runner's one pool for graphile-worker (see startWorker). */
  pgPool: import('pg').Pool;
}

/**
 * One graphile-worker pool under supervision (see startWorker): started again whenever it ends
 * without being asked, with the jobs it held released; the jobs its workers announced ended but
 * whose end was never recorded released by `releaseLostEnds`.
 */
async function supervisedPool(ctx: PoolContext, spec: { name: string; concurrency: number; taskList: TaskList; cron: boolean; listen: boolean }) {
  const { deps, logger, log } = ctx;
  // The ids that jobs.locked_by may hold: graphile-worker 0.17 locks jobs with the worker pool's
  // id; the workers' own ids are announced too, should a version lock per worker again.
  const workerIds = new Set<string>();
  // This pool's own events (so its pool:create and job events are its own), all of them passed on
  // to the runner's listeners too.
  const events = new EventEmitter() as WorkerEvents;
  type Emit = (name: string, ...args: unknown[]) => boolean;
  const emitHere = events.emit.bind(events) as Emit;
  const emitToRunner = ctx.events.emit.bind(ctx.events) as Emit;
  events.emit = ((name: string, ...args: unknown[]) => {
    const heard = emitHere(name, ...args);
    return emitToRunner(name, ...args) || heard;
  }) as WorkerEvents['emit'];
  let createdPool: string | null = null;
  events.on('pool:create', ({ workerPool }) => {
    createdPool = workerPool.id;
    workerIds.add(workerPool.id);
  });
  events.on('worker:create', ({ worker }) => void workerIds.add(worker.workerId));
  events.on('worker:stop', ({ worker }) => void workerIds.delete(worker.workerId));
  // The jobs our workers are running, and when (and how) the others announced their end: the
  // record of that end is written after the announcement, and may be lost (see startWorker).
  const runningJobs = new Set<number>();
  const endedJobs = new Map<number, { at: number; lockedAt: Date | null; failed: boolean; task: string }>();
  events.on('job:start', ({ job }) => {
    runningJobs.add(Number(job.id));
    endedJobs.delete(Number(job.id));
  });
  events.on('job:complete', ({ job, error }) => {
    runningJobs.delete(Number(job.id));
    // The lock's time tells this run's lock from a later one of the same job.
    endedJobs.set(Number(job.id), { at: Date.now(), lockedAt: job.locked_at ? new Date(job.locked_at) : null, failed: error != null, task: job.task_identifier });
  });
  // Our own connection pool, not one graphile-worker makes from the connection string: it ends
  // those without waiting (its releaser does not await pgPool.end()), so a job's completion it
  // does not await either could still be on the wire when stop() returned; ours is ended, and
  // awaited, once the runner has stopped (startWorker).
  const pgPool = spec.listen ? ctx.pgPool : withoutListening(ctx.pgPool);
  const start = async () => {
    createdPool = null;
    const runner = await run({
      pgPool,
      events,
      concurrency: spec.concurrency,
      noHandleSignals: true,
      pollInterval: spec.listen ? TEST_POLL_MS : DELIVERY_POLL_MS,
      taskList: spec.taskList,
      parsedCronItems: spec.cron ? parseCrontab(CRONTAB) : [],
      logger,
      // Not batched completion (`preset: { worker: { completeJobBatchDelay: 0, ... } }`): with it,
      // test/chaos/faults-runners.test.ts saw a job's attempts restored under its running runner
      // (RELIABILITY.md, Faults). A completion lost without it is released by releaseLostEnds.
    });
    return { runner, poolId: createdPool as string | null };
  };

  let current = await untilConnected(ctx, `start the ${spec.name} worker pool`, start);
  const supervise = async (): Promise<void> => {
    for (;;) {
      const ended = await current.runner.promise.then(() => 'ended', (err: unknown) => `ended with ${err instanceof Error ? err.message : String(err)}`);
      // The ended pool's jobs belong to nobody now: the heartbeat no longer announces it.
      if (current.poolId) workerIds.delete(current.poolId);
      // Its workers are gone (releaseJobsOf below frees what they held).
      runningJobs.clear();
      endedJobs.clear();
      if (ctx.state.stopping) return;
      log(`runner: the ${spec.name} worker pool ${current.poolId ?? ''} ${ended} without being asked to stop (graphile-worker gives up when it cannot record a job's end, e.g. while the database is down); starting a new one`);
      for (let waitMs = RESTART_MIN_MS; ; waitMs = Math.min(waitMs * 2, RESTART_MAX_MS)) {
        await sleep(waitMs, ctx.signal);
        if (ctx.state.stopping) return;
        try {
          const ended = current.poolId;
          current = await start();
          log(`runner: a new ${spec.name} worker pool ${current.poolId ?? ''} runs`);
          if (ended) await releaseJobsOf(ended);
          break;
        } catch (err) {
          log(`runner: could not start a new ${spec.name} worker pool (${err instanceof Error ? err.message : String(err)}); trying again`);
        }
      }
      // stop() came while the new pool was starting: it is stopped at once (the loop then returns).
      if (ctx.state.stopping) await current.runner.stop().catch(() => {});
    }
  };
  // The jobs the ended pool still holds (the one whose completion was lost) are unlocked at once,
  // as the heartbeat would do for a dead runner after staleAfterMs; should this fail, it still will.
  const releaseJobsOf = async (poolId: string) => {
    try {
      const jobs = await jobsLockedBy(deps.db, [poolId]);
      if (jobs.length === 0) return;
      const utils = await makeWorkerUtils({ pgPool: ctx.pgPool, logger });
      try {
        await utils.forceUnlockWorkers([poolId]);
      } finally {
        await utils.release();
      }
      const restored = await restoreCrashedAttempts(deps.db, jobs);
      log(`runner: unlocked ${jobs.length} job(s) of the ended worker pool ${poolId}` + (restored ? `; ${restored} got back the attempt it lost` : ''));
    } catch (err) {
      log(`runner: could not unlock the jobs of the ended worker pool ${poolId} (${err instanceof Error ? err.message : String(err)}); the heartbeat will`);
    }
  };
  // The jobs whose end our workers announced but that are still locked by our pool after the grace
  // period: their completion was lost (see startWorker). Entries of ended jobs no longer locked are
  // forgotten, so the map stays bounded; one that ended while the query ran is kept for next time.
  const releaseLostEnds = async (graceMs: number) => {
    const since = Date.now();
    const ours = [...workerIds];
    try {
      const locked = await jobsLockedBy(deps.db, ours);
      const stillLocked = new Set(locked);
      for (const [id, ended] of endedJobs) if (!stillLocked.has(id) && ended.at < since) endedJobs.delete(id);
      const lost = new Map(locked.flatMap((id) => {
        const ended = endedJobs.get(id);
        return !runningJobs.has(id) && ended?.lockedAt && ended.at <= since - graceMs ? [[id, { ...ended, lockedAt: ended.lockedAt }] as const] : [];
      }));
      const released = await unlockJobs(deps.db, [...lost].map(([id, ended]) => ({ id, lockedAt: ended.lockedAt })), ours);
      // (A released job may already run again here, its entry replaced: the one read above is used.)
      for (const id of released) {
        const ended = lost.get(id)!;
        if (endedJobs.get(id)?.at === ended.at) endedJobs.delete(id);
        // A lost success would not have cost the attempt (a lost failure would have): given back
        // when it was the last, or the job could never run again.
        const restored = ended.failed ? 0 : await restoreCrashedAttempts(deps.db, [id]);
        log(`runner: released job ${id} (${ended.task}): its ${ended.failed ? 'failure' : 'success'} ${((Date.now() - ended.at) / 1000).toFixed(1)} s ago was never recorded (database unavailable then); it runs again` + (restored ? ', with the attempt it lost given back' : ''));
      }
    } catch (err) {
      // The database is still away: tried again next period.
      logger.debug(`runner: could not look for jobs whose end was lost (${err instanceof Error ? err.message : String(err)})`);
    }
  };
  return { workerIds, supervision: supervise(), current: () => current.runner, releaseLostEnds };
}

/** Waits `ms`, or less when `signal` aborts (never rejects). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => {});
}
