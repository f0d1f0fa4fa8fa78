/**
 * Audits: the order (through the one credit transaction of core/store/orders.ts), the pages stored
 * as they finish (so a runner that dies resumes where it stopped), progress, and the result files.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Selectable } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import type { AuditPages, Audits } from '../db/schema.js';
import type { CrawledPage } from '../audit/crawl.js';
import { WebperfError } from '../errors.js';
import { QUOTA_PERIOD_DAYS, auditCost, plural } from '../quota.js';
import { addJob } from './jobs.js';
import { placeOrder } from './orders.js';

export type AuditRow = Selectable<Audits>;
export type AuditPageRow = Selectable<AuditPages>;
export type AuditFormat = 'csv' | 'audit' | 'audit_v2';

/** At most one audit order per site within this many seconds (the spec's "one per hour"). */
export const AUDIT_ORDER_INTERVAL_S = 3600;
/** The job that crawls and tests an audit. */
export const AUDIT_TASK = 'run_audit';

/** An opaque, unguessable folder name: 128 random bits, base64url (22 characters). */
export function newFolderName(): string {
  return randomBytes(16).toString('base64url');
}

/** What a folder name may look like; anything else is refused before the database is asked. */
export const FOLDER_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export interface NewAudit {
  siteId: number;
  keyId: number | null;
  /** The portal user who ordered, if any. */
  userId?: number | null;
  pages: number;
  format: AuditFormat;
  /** Where the crawl starts: the site's start page. */
  baseUrl: string;
  title: string;
}

export interface PlacedAudit {
  orderId: number;
  auditId: number;
  folder: string;
  credits: number;
  available: number;
}

/** The spec's audit refusal: how many credits the audit needs and how many remain. */
export function auditQuotaMessage(needed: number, available: number): string {
  return `The audit needs ${plural(needed, 'credit', 'credits')}; ${plural(available, 'remains', 'remain')} in the current ${QUOTA_PERIOD_DAYS}-day period.`;
}

/**
 * Orders an audit: one credit per page, refused as a whole (QUOTA_EXCEEDED) when it does not fit;
 * AUDIT_TOO_SOON (429, details.retryAfter in seconds) when the site already has an audit order in
 * the last hour. Both checks run under the site-row lock placeOrder takes, so two racing orders
 * cannot both pass. The audit row and its job are written in the same transaction.
 */
export async function placeAudit(db: Db, audit: NewAudit): Promise<PlacedAudit> {
  if (!Number.isInteger(audit.pages) || audit.pages < 1) throw new WebperfError('PAGES_INVALID');
  const credits = auditCost(audit.pages);
  const folder = newFolderName();
  let auditId = 0;
  const placed = await placeOrder(db, {
    siteId: audit.siteId,
    keyId: audit.keyId,
    userId: audit.userId ?? null,
    kind: 'audit',
    credits,
    payload: { pages: audit.pages, format: audit.format, base_url: audit.baseUrl },
    runs: [],
    precheck: async (trx) => {
      const recent = await trx
        .selectFrom('orders')
        // The clock, not now(): now() is this transaction's start, which may be before the order
        // it waited for under the site lock was created (a racing order was told 3601 s).
        .select(sql<number>`ceil(extract(epoch from (max(created_at) + make_interval(secs => ${AUDIT_ORDER_INTERVAL_S}) - clock_timestamp())))::int`.as('wait'))
        .where('site_id', '=', audit.siteId)
        .where('kind', '=', 'audit')
        .where('created_at', '>', sql<Date>`clock_timestamp() - make_interval(secs => ${AUDIT_ORDER_INTERVAL_S})`)
        .executeTakeFirst();
      if (recent?.wait != null) {
        const retryAfter = Math.max(1, Number(recent.wait));
        throw new WebperfError('AUDIT_TOO_SOON', `An audit was already ordered for site ${audit.siteId} within the last hour; order again in ${retryAfter} seconds`, { retryAfter });
      }
    },
    also: async (trx, orderId) => {
      const row = await trx
        .insertInto('audits')
        .values({
          site_id: audit.siteId,
          order_id: orderId,
          key_id: audit.keyId,
          title: audit.title,
          format: audit.format,
          folder,
          base_url: audit.baseUrl,
          pages: audit.pages,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      auditId = Number(row.id);
      // Several attempts: a runner killed mid-audit is retried and resumes from the stored pages.
      await addJob(trx, { task: AUDIT_TASK, payload: { auditId }, jobKey: `audit:${auditId}`, maxAttempts: 5 });
    },
  }).catch((err: unknown) => {
    // The spec's audit refusal names the audit: how many credits it needs and how many remain.
    if (err instanceof WebperfError && err.code === 'QUOTA_EXCEEDED' && err.details) {
      const { needed, available } = err.details as { needed: number; available: number };
      throw new WebperfError('QUOTA_EXCEEDED', auditQuotaMessage(needed, available), err.details);
    }
    throw err;
  });
  return { orderId: placed.orderId, auditId, folder, credits: placed.credits, available: placed.available };
}

export async function getAudit(db: Db, id: number): Promise<AuditRow | undefined> {
  return db.selectFrom('audits').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getAuditByFolder(db: Db, folder: string): Promise<AuditRow | undefined> {
  if (!FOLDER_PATTERN.test(folder)) return undefined;
  return db.selectFrom('audits').selectAll().where('folder', '=', folder).executeTakeFirst();
}

/** The site's finished audits, newest first (unfinished ones are not listed). */
export async function listFinishedAudits(db: Db, siteId: number): Promise<AuditRow[]> {
  return db.selectFrom('audits').selectAll().where('site_id', '=', siteId).where('status', '=', 'done').orderBy('date_modified', 'desc').orderBy('id', 'desc').execute();
}

export async function markAudit(db: Db, id: number, status: 'running' | 'failed', error?: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('audits')
      .set({ status, error: error ?? null, date_modified: new Date(), ...(status === 'failed' ? { finished_at: new Date() } : {}) })
      .where('id', '=', id)
      .where('status', '!=', 'done')
      .execute();
    await trx.updateTable('orders').set({ status }).where('id', '=', (eb) => eb.selectFrom('audits').select('order_id').where('id', '=', id)).execute();
  });
}

/** The pages stored so far, in crawl order. */
export async function auditPages(db: Db, auditId: number): Promise<AuditPageRow[]> {
  return db.selectFrom('audit_pages').selectAll().where('audit_id', '=', auditId).orderBy('position').execute();
}

/** One audited page, as the crawler hands it over. */
export type PageRecord = CrawledPage;

/** Stores one finished (or failed) page and the progress; a page stored before is left as it is. */
export async function recordAuditPage(db: Db, auditId: number, page: PageRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('audit_pages')
      .values({
        audit_id: auditId,
        position: page.position,
        url: page.url,
        status: page.status,
        error: page.error ?? null,
        links: JSON.stringify(page.links),
        result: JSON.stringify(page.result),
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
    await trx
      .updateTable('audits')
      .set((eb) => ({
        pages_done: eb.selectFrom('audit_pages').select(sql<number>`count(*)::int`.as('n')).where('audit_id', '=', auditId),
        date_modified: new Date(),
      }))
      .where('id', '=', auditId)
      .execute();
  });
}

export interface AuditFile {
  name: string;
  contentType: string;
  content: Buffer;
}

/** Stores the result files and marks the audit done, together. */
export async function finishAudit(db: Db, auditId: number, files: AuditFile[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('audit_files').where('audit_id', '=', auditId).execute();
    if (files.length) {
      await trx.insertInto('audit_files').values(files.map((f) => ({ audit_id: auditId, name: f.name, content_type: f.contentType, content: f.content }))).execute();
    }
    const now = new Date();
    await trx.updateTable('audits').set({ status: 'done', error: null, date_modified: now, finished_at: now }).where('id', '=', auditId).execute();
    await trx.updateTable('orders').set({ status: 'done' }).where('id', '=', (eb) => eb.selectFrom('audits').select('order_id').where('id', '=', auditId)).execute();
  });
}

export async function readAuditFile(db: Db, auditId: number, name: string): Promise<AuditFile | undefined> {
  const row = await db.selectFrom('audit_files').select(['name', 'content_type', 'content']).where('audit_id', '=', auditId).where('name', '=', name).executeTakeFirst();
  return row ? { name: row.name, contentType: row.content_type, content: row.content } : undefined;
}

/** Every audit of the site, newest first, whatever its status (the portal lists queued and failed ones too). */
export async function listAudits(db: Db, siteId: number, limit = 50): Promise<AuditRow[]> {
  return db.selectFrom('audits').selectAll().where('site_id', '=', siteId).orderBy('id', 'desc').limit(limit).execute();
}
