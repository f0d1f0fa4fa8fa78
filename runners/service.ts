/**
 * Starting and stopping the service's parts against one PostgreSQL: the database (embedded unless
 * DATABASE_URL), migrations, the public-sector import, the demo, the graphile-worker runner with
 * its scheduler, and the Fastify API.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Runner } from 'graphile-worker';
import { buildApp } from '../api/app.js';
import { PROJECT_ROOT, type Config } from '../core/config.js';
import { createDb, type Db } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { TargetGuard } from '../core/net/target-guard.js';
import { PluginRegistry, loadExternalPlugins } from '../core/registry.js';
import { importPublicSector } from '../core/store/sites.js';
import { BUILTIN_PLUGINS } from '../plugins/index.js';
import { BrowserPool, CHROMIUM_INSTALL_HINT } from './browser-pool.js';
import { startDemo, type Demo } from './demo.js';
import { runWorkerMigrations, startWorker } from './worker.js';

export const VERSION: string = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).version;

export interface Database {
  db: Db;
  url: string;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL or starts the embedded PostgreSQL; migrates both schemas. */
export async function openDatabase(config: Config, log: (line: string) => void = () => {}): Promise<Database> {
  let url = config.databaseUrl;
  let stopServer = async () => {};
  if (!url) {
    const pg = await startEmbeddedPostgres(path.join(config.dataDir, 'pg'));
    await ensureDatabase(pg.adminUrl, 'webperf');
    url = pg.urlFor('webperf');
    stopServer = pg.stop;
    log(`embedded PostgreSQL on port ${pg.port}, data in ${path.join(config.dataDir, 'pg')}`);
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

export async function createRegistry(config: Config): Promise<PluginRegistry> {
  const registry = new PluginRegistry(BUILTIN_PLUGINS);
  for (const p of await loadExternalPlugins(config.plugins)) registry.register(p);
  return registry;
}

export interface ServiceOptions {
  api: boolean;
  runner: boolean;
  log?: (line: string) => void;
}

export interface Service {
  app: FastifyInstance | null;
  worker: Runner | null;
  demo: Demo | null;
  database: Database;
  apiUrl: string | null;
  stop(): Promise<void>;
}

export async function startService(config: Config, options: ServiceOptions): Promise<Service> {
  const log = options.log ?? (() => {});
  if (options.runner && !config.chromiumPath) throw new Error(CHROMIUM_INSTALL_HINT);
  const database = await openDatabase(config, log);
  const stops: (() => Promise<void>)[] = [];
  try {
    const imported = await importPublicSector(database.db);
    if (imported > 0) log(`imported ${imported} public-sector websites`);
    const registry = await createRegistry(config);
    let demo: Demo | null = null;
    const allow = [...config.allowTargets];
    if (config.demo) {
      demo = await startDemo(database.db, config.dataDir);
      stops.push(demo.close);
      allow.push(new URL(demo.url).origin);
    }
    let worker: Runner | null = null;
    if (options.runner) {
      const pool = new BrowserPool(config.chromiumPath);
      stops.push(() => pool.close());
      worker = await startWorker({
        db: database.db,
        connectionString: database.url,
        pool,
        guard: new TargetGuard(allow),
        registry,
        concurrency: config.concurrency,
        jobTimeoutMs: config.jobTimeoutMs,
        crux: { apiKey: config.cruxApiKey, endpoint: config.cruxEndpoint },
      });
      stops.push(() => worker!.stop());
    }
    let app: FastifyInstance | null = null;
    let apiUrl: string | null = null;
    if (options.api) {
      app = await buildApp({ db: database.db, config, registry, version: VERSION, databaseUrl: database.url }, { logger: config.env !== 'test' });
      await app.listen({ host: config.host, port: config.port });
      apiUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`;
      stops.push(() => app!.close());
    }
    return {
      app,
      worker,
      demo,
      database,
      apiUrl,
      stop: async () => {
        for (const stop of stops.reverse()) await stop().catch(() => {});
        await database.close();
      },
    };
  } catch (err) {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await database.close();
    throw err;
  }
}
