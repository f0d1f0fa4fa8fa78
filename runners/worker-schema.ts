/**
 * graphile-worker's own schema and its silenced logger, apart from the task list in worker.ts so
 * that operator commands and the test set-up migrate without loading the engine behind the tasks.
 */
import { Logger, runMigrations } from 'graphile-worker';

export function quietLogger(): Logger {
  return new Logger(() => () => {});
}

/** Installs graphile-worker's own schema (idempotent). */
export async function runWorkerMigrations(connectionString: string): Promise<void> {
  await runMigrations({ connectionString, logger: quietLogger() });
}
