/**
 * graphile-worker wiring: the task list, the crontab and the runner.
 */
import { Logger, parseCrontab, run, runMigrations, type Runner, type TaskList } from 'graphile-worker';
import type { Db } from '../core/db/database.js';
import type { TargetGuard } from '../core/net/target-guard.js';
import type { PluginRegistry } from '../core/registry.js';
import type { BrowserPool } from './browser-pool.js';
import { runTestsTask, type RunTestsDeps } from './tasks/run-tests.js';
import { runAuditTask } from './tasks/run-audit.js';
import { CRONTAB, scheduleFollowedSitesTask } from './tasks/schedule-followed-sites.js';

export function quietLogger(): Logger {
  return new Logger(() => () => {});
}

/** Installs graphile-worker's own schema (idempotent). */
export async function runWorkerMigrations(connectionString: string): Promise<void> {
  await runMigrations({ connectionString, logger: quietLogger() });
}

export interface WorkerDeps {
  db: Db;
  connectionString: string;
  pool: BrowserPool;
  guard: TargetGuard;
  registry: PluginRegistry;
  concurrency: number;
  jobTimeoutMs: number;
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
    run_audit: runAuditTask({ ...deps, crux: deps.crux ?? { apiKey: null, endpoint: '' } }) as TaskList[string],
  };
}

export async function startWorker(deps: WorkerDeps): Promise<Runner> {
  return run({
    connectionString: deps.connectionString,
    concurrency: deps.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: taskList(deps),
    parsedCronItems: deps.schedule === false ? [] : parseCrontab(CRONTAB),
    logger: deps.logger ?? quietLogger(),
  });
}
