/**
 * The kysely instance over pg. `Database` is generated from the migrated schema (schema.ts).
 */
import type { EventEmitter } from 'node:events';
import { CompiledQuery, Kysely, PostgresDialect, sql, type Transaction } from './kysely.js';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { DB } from './schema.js';

export type Database = DB;
export type Db = Kysely<DB>;

// numeric and bigint come back as strings by default; ratings and ids are safe as numbers.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** Longest wait for the answer to a query, or to one read of a streamed query. */
export const QUERY_TIMEOUT_MS = 30_000;

/** Longest wait for a new connection to the database. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** Longest a connection of createDb's pool stays open unused, by default (WEBPERF_DB_IDLE_TIMEOUT_MS). */
export const IDLE_TIMEOUT_MS = 10_000;

export interface DbOptions {
  /** Connections at most (default 10). */
  max?: number;
  queryTimeoutMs?: number;
  /** Longest wait for a connection: a free one of the pool, or a new one to the server. */
  connectTimeoutMs?: number;
  /** An idle connection is closed after this long (default IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
  /** How the connections name themselves in pg_stat_activity (an application_name in the URL wins). */
  applicationName?: string;
  /** A server with no connection slot left is waited for, not failed at once (see waitingForSlots). */
  waitForSlots?: SlotWait;
}

/** How long, and with what word, a pool waits for a server with no connection slot left. */
export interface SlotWait {
  withinMs: number;
  log?: (line: string) => void;
}

/** PostgreSQL's refusal of a new connection when max_connections is used up (too_many_connections). */
export const TOO_MANY_CONNECTIONS = '53300';

/**
 * `pool` whose `connect()` tries again, backing off from 100 ms to 2 s, while the server refuses
 * new connections because every slot is taken (53300), for up to `withinMs`; then it fails as the
 * server did. A runner's queries then wait for a slot to free (another client closing an idle
 * connection) instead of failing a job, and say so in one line every 10 s at most. The
 * callback form of `connect` (graphile-worker's LISTEN, which retries by itself) and `query`
 * are the pool's own.
 */
export function waitingForSlots(pool: pg.Pool, wait: SlotWait): pg.Pool {
  let saidAt = 0;
  const connect = async () => {
    const deadline = Date.now() + wait.withinMs;
    for (let waitMs = 100; ; waitMs = Math.min(waitMs * 2, 2_000)) {
      try {
        return await pool.connect();
      } catch (err) {
        if ((err as { code?: unknown }).code !== TOO_MANY_CONNECTIONS || Date.now() + waitMs > deadline) throw err;
        if (Date.now() - saidAt >= 10_000) {
          saidAt = Date.now();
          wait.log?.(`the database has no connection slot left (${(err as Error).message}): waiting for one`);
        }
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  };
  return withConnect(pool, ((callback?: Parameters<pg.Pool['connect']>[0]) => (callback ? pool.connect(callback) : connect())) as pg.Pool['connect']);
}

/** `pool` with its `connect` replaced (both forms: a promise, or a callback), everything else its own. */
export function withConnect(pool: pg.Pool, connect: pg.Pool['connect']): pg.Pool {
  return new Proxy(pool, {
    get(target, property) {
      if (property === 'connect') return connect;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * `pool` whose checked-out clients are destroyed, not returned to the pool, once one of their
 * queries ran out of time on the client side (node-postgres's query_timeout: "Query read
 * timeout"). The server may still be running that statement, inside a transaction that the
 * ROLLBACK sent after it could not end in time either: returned to the pool, the connection would
 * carry the open transaction to its next user, whose COMMIT would commit the abandoned writes too
 * (the scale bench at 400 runners saw a run's results stored twice that way: the first attempt's
 * rows committed by another save on the same connection, the retry's besides). Destroyed, the
 * server rolls the transaction back when it sees the connection gone.
 */
export function releasingTimedOut(pool: pg.Pool): pg.Pool {
  // Per client (node-postgres reuses them): the query that timed out, once one has.
  const timedOut = new WeakMap<pg.PoolClient, { error: Error | null }>();
  const guard = (client: pg.PoolClient): pg.PoolClient => {
    let state = timedOut.get(client);
    if (!state) {
      const seen = { error: null as Error | null };
      state = seen;
      timedOut.set(client, seen);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        const result = query(...args);
        if (result instanceof Promise) {
          result.catch((err: unknown) => {
            if (err instanceof Error && /Query read timeout/i.test(err.message)) seen.error = err;
          });
        }
        return result;
      }) as typeof client.query;
    }
    // The pool gives each checkout a release of its own: wrapped each time.
    const release = client.release.bind(client);
    const seen = state;
    client.release = ((err?: Error | boolean) => release(err || seen.error || undefined)) as typeof client.release;
    return client;
  };
  return withConnect(pool, ((callback?: Parameters<pg.Pool['connect']>[0]) =>
    callback
      ? pool.connect((err, client, done) => (client ? callback(err, guard(client), (e) => client.release(e)) : callback(err, client, done)))
      : pool.connect().then(guard)) as pg.Pool['connect']);
}

export function createDb(connectionString: string, options: DbOptions = {}): Db {
  const queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    idleTimeoutMillis: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    application_name: options.applicationName ?? 'webperf',
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    // A dead server must not hang a health check forever.
    query_timeout: queryTimeoutMs,
  });
  const state = new DatabaseState();
  // An idle client losing its server (database killed or restarted) must not crash the process;
  // it is the first sign that the database is gone, noted for /health.
  pool.on('error', (err) => state.noteFailure(err));
  // A client checked out when the server dies (a transaction mid-way) emits 'error' too; unheard,
  // that would crash the process. Its query rejects anyway, which is where the failure is handled.
  pool.on('connect', (client) => void client.on('error', (err) => state.noteFailure(err)));
  // cursor: lets large reads (the agency CSV) stream with `.stream()` instead of loading every row.
  const dialectPool = releasingTimedOut(options.waitForSlots ? waitingForSlots(pool, options.waitForSlots) : pool);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: dialectPool, cursor: readTimedCursor(queryTimeoutMs) }) });
  states.set(db, state);
  pools.set(db, pool);
  return db;
}

/** The pool under each Db of createDb. */
const pools = new WeakMap<Db, pg.Pool>();

/** A statement of a hot path, prepared once per connection (`name` is unique to its `text`). */
export interface PreparedStatement {
  name: string;
  /** SQL with $1, $2, ... parameters. */
  text: string;
}

/**
 * Runs a prepared statement: on a Db of createDb as pg's named statement, parsed and planned once
 * per connection and then only bound and executed (an order is one such call; parsing and
 * planning it afresh each time was a tenth of PostgreSQL's CPU per order under load); in a
 * transaction, as the same text on the transaction's connection.
 */
export async function executePrepared<R>(db: Db | Transaction<DB>, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
  const pool = pools.get(db as Db);
  if (pool) return (await pool.query({ name: statement.name, text: statement.text, values })).rows as R[];
  return (await db.executeQuery<R>(CompiledQuery.raw(statement.text, values))).rows;
}

/**
 * pg-cursor with the read timeout applied to each read, not to the whole stream. pg starts its
 * `query_timeout` timer when a query is queued and stops it through the query's callback, which a
 * cursor never calls: every streamed query left a timer behind, and one still streaming when it
 * fired was cut short — the agency CSV, read by a slow client for over 30 s, ended early without
 * an error. So the statement's timer is stopped as the cursor is sent, and each read has a timer
 * of its own: a read without an answer in time fails with pg's "Query read timeout" and its
 * connection is ended as failed (like pg's own timeout in pipeline mode), so the pool drops it.
 */
function readTimedCursor(timeoutMs: number): typeof Cursor {
  return class ReadTimedCursor<Row> extends Cursor<Row> {
    #timedOut = false;

    constructor(text: string, values?: unknown[], config?: Cursor.CursorQueryConfig) {
      super(text, values, config);
      const submit = this.submit.bind(this);
      this.submit = (connection) => {
        // pg's wrapper of the query's callback: calling it stops the statement's timer.
        const self = this as unknown as { callback?: (err: Error | null) => void };
        const stopTimer = self.callback;
        self.callback = undefined;
        stopTimer?.(null);
        submit(connection);
      };
    }

    override read(maxRows: number): Promise<Row[]>;
    override read(maxRows: number, callback: Cursor.ResultCallback<Row>): undefined;
    override read(maxRows: number, callback?: Cursor.ResultCallback<Row>): Promise<Row[]> | undefined {
      const rows = new Promise<Row[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.#timedOut = true;
          const internals = this as unknown as { handleError(err: Error): void; connection: (EventEmitter & { stream: { destroy(): void } }) | null };
          const err = new Error('Query read timeout');
          internals.handleError(err);
          // As a connection error: the client is marked unusable at once (so the pool drops it
          // when it is released, not hands it to the next query) and its 'error' is heard.
          internals.connection?.emit('error', err);
          internals.connection?.stream.destroy();
        }, timeoutMs);
        super.read(maxRows, (err, got) => {
          clearTimeout(timer);
          if (err) reject(err);
          else resolve(got);
        });
      });
      if (!callback) return rows;
      rows.then((got) => callback(undefined, got, undefined as never), (err: Error) => callback(err, [], undefined as never));
      return undefined;
    }

    override close(): Promise<void>;
    override close(callback: (err: Error) => void): undefined;
    override close(callback?: (err: Error) => void): Promise<void> | undefined {
      // A timed-out cursor's connection is gone: no answer to a close would ever come.
      if (this.#timedOut) {
        if (!callback) return Promise.resolve();
        setImmediate(() => (callback as () => void)());
        return undefined;
      }
      return callback ? super.close(callback) : super.close();
    }
  };
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

// Connection-level failures: the server is down, restarting, unreachable or full. SQLSTATE class 08
// (connection exception), 57P01-57P03 (shutdown, crash, cannot connect now), 53300 (too many
// connections: max_connections is used up, by this installation's other processes or anyone
// else's; a connection is had again once one of them closes), and the socket errors and messages
// node-postgres raises when a connection is refused, times out or is cut.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);
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

/**
 * `start()`, tried again while it fails because no database connection can be had (the server is
 * down, restarting, or has no connection slot left), waiting from half a second, doubling to 15 s,
 * and saying so through `onWait` each time; any other failure, or `stopped()` (checked before and
 * after each wait), ends the attempts with that failure.
 */
export async function retryWhileUnavailable<T>(start: () => Promise<T>, o: {
  onWait: (err: unknown, waitMs: number) => void;
  stopped?: () => boolean;
  sleep?: (ms: number) => Promise<unknown>;
}): Promise<T> {
  const sleep = o.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, 15_000)) {
    try {
      return await start();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || o.stopped?.()) throw err;
      o.onWait(err, waitMs);
      await sleep(waitMs);
      if (o.stopped?.()) throw err;
    }
  }
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
