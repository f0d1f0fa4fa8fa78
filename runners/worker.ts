/**
 * graphile-worker wiring: the task list, the crontab and the runner.
 */
import { EventEmitter } from 'node:events';
import { parseCrontab, run, type Logger, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { Db } from '../core/db/database.js';
import type { TargetGuard } from '../core/net/target-guard.js';
import type { PluginRegistry } from '../core/registry.js';
import type { BrowserPool } from './browser-pool.js';
import { startHeartbeat } from './heartbeat.js';
import { runTestsTask, type RunTestsDeps } from './tasks/run-tests.js';
import { runAuditTask } from './tasks/run-audit.js';
import { CRONTAB, scheduleFollowedSitesTask } from './tasks/schedule-followed-sites.js';
import { deliverWebhookTask } from './tasks/deliver-webhook.js';
import { quietLogger, runWorkerMigrations } from './worker-schema.js';

export { quietLogger, runWorkerMigrations };

export interface WorkerDeps {
  db: Db;
  connectionString: string;
  pool: BrowserPool;
  guard: TargetGuard;
  registry: PluginRegistry;
  concurrency: number;
  jobTimeoutMs: number;
  /** How often the runner announces it is alive (and looks for silent runners' jobs). */
  heartbeatMs?: number;
  /** A runner silent this long is dead: its jobs are unlocked. */
  staleAfterMs?: number;
  /** Run the daily schedule too (one scheduler per installation is enough, more are harmless). */
  schedule?: boolean;
  logger?: Logger;
  onStored?: RunTestsDeps['onStored'];
  /** CrUX settings for the audits' field data (none: the audits say it is not available). */
  crux?: { apiKey: string | null; endpoint: string };
}

export function taskList(deps: WorkerDeps): TaskList {
  return {
    run_tests: runTestsTask(deps) as TaskList[string],
    schedule_followed_sites: scheduleFollowedSitesTask(deps.db) as TaskList[string],
    deliver_webhook: deliverWebhookTask(deps) as TaskList[string],
    run_audit: runAuditTask({ ...deps, crux: deps.crux ?? { apiKey: null, endpoint: '' } }) as TaskList[string],
  };
}

export async function startWorker(deps: WorkerDeps): Promise<Runner> {
  const logger = deps.logger ?? quietLogger();
  // The ids that jobs.locked_by may hold: graphile-worker 0.17 locks jobs with the worker pool's
  // id; the workers' own ids are announced too, should a version lock per worker again.
  const workerIds = new Set<string>();
  const events = new EventEmitter() as WorkerEvents;
  events.on('pool:create', ({ workerPool }) => void workerIds.add(workerPool.id));
  events.on('worker:create', ({ worker }) => void workerIds.add(worker.workerId));
  events.on('worker:stop', ({ worker }) => void workerIds.delete(worker.workerId));
  const runner = await run({
    connectionString: deps.connectionString,
    events,
    concurrency: deps.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: taskList(deps),
    parsedCronItems: deps.schedule === false ? [] : parseCrontab(CRONTAB),
    logger,
  });
  const heartbeat = await startHeartbeat({
    db: deps.db,
    connectionString: deps.connectionString,
    intervalMs: deps.heartbeatMs ?? 15_000,
    staleMs: deps.staleAfterMs ?? 60_000,
    workerIds: () => [...workerIds],
    logger,
  });
  // A runner stopped in an orderly way announces nothing more and leaves no heartbeat behind.
  void runner.promise.finally(() => heartbeat.stop()).catch(() => {});
  return runner;
}
