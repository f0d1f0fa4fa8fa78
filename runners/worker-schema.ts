/**
 * graphile-worker's own schema, its silenced logger and the database pools we give it, apart from
 * the task list in worker.ts so that operator commands and the test set-up migrate without loading
 * the engine behind the tasks.
 */
import pg from 'pg';
import { Logger, runMigrations } from 'graphile-worker';

export function quietLogger(): Logger {
  return new Logger(() => () => {});
}

/**
 * A pool for graphile-worker (run, makeWorkerUtils, runMigrations) that we own and end, awaited,
 * after graphile-worker is done with it. Given a connection string, graphile-worker makes a pool
 * of its own and, on release, removes its error handlers and then ends the pool without waiting:
 * a connection the database ended meanwhile (it is shutting down: 57P01) raised an 'error' event
 * nobody heard and took the process down. Ours keep their handlers until the end. A connection
 * error of an idle or checked-out client is raised again by its next query, so one log line is
 * all the handlers need to do.
 */
export function workerPgPool(connectionString: string, max: number, logger: Logger): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  // Every client's error is logged by its own handler; the pool passes on those of idle clients
  // ('error' of the pool), which must be heard but are already logged.
  pool.on('connect', (client) => void client.on('error', (err) => logger.error(`runner: database client: ${err.message}`)));
  pool.on('error', () => {});
  return pool;
}

/** Installs graphile-worker's own schema (idempotent). */
export async function runWorkerMigrations(connectionString: string): Promise<void> {
  const pgPool = workerPgPool(connectionString, 2, quietLogger());
  try {
    await runMigrations({ pgPool, logger: quietLogger() });
  } finally {
    await pgPool.end();
  }
}
