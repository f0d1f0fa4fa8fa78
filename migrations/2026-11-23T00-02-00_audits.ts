/**
 * Audits: progress on the audit row, and one row per crawled page, written as each page finishes
 * so that a runner that dies mid-audit resumes where it stopped. Frozen in time: never import app code.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('audits')
    .addColumn('pages_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .addColumn('error', 'text')
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema
    .alterTable('audits')
    .addCheckConstraint('audits_status', sql`status in ('queued', 'running', 'done', 'failed')`)
    .execute();
  // The recent-order check (one audit per site and hour) reads these.
  await db.schema.createIndex('audits_site_created').on('audits').columns(['site_id', 'created_at']).execute();

  await db.schema
    .createTable('audit_pages')
    .addColumn('audit_id', 'bigint', (c) => c.notNull().references('audits.id').onDelete('cascade'))
    /** Crawl order (0 = the start page). */
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('done', 'failed')`))
    .addColumn('error', 'text')
    /** Normalised same-site links found on the page, so a resumed crawl need not load it again. */
    .addColumn('links', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    /** Per-page outcome: category scores, failing audits/rules, privacy findings. */
    .addColumn('result', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('finished_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('audit_pages_pk', ['audit_id', 'url'])
    .addUniqueConstraint('audit_pages_position', ['audit_id', 'position'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_pages').ifExists().execute();
  await db.schema.dropIndex('audits_site_created').ifExists().execute();
  await db.schema.alterTable('audits').dropConstraint('audits_status').execute();
  await db.schema.alterTable('audits').dropColumn('pages_done').dropColumn('key_id').dropColumn('error').dropColumn('finished_at').execute();
}
