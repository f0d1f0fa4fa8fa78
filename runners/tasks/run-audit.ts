/**
 * Task run_audit: crawl and test a site for one audit order. Pages are stored as they finish, so a
 * retried job (runner killed, Chromium lost) resumes from the stored pages; the credits were taken
 * once, when the order was accepted. One page failing or hanging is recorded as a failed page and
 * never fails the audit.
 */
import type { Task } from 'graphile-worker';
import { executeAudit, type AuditDeps } from '../../core/audit/execute.js';
import type { CruxSettings } from '../../core/audit/crux.js';
import type { Db } from '../../core/db/database.js';
import type { SparePage } from '../../core/gather/guarded-context.js';
import type { TargetGuard } from '../../core/net/target-guard.js';
import type { PluginRegistry } from '../../core/registry.js';
import { markAudit } from '../../core/store/audits.js';
import a11y from '../../plugins/a11y/index.js';
import analytics from '../../plugins/analytics/index.js';
import pagespeed from '../../plugins/pagespeed/index.js';
import tracking from '../../plugins/tracking/index.js';
import type { BrowserPool } from '../browser-pool.js';

declare global {
  namespace GraphileWorker {
    interface Tasks {
      run_audit: { auditId: number };
    }
  }
}

/** The test families an audit runs on every page: Lighthouse's categories, axe, tracking and cookies, analytics. */
export const AUDIT_PLUGIN_IDS: readonly number[] = [pagespeed, a11y, tracking, analytics].map((p) => p.meta.id);

export interface RunAuditDeps {
  db: Db;
  pool: BrowserPool;
  guard: TargetGuard;
  registry: PluginRegistry;
  /** Time limit of one page's load. */
  jobTimeoutMs: number;
  crux: CruxSettings;
  /** The runner's spare context and page for the next load. */
  spare?: SparePage;
}

function isPayload(p: unknown): p is { auditId: number } {
  return typeof p === 'object' && p !== null && Number.isInteger((p as { auditId?: unknown }).auditId);
}

export function auditDeps(deps: Omit<RunAuditDeps, 'db'>): AuditDeps {
  return {
    browser: () => deps.pool.acquire(),
    guard: deps.guard,
    registry: deps.registry,
    plugins: deps.registry.select(AUDIT_PLUGIN_IDS),
    crux: deps.crux,
    pageTimeoutMs: deps.jobTimeoutMs,
    spare: deps.spare,
  };
}

export function runAuditTask(deps: RunAuditDeps): Task<'run_audit'> {
  return async (payload, helpers) => {
    // Old or SQL-added jobs may not match the declared type: check at run time.
    if (!isPayload(payload)) throw new Error(`run_audit: invalid payload ${JSON.stringify(payload)}`);
    try {
      await executeAudit(deps.db, payload.auditId, auditDeps(deps));
      helpers.logger.info(`audit ${payload.auditId}: done`);
    } catch (err) {
      // The last attempt records the failure; earlier ones leave it running so the retry resumes.
      if (helpers.job.attempts >= helpers.job.max_attempts) {
        await markAudit(deps.db, payload.auditId, 'failed', err instanceof Error ? err.message : String(err)).catch(() => {});
      }
      throw err;
    }
  };
}
