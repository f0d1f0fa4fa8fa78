/**
 * The service's database: DATABASE_URL, or the embedded PostgreSQL in the data folder (shared with
 * or taken over from another process), migrated for both schemas. Apart from service.ts so that
 * operator commands load the store and the database only, not the API and the engine.
 */
import path from 'node:path';
import type { Config } from '../core/config.js';
import { createDb, type Db } from '../core/db/database.js';
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

/**
 * Connects to DATABASE_URL or starts the embedded PostgreSQL; migrates both schemas. With
 * `shareRunning` (operator commands), an embedded PostgreSQL that a running service already runs
 * on the data folder is used as it is, and left running.
 */
export async function openDatabase(config: Config, log: (line: string) => void = () => {}, options: { shareRunning?: boolean } = {}): Promise<Database> {
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
    const pg = running ?? (await superviseEmbeddedPostgres(dir, { firstRestartDelayMs: config.pgRestartDelayMs }, log));
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
  const db = createDb(url);
  try {
    await migrateToLatest(db);
    await runWorkerMigrations(url);
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
