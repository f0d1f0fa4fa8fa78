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
import { guardFromConfig } from '../core/net/egress.js';
import { serveMetrics, watchDatabase } from '../core/metrics.js';
import { loadPlugins, type PluginRegistry } from '../core/registry.js';
import { importPublicSector } from '../core/store/sites.js';
import { browserPoolFor, CHROMIUM_INSTALL_HINT, cleanupOrphanedChromium, hasChromium } from './browser-pool.js';
import { startDemo, type Demo } from './demo.js';
import { openDatabase, queryPool, type Database } from './database.js';
import { announceAddress } from './service-address.js';
import { startWorker } from './worker.js';

export { openDatabase, type Database };

export const VERSION: string = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).version;

export async function createRegistry(config: Config): Promise<PluginRegistry> {
  return loadPlugins({ external: config.plugins });
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
  /** The scrape address's `http://host:port/metrics` (WEBPERF_METRICS_LISTEN), else null. */
  metricsUrl: string | null;
  stop(): Promise<void>;
}

export async function startService(config: Config, options: ServiceOptions): Promise<Service> {
  const log = options.log ?? (() => {});
  if (options.runner && !hasChromium(config)) throw new Error(CHROMIUM_INSTALL_HINT);
  const database = await openDatabase(config, log, { pool: queryPool(config, { ...options, log }), waitForConnection: true });
  const stops: (() => Promise<void>)[] = [];
  try {
    const imported = await importPublicSector(database.db);
    if (imported > 0) log(`imported ${imported} public-sector websites`);
    const registry = await createRegistry(config);
    let demo: Demo | null = null;
    const allow: string[] = [];
    if (config.demo) {
      demo = await startDemo(database.db, config.dataDir);
      stops.push(demo.close);
      allow.push(new URL(demo.url).origin);
    }
    const guard = guardFromConfig(config, allow);
    // Metrics: a runner reads the queue and the heartbeats at each scrape (the API watches its own
    // database, api/plugins/metrics.ts); every process kind may serve them at an address of its own.
    if (options.runner) {
      const unwatch = watchDatabase(database.db, { staleAfterMs: config.staleAfterMs });
      stops.push(async () => unwatch());
    }
    let metricsUrl: string | null = null;
    if (config.metricsListen) {
      const metrics = await serveMetrics(config.metricsListen);
      metricsUrl = metrics.url;
      stops.push(() => metrics.close());
    }
    let worker: Runner | null = null;
    if (options.runner) {
      const pidDir = path.join(config.dataDir, 'chromium');
      const orphans = cleanupOrphanedChromium(pidDir);
      if (orphans.length > 0) log(`ended ${orphans.length} Chromium left behind by an earlier crash`);
      const pool = browserPoolFor(config, pidDir, guard.trust.chromiumArgs, true);
      stops.push(() => pool.close());
      worker = await startWorker({
        db: database.db,
        connectionString: database.url,
        pool,
        guard,
        registry,
        concurrency: config.concurrency,
        deliveryConcurrency: config.deliveryConcurrency,
        workerPoolMax: config.pools.workerMax,
        idleTimeoutMs: config.pools.idleTimeoutMs,
        jobTimeoutMs: config.jobTimeoutMs,
        heartbeatMs: config.heartbeatMs,
        staleAfterMs: config.staleAfterMs,
        crux: { apiKey: config.cruxApiKey, endpoint: config.cruxEndpoint, resolver: guard.resolver, trust: guard.trust },
        log,
      });
      stops.push(() => worker!.stop());
    }
    let app: FastifyInstance | null = null;
    let apiUrl: string | null = null;
    if (options.api) {
      app = await buildApp({ db: database.db, config, registry, version: VERSION, databaseUrl: database.url, guard }, { logger: config.env !== 'test' });
      await app.listen({ host: config.host, port: config.port });
      apiUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`;
      stops.push(() => app!.close());
      // Operator commands' links (webperf users add) point at this address while it listens.
      try {
        const unannounce = announceAddress(config.dataDir, apiUrl);
        stops.push(async () => unannounce());
      } catch (err) {
        log(`could not announce the API's address in ${config.dataDir}: ${(err as Error).message}`);
      }
    }
    return {
      app,
      worker,
      demo,
      database,
      apiUrl,
      metricsUrl,
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
