/**
 * Arrange the real API over a fresh test database (cloned from the migrated template).
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import { loadConfig, type Config } from '../../core/config.js';
import type { TargetGuard } from '../../core/net/target-guard.js';
import { loadPlugins, type PluginRegistry } from '../../core/registry.js';
import { createTestDb, type TestDb } from './db.js';

export interface TestApi extends TestDb {
  app: FastifyInstance;
  config: Config;
  registry: PluginRegistry;
}

/** `deps.guard`: the target guard the routes use (a test resolver's), instead of one from the config. */
export async function buildTestApi(t: { teardown(fn: () => unknown): void }, overrides: Partial<Config> = {}, deps: { guard?: TargetGuard } = {}): Promise<TestApi> {
  const testDb = await createTestDb(t);
  const config = loadConfig({ NODE_ENV: 'test' }, { publicUrl: 'http://webperf.test', databaseUrl: testDb.url, ...overrides });
  const registry = await loadPlugins({ external: config.plugins });
  const app = await buildApp({ db: testDb.db, config, registry, version: '1.0.0', databaseUrl: testDb.url, ...deps });
  await app.ready();
  t.teardown(() => app.close());
  return { ...testDb, app, config, registry };
}
