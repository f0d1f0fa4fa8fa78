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
  const state = new DatabaseState();
  // An idle client losing its server (database killed or restarted) must not crash the process;
  // it is the first sign that the database is gone, noted for /health.
  pool.on('error', (err) => state.noteFailure(err));
  // A client checked out when the server dies (a transaction mid-way) emits 'error' too; unheard,
  // that would crash the process. Its query rejects anyway, which is where the failure is handled.
  pool.on('connect', (client) => void client.on('error', (err) => state.noteFailure(err)));
  // cursor: lets large reads (the agency CSV) stream with `.stream()` instead of loading every row.
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
  states.set(db, state);
  return db;
}

/**
 * What this process last learnt about its database: whether a connection-level failure was seen
 * since the database last answered. Lets /health answer 503 at once while the database is known to
 * be down, instead of waiting on a connection attempt (slow on a loaded machine). Only a successful
 * query (`noteAnswer`) clears it, so the state never says "up" while the database is down.
 */
export class DatabaseState {
  #downSince: number | null = null;
  #lastError: string | null = null;

  /** When a connection-level failure was first seen since the last answer; null when none was. */
  get downSince(): number | null {
    return this.#downSince;
  }

  get lastError(): string | null {
    return this.#lastError;
  }

  /** Notes `err` when it says the database cannot be reached (other errors are the query's own). */
  noteFailure(err: unknown): void {
    if (!isDatabaseUnavailable(err)) return;
    this.#downSince ??= Date.now();
    this.#lastError = err instanceof Error ? err.message : String(err);
  }

  noteAnswer(): void {
    this.#downSince = null;
    this.#lastError = null;
  }
}

const states = new WeakMap<Db, DatabaseState>();

/** The state of `db`'s database (one per createDb; a Db made elsewhere gets one on first use). */
export function databaseState(db: Db): DatabaseState {
  let state = states.get(db);
  if (!state) states.set(db, (state = new DatabaseState()));
  return state;
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
