/**
 * Task run_tests: test one queued run's page and store all its results in one transaction.
 * One Chromium per runner process (the pool relaunches it after a crash); a hard time limit per job.
 */
import type { Task } from 'graphile-worker';
import { executeRun, type EngineDeps } from '../../core/engine.js';
import type { Db } from '../../core/db/database.js';
import { WebperfError } from '../../core/errors.js';
import { markRun } from '../../core/store/runs.js';
import type { BrowserPool } from '../browser-pool.js';
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
  /** Called after a run's results are stored (webhooks, logs). */
  onStored?: (runId: number, resultIds: number[]) => Promise<void> | void;
}

function isPayload(p: unknown): p is { runId: number } {
  return typeof p === 'object' && p !== null && Number.isInteger((p as { runId?: unknown }).runId);
}

export function runTestsTask(deps: RunTestsDeps): Task<'run_tests'> {
  return async (payload, helpers) => {
    // Old or SQL-added jobs may not match the declared type: check at run time.
    if (!isPayload(payload)) throw new Error(`run_tests: invalid payload ${JSON.stringify(payload)}`);
    const browser = await deps.pool.acquire();
    const engine: EngineDeps = { browser, guard: deps.guard, registry: deps.registry, gatherTimeoutMs: deps.jobTimeoutMs };
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WebperfError('TIMEOUT', `run ${payload.runId} took longer than ${deps.jobTimeoutMs} ms`)), deps.jobTimeoutMs);
    });
    try {
      const ids = await Promise.race([executeRun(deps.db, payload.runId, engine), limit]);
      helpers.logger.info(`run ${payload.runId}: stored ${ids.length} results`);
      await deps.onStored?.(payload.runId, ids);
    } catch (err) {
      await markRun(deps.db, payload.runId, 'failed', err instanceof Error ? err.message : String(err)).catch(() => {});
      // A target the guard refuses will never succeed: do not retry it.
      if (err instanceof WebperfError && err.code === 'TARGET_BLOCKED') {
        helpers.logger.warn(`run ${payload.runId}: ${err.message}`);
        return;
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  };
}
