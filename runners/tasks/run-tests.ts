/**
 * Task run_tests: test one queued run's page and store all its results in one transaction.
 * One Chromium per runner process (the pool relaunches it after a crash); a hard time limit per
 * job that really stops the work: one AbortSignal (graphile-worker's, for a shutdown, joined with
 * the time limit) runs through the page load and the plugins and closes the browser context, and
 * a late attempt stores nothing.
 */
import type { Task } from 'graphile-worker';
import { executeRun, type EngineDeps } from '../../core/engine.js';
import { isDatabaseUnavailable, waitForDatabase, type Db } from '../../core/db/database.js';
import { WebperfError } from '../../core/errors.js';
import { recordRunFailed } from '../../core/metrics.js';
import { markRun, requeueRun } from '../../core/store/runs.js';
import type { BrowserPool } from '../browser-pool.js';
import type { SparePage } from '../../core/gather/guarded-context.js';
import type { PluginRegistry } from '../../core/registry.js';
import type { TargetGuard } from '../../core/net/target-guard.js';

declare global {
  namespace GraphileWorker {
    interface Tasks {
      run_tests: { runId: number };
    }
  }
}

export interface RunTestsDeps {
  db: Db;
  pool: BrowserPool;
  guard: TargetGuard;
  registry: PluginRegistry;
  jobTimeoutMs: number;
  /** The runner's spare context and page for the next load. */
  spare?: SparePage;
  /** Called after a run's results are stored (webhooks, logs). */
  onStored?: (runId: number, resultIds: number[]) => Promise<void> | void;
}

/** How long a run cut short by a database outage waits for the database to return. */
const DB_WAIT_MS = 5 * 60_000;

function isPayload(p: unknown): p is { runId: number } {
  return typeof p === 'object' && p !== null && Number.isInteger((p as { runId?: unknown }).runId);
}

export function runTestsTask(deps: RunTestsDeps): Task<'run_tests'> {
  return async (payload, helpers) => {
    // Old or SQL-added jobs may not match the declared type: check at run time.
    if (!isPayload(payload)) throw new Error(`run_tests: invalid payload ${JSON.stringify(payload)}`);
    const limit = AbortSignal.timeout(deps.jobTimeoutMs);
    const signal = AbortSignal.any([helpers.abortSignal, limit]);
    try {
      const browser = await deps.pool.acquire();
      const engine: EngineDeps = { browser, guard: deps.guard, registry: deps.registry, gatherTimeoutMs: deps.jobTimeoutMs, spare: deps.spare };
      const ids = await executeRun(deps.db, payload.runId, engine, { signal });
      helpers.logger.info(`run ${payload.runId}: stored ${ids.length} results`);
      if (ids.length > 0) await deps.onStored?.(payload.runId, ids);
    } catch (caught) {
      if (isDatabaseUnavailable(caught) && !helpers.abortSignal.aborted) {
        // The database went away mid-run: not the page's fault, so no attempt is spent on it. Wait
        // for it to come back, then queue the run afresh; this job ends as done. Should the wait
        // fail, the error goes to graphile-worker, which retries (its own retries ride out restarts).
        await waitForDatabase(deps.db, AbortSignal.any([helpers.abortSignal, AbortSignal.timeout(DB_WAIT_MS)]));
        await requeueRun(deps.db, payload.runId, `run ${payload.runId}: the database went away during the run; queued again`);
        helpers.logger.warn(`run ${payload.runId}: the database went away during the run; queued again`);
        return;
      }
      let err = caught;
      if (limit.aborted) err = new WebperfError('TIMEOUT', `run ${payload.runId} took longer than ${deps.jobTimeoutMs} ms`);
      else if (helpers.abortSignal.aborted) err = new Error(`run ${payload.runId}: the runner stopped`);
      const message = err instanceof Error ? err.message : String(err);
      // A target the guard refuses will never succeed: do not retry it.
      const final = (err instanceof WebperfError && err.code === 'TARGET_BLOCKED') || helpers.job.attempts >= helpers.job.max_attempts;
      // The run fails only when no attempt is left; until then it waits for its retry.
      const marked = await markRun(deps.db, payload.runId, final ? 'failed' : 'queued', message).catch(() => null);
      // Counted when it failed for good (not when another attempt had stored it meanwhile).
      if (final && marked) recordRunFailed(deps.registry.select(marked.testTypes).map((p) => p.meta.id));
      if (err instanceof WebperfError && err.code === 'TARGET_BLOCKED') {
        helpers.logger.warn(`run ${payload.runId}: ${message}`);
        return;
      }
      throw err;
    }
  };
}
