/**
 * Executes an audit: crawl and test every page (one Chromium, a clean browser context per page,
 * each page stored as it finishes), then build the result files and mark the audit done, in one
 * transaction. A runner that dies mid-audit is retried by its job and resumes from the stored
 * pages; the credits were taken once, at the order.
 */
import type { Browser } from 'puppeteer-core';
import type { Db } from '../db/database.js';
import type { SparePage } from '../gather/guarded-context.js';
import { createProbes } from '../net/probes.js';
import type { TargetGuard } from '../net/target-guard.js';
import type { PhaseTimes } from '../phase-times.js';
import type { TestPlugin } from '../plugin-api.js';
import type { PluginRegistry } from '../registry.js';
import { auditPages, finishAudit, getAudit, markAudit, recordAuditPage, type AuditFile, type AuditFormat } from '../store/audits.js';
import { crawl, type CrawledPage } from './crawl.js';
import { cruxSummary, type CruxSettings } from './crux.js';
import type { PageResult } from './page-result.js';
import { accessibilityCsv, buildAuditFiles, type SummaryPage } from './summaries.js';
import { crawlOnlyVisitor, testingVisitor } from './visit.js';

export interface AuditDeps {
  /** The runner's Chromium (relaunched by the pool after a crash, so asked for per page). */
  browser: () => Promise<Browser>;
  guard: TargetGuard;
  registry: PluginRegistry;
  /** The plugins each page is tested with. */
  plugins: readonly TestPlugin[];
  crux: CruxSettings;
  /** Time limit of one page's load. */
  pageTimeoutMs?: number;
  /** Progress: pages finished of pages ordered. */
  onProgress?: (done: number, total: number, page: CrawledPage) => void;
  /** Adds the wall time of each step to these (the audit benchmark's profile). */
  times?: PhaseTimes;
  /** A runner's spare context and page for the next load (core/gather/guarded-context.ts). */
  spare?: SparePage;
}

/** Crawls and tests a site; pages in `done` are replayed, `onPage` stores each new one. */
export async function auditCrawl(start: string, pages: number, deps: AuditDeps, done: readonly CrawledPage[] = [], onPage?: (p: CrawledPage) => Promise<void>, format: AuditFormat = 'audit_v2'): Promise<CrawledPage[]> {
  const browser = await deps.browser();
  // csv: axe only, no Lighthouse (much faster).
  const visitWith = (b: Browser) => format === 'csv'
    ? crawlOnlyVisitor(b, deps.guard, deps.pageTimeoutMs, { axe: true })
    : testingVisitor(deps.plugins, { browser: b, guard: deps.guard, registry: deps.registry, gatherTimeoutMs: deps.pageTimeoutMs, spare: deps.spare }, deps.times);
  let count = done.length;
  const result = await crawl({
    start,
    pages,
    probes: createProbes(deps.guard),
    done,
    times: deps.times,
    visit: async (url) => visitWith(await deps.browser().catch(() => browser))(url),
    onPage: async (p) => {
      await onPage?.(p);
      deps.onProgress?.(++count, pages, p);
    },
  });
  return result.pages;
}

/** The result files of a finished crawl. */
export async function auditFiles(format: AuditFormat, baseUrl: string, folder: string, pagesOrdered: number, pages: readonly CrawledPage[], crux: CruxSettings, date = new Date()): Promise<AuditFile[]> {
  const summaryPages: SummaryPage[] = pages.map((p) => ({ url: p.url, status: p.status, error: p.error ?? null, result: p.result as Partial<PageResult> }));
  if (format === 'csv') return [await accessibilityCsv(summaryPages)];
  const cruxFile = format === 'audit_v2' ? await cruxSummary(crux, new URL(baseUrl).origin, pages.filter((p) => p.status === 'done').map((p) => p.url)) : null;
  return buildAuditFiles(format, { folder, baseUrl, date: date.toISOString(), pagesOrdered }, summaryPages, cruxFile);
}

/** Runs a queued (or interrupted) audit to its end. */
export async function executeAudit(db: Db, auditId: number, deps: AuditDeps): Promise<void> {
  const audit = await getAudit(db, auditId);
  if (!audit) throw new Error(`Audit ${auditId} does not exist`);
  if (audit.status === 'done') return;
  await markAudit(db, auditId, 'running');
  const stored: CrawledPage[] = (await auditPages(db, auditId)).map((p) => ({
    position: p.position,
    url: p.url,
    status: p.status as CrawledPage['status'],
    error: p.error,
    links: p.links as string[],
    result: p.result as Record<string, unknown>,
  }));
  const pages = await auditCrawl(audit.base_url, audit.pages, deps, stored, (p) => recordAuditPage(db, auditId, p), audit.format as AuditFormat);
  const files = await auditFiles(audit.format as AuditFormat, audit.base_url, audit.folder, audit.pages, pages, deps.crux);
  await finishAudit(db, auditId, files);
}
