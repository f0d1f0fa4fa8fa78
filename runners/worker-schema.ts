/**
 * graphile-worker's own schema, its silenced logger and the database pools we give it, apart from
 * the task list in worker.ts so that operator commands and the test set-up migrate without loading
 * the engine behind the tasks.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { Logger, runMigrations } from 'graphile-worker';
import { IDLE_TIMEOUT_MS, waitingForSlots, withConnect } from '../core/db/database.js';

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
export function workerPgPool(connectionString: string, max: number, logger: Logger, options: { idleTimeoutMs?: number; say?: (line: string) => void } = {}): pg.Pool {
  // Waits for a free connection of the pool as long as it takes (connectionTimeoutMillis 0, pg's
  // default), and for a slot of a full server (53300) for up to WORKER_SLOT_WAIT_MS: graphile-worker
  // retries a fetch that failed only after its poll interval, and a completion not at all
  // (worker.ts releases such a job later), so a wait is better than a failure.
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS, application_name: 'webperf-worker' });
  // Every client's error is logged by its own handler; the pool passes on those of idle clients
  // ('error' of the pool), which must be heard but are already logged.
  pool.on('connect', (client) => void client.on('error', (err) => logger.error(`runner: database client: ${err.message}`)));
  pool.on('error', () => {});
  return waitingForSlots(pool, { withinMs: WORKER_SLOT_WAIT_MS, log: (line) => (options.say ?? ((l: string) => logger.error(l)))(`runner: ${line}`) });
}

/** How long graphile-worker's queries wait for a slot of a server with none left (then they fail). */
export const WORKER_SLOT_WAIT_MS = 5 * 60_000;

/** Installs graphile-worker's own schema (idempotent). */
export async function runWorkerMigrations(connectionString: string): Promise<void> {
  const pgPool = workerPgPool(connectionString, 2, quietLogger());
  try {
    await runMigrations({ pgPool, logger: quietLogger() });
  } finally {
    await pgPool.end();
  }
}

/**
 * `pool` for a graphile-worker pool that finds its jobs by polling alone, without a LISTEN
 * connection of its own: graphile-worker 0.17 has no setting for it, and takes its listening
 * client with the callback form of `pool.connect` (every query it makes awaits the promise form).
 * That one call is answered with a client that listens to nothing; every other use reaches `pool`.
 * For the webhook delivery pool (worker.ts): a delivery may start a poll interval after it was
 * queued, and the runner holds one connection fewer; nor is every runner's delivery pool woken,
 * each to look for a job, by every job queued anywhere (a NOTIFY reaches every listener).
 * test/runners/worker-pool.test.ts checks that such a pool holds no LISTEN and still runs jobs.
 */
export function withoutListening(pool: pg.Pool): pg.Pool {
  const connect = (callback?: (err: Error | undefined, client?: unknown, release?: () => void) => void) => {
    if (!callback) return pool.connect();
    const deaf = Object.assign(new EventEmitter(), { query: async () => ({ rows: [], rowCount: 0 }) });
    queueMicrotask(() => callback(undefined, deaf, () => {}));
    return undefined;
  };
  return withConnect(pool, connect as pg.Pool['connect']);
}
