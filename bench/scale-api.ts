/**
 * The scale bench's API process (bench/scale.ts): the real API (buildApp) with the query pool and
 * cache listener an `webperf api` process has, in a process of its own as it would be deployed,
 * so that the simulated runners' event loop never delays its answers. Run as a child of the bench:
 * `node dist/bench/scale-api.js`; it is told the database and answers with its port.
 */
import { buildApp } from '../api/app.js';
import { loadConfig } from '../core/config.js';
import { createDb } from '../core/db/database.js';
import { loadPlugins } from '../core/registry.js';
import { queryPool } from '../runners/database.js';

export type ApiOrder = { start: { url: string } } | { stop: true };
export type ApiReport = { alive: true } | { listening: number } | { stopped: true };

async function main(): Promise<void> {
  const send = (report: ApiReport) => process.send?.(report);
  let stop = async () => {};
  process.on('message', async (order: ApiOrder) => {
    if ('start' in order) {
      const u = new URL(order.start.url);
      u.searchParams.set('application_name', 'bench-api');
      // The rate limit is on, with a ceiling no reader reaches: its cost is measured, nothing refused.
      const config = loadConfig({ NODE_ENV: 'production' }, { databaseUrl: u.href, rateLimitPerMinute: 1_000_000_000, demo: false });
      const db = createDb(u.href, queryPool(config, { api: true }));
      const app = await buildApp({ db, config, registry: await loadPlugins(), version: 'bench', databaseUrl: u.href });
      await app.listen({ host: '127.0.0.1', port: 0 });
      if (!app.resultsCache.live) throw new Error('the API caches are not live (no LISTEN connection)');
      stop = async () => {
        await app.close();
        await db.destroy();
      };
      send({ listening: (app.server.address() as { port: number }).port });
    } else if ('stop' in order) {
      await stop().catch(() => {});
      send({ stopped: true });
      process.exit(0);
    }
  });
  send({ alive: true });
}

if (process.send) void main();
