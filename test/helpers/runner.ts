/**
 * A real runner in the test's own process: its own Chromium, graphile-worker on the test
 * database, a guard that lets through only the given origins. Stopped (and its Chromium closed)
 * when the test ends.
 */
import type { Runner } from 'graphile-worker';
import { findChromium } from '../../core/config.js';
import type { Db } from '../../core/db/database.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import type { PluginRegistry } from '../../core/registry.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { startWorker } from '../../runners/worker.js';

interface Teardown { teardown(fn: () => unknown): void }

export async function startTestRunner(t: Teardown, options: { db: Db; connectionString: string; registry: PluginRegistry; allowOrigins: string[] }): Promise<Runner> {
  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH));
  let worker: Runner | null = null;
  t.teardown(async () => {
    await worker?.stop();
    await pool.close();
  });
  worker = await startWorker({
    db: options.db, connectionString: options.connectionString, pool,
    // Only the fixtures' origins are let through, as an operator allowlists the demo site.
    guard: new TargetGuard(options.allowOrigins), registry: options.registry,
    concurrency: 1, jobTimeoutMs: 110_000, schedule: false,
  });
  return worker;
}
