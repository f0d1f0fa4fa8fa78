/**
 * graphile-worker wiring: the task list, the crontab and the runner.
 */
import { runMigrations } from 'graphile-worker';

/** Installs graphile-worker's own schema (idempotent). */
export async function runWorkerMigrations(connectionString: string): Promise<void> {
  await runMigrations({ connectionString, logger: quietLogger() });
}

import { Logger } from 'graphile-worker';
export function quietLogger(): Logger {
  return new Logger(() => () => {});
}
