/**
 * A real runner in the test's own process: graphile-worker on the test database, a guard built as
 * the service builds it from its settings: the test world's resolver (WEBPERF_DNS_SERVERS) and the
 * suite's CA (WEBPERF_EXTRA_CA_CERTS), trusted by the guard's probes and by the runner's Chromium
 * alike, and the test process's shared Chromium (testBrowserPool) when it trusts the same CA,
 * else a Chromium of its own. Stopped (and a Chromium of its own closed) when the test ends.
 */
import type { Runner } from 'graphile-worker';
import { sql } from '../../core/db/kysely.js';
import { findChromium } from '../../core/config.js';
import type { Db } from '../../core/db/database.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import type { PluginRegistry } from '../../core/registry.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { startWorker } from '../../runners/worker.js';
import { testBrowserPool } from './fixture-artifacts.js';
import { suiteTrust, testRecords, testResolver } from './world/index.js';

interface Teardown { teardown(fn: () => unknown): void }

export interface TestRunnerOptions {
  db: Db;
  connectionString: string;
  registry: PluginRegistry;
  /**
   * What the guard lets through beyond public addresses (WEBPERF_ALLOW_TARGETS): the fixtures'
   * origins, as an operator allowlists the demo site. Ignored when `guard` is given.
   */
  allowOrigins?: string[];
  /** A guard of the test's own (a world of its own); its trust is given to Chromium too. */
  guard?: TargetGuard;
}

export async function startTestRunner(t: Teardown, options: TestRunnerOptions): Promise<Runner> {
  const guard = options.guard ?? new TargetGuard(options.allowOrigins ?? ['127.0.0.0/8'], { resolver: testResolver, records: testRecords, trust: suiteTrust() });
  const shared = guard.trust.chromiumArgs.join(' ') === suiteTrust().chromiumArgs.join(' ');
  const pool = shared ? testBrowserPool() : new BrowserPool(findChromium(process.env.CHROMIUM_PATH), null, guard.trust.chromiumArgs);
  let worker: Runner | null = null;
  t.teardown(async () => {
    await worker?.stop();
    if (!shared) await pool.close();
  });
  worker = await startWorker({
    db: options.db, connectionString: options.connectionString, pool, guard, registry: options.registry,
    concurrency: 1, jobTimeoutMs: 110_000, schedule: false,
  });
  return worker;
}

/** Waits (polling every 250 ms, at most `ms`) until run `runId` is done or failed: its status and error. */
export async function runEnded(db: Db, runId: number, ms: number): Promise<{ status: string; error: string | null }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    if (run.status === 'done' || run.status === 'failed') return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Waits (polling every 100 ms, at most `ms`) until graphile-worker holds no job locked, and returns
 * the jobs left. A task stores its run before graphile-worker records the job complete or failed
 * (and unlocks or deletes it), so a test that has seen the run end reads the queue through this.
 */
export async function jobsAtRest(db: Db, ms: number): Promise<Array<{ id: string; task_identifier: string; attempts: number; last_error: string | null }>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { rows } = await sql<{ id: string; task_identifier: string; attempts: number; last_error: string | null; locked: boolean }>`
      select id, task_identifier, attempts, last_error, locked_by is not null as locked from graphile_worker.jobs order by id`.execute(db);
    if (!rows.some((r) => r.locked)) return rows.map(({ locked: _, ...job }) => job);
    if (Date.now() > deadline) throw new Error(`graphile-worker still holds ${rows.filter((r) => r.locked).length} job(s) locked after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
