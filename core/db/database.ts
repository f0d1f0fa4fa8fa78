/**
 * The kysely instance over pg. `Database` is generated from the migrated schema (schema.ts).
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { DB } from './schema.js';

export type Database = DB;
export type Db = Kysely<DB>;

// numeric and bigint come back as strings by default; ratings and ids are safe as numbers.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    // A dead server must not hang a health check forever.
    query_timeout: 30_000,
  });
  // An idle client losing its server (database restarted) must not crash the process.
  pool.on('error', () => {});
  // A client checked out when the server dies (a transaction mid-way) emits 'error' too; unheard,
  // that would crash the process. Its query rejects anyway, which is where the failure is handled.
  pool.on('connect', (client) => void client.on('error', () => {}));
  // cursor: lets large reads (the agency CSV) stream with `.stream()` instead of loading every row.
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
}

// Connection-level failures: the server is down, restarting or unreachable. SQLSTATE class 08
// (connection exception), 57P01-57P03 (shutdown, crash, cannot connect now), and the socket errors
// and messages node-postgres raises when a connection is refused, times out or is cut.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03']);
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|the database system is (starting up|shutting down|in recovery mode)|Client was closed and is not queryable/i;

/** Whether `err` says the database cannot be reached now (as opposed to a bad query): worth a 503 and a retry. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    // AggregateError: a refused connection to each address of localhost.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((x) => isDatabaseUnavailable(x))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}

/** Resolves once the database answers again; rejects when `signal` aborts first. */
export async function waitForDatabase(db: Db, signal: AbortSignal, everyMs = 500): Promise<void> {
  for (;;) {
    signal.throwIfAborted();
    try {
      await sql`select 1`.execute(db);
      return;
    } catch {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, everyMs);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}
