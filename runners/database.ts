/**
 * The service's database: DATABASE_URL, or the embedded PostgreSQL in the data folder (shared with
 * or taken over from another process), migrated for both schemas. Apart from service.ts so that
 * operator commands load the store and the database only, not the API and the engine.
 */
import path from 'node:path';
import type { Config } from '../core/config.js';
import { createDb, retryWhileUnavailable, type Db, type DbOptions } from '../core/db/database.js';
import { ensureDatabase, runningEmbeddedPostgres, stopRunningPostgres, superviseEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { processAlive } from '../core/process-alive.js';
import { announce, readAnnouncement } from './announcement.js';
import { runWorkerMigrations } from './worker-schema.js';

export interface Database {
  db: Db;
  url: string;
  close(): Promise<void>;
}

/** The API's query pool by default: its requests at once, beside a runner's in `serve`. */
export const API_DB_POOL_MAX = 10;

/**
 * The process's query pool (README, "Scale-out: the connection budget"): WEBPERF_DB_POOL_MAX, else
 * API_DB_POOL_MAX with an API, else one connection per concurrent test job (a runner's queries
 * are short and one after the other; its deliveries and heartbeat take turns with them). A runner
 * alone waits up to 30 s for a connection of its pool (its save may wait behind another's); the
 * API fails after 5 s with 503, not keeping its callers waiting.
 */
export function queryPool(config: Config, options: { api: boolean; log?: (line: string) => void }): DbOptions {
  const max = config.pools.dbMax ?? (options.api ? API_DB_POOL_MAX : config.concurrency);
  return {
    max,
    idleTimeoutMs: config.pools.idleTimeoutMs,
    applicationName: options.api ? 'webperf' : 'webperf-runner',
    ...(options.api ? {} : { connectTimeoutMs: 30_000, waitForSlots: { withinMs: 5 * 60_000, log: options.log } }),
  };
}

export interface OpenOptions {
  /** Operator commands: an embedded PostgreSQL a running service runs on the data folder is used as it is, and left running. */
  shareRunning?: boolean;
  /** The query pool (createDb's options): its size, idle timeout, wait for a connection. */
  pool?: DbOptions;
  /**
   * While no connection can be had (the server is down or starting, or max_connections is used
   * up), wait and try again, with a log line each time, instead of failing: a service starting.
   */
  waitForConnection?: boolean;
}

/**
 * Connects to DATABASE_URL or starts the embedded PostgreSQL; migrates both schemas. With
 * `shareRunning` (operator commands), an embedded PostgreSQL that a running service already runs
 * on the data folder is used as it is, and left running.
 */
export async function openDatabase(config: Config, log: (line: string) => void = () => {}, options: OpenOptions = {}): Promise<Database> {
  let url = config.databaseUrl;
  let stopServer = async () => {};
  if (!url) {
    const dir = path.join(config.dataDir, 'pg');
    const ownerFile = path.join(config.dataDir, 'pg-owner.json');
    let running = await runningEmbeddedPostgres(dir);
    if (running) {
      const owner = readAnnouncement(ownerFile)?.pid ?? null;
      const ownerAlive = owner !== null && owner !== process.pid && processAlive(owner);
      if (!ownerAlive) {
        // The process that started it was killed (SIGKILL leaves PostgreSQL running): stop it, start afresh.
        await stopRunningPostgres(dir);
        log('stopped the embedded PostgreSQL that an earlier crash left running');
        running = null;
      } else if (!options.shareRunning) {
        throw new Error(`webperf (pid ${owner}) already runs on the data folder ${config.dataDir}: stop it first, or give this process its own WEBPERF_DATA_DIR`);
      }
    }
    // A server of our own is supervised: should it die, it is started again (the API answers 503 meanwhile).
    const pg = running ?? (await superviseEmbeddedPostgres(dir, { firstRestartDelayMs: config.pgRestartDelayMs, maxConnections: config.pgMaxConnections }, log));
    if (!running) {
      const unannounce = announce(ownerFile);
      const stopOwn = pg.stop;
      stopServer = async () => {
        await stopOwn();
        unannounce();
      };
    }
    await ensureDatabase(pg.adminUrl, 'webperf');
    url = pg.urlFor('webperf');
    log(`${running ? 'the running ' : ''}embedded PostgreSQL on port ${pg.port}, data in ${dir}`);
  }
  const db = createDb(url, options.pool);
  try {
    await retryWhileUnavailable(async () => {
      await migrateToLatest(db);
      await runWorkerMigrations(url);
    }, {
      onWait: (err, waitMs) => log(`the database cannot be had (${err instanceof Error ? err.message : String(err)}); trying again in ${(waitMs / 1000).toFixed(1)} s`),
      stopped: () => !options.waitForConnection,
    });
  } catch (err) {
    await db.destroy();
    await stopServer();
    throw err;
  }
  return {
    db,
    url,
    close: async () => {
      await db.destroy();
      await stopServer();
    },
  };
}
