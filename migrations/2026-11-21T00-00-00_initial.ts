/**
 * The initial schema. Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('premium_levels')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('monthly_quota', 'integer', (c) => c.notNull().check(sql`monthly_quota >= 0`))
    .execute();

  await db.schema
    .createTable('sites')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    /** Municipality or Region for the public sector; null for other sites. */
    .addColumn('org_category', 'text', (c) => c.check(sql`org_category in ('Municipality', 'Region')`))
    .addColumn('org_code', 'text', (c) => c.unique())
    .addColumn('same_as', 'text')
    .addColumn('public_sector', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('followed', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('premium_level', 'text', (c) => c.references('premium_levels.name').onDelete('set null'))
    /** Credit ceiling set on the site itself; overrides the premium level's. */
    .addColumn('monthly_quota', 'integer', (c) => c.check(sql`monthly_quota >= 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('categories')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull().unique())
    .execute();

  await db.schema
    .createTable('site_categories')
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('category_id', 'integer', (c) => c.notNull().references('categories.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('site_categories_pk', ['site_id', 'category_id'])
    .execute();
  await db.schema.createIndex('site_categories_category').on('site_categories').column('category_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    /** The public, recognisable part of the key (wp_live_xxxxxxxx); used to find the row. */
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    /** SHA-256 of the whole key. The key itself is never stored. */
    .addColumn('hash', 'bytea', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('standard', 'agency', 'admin')`))
    .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('key_sites')
    .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('key_sites_pk', ['key_id', 'site_id'])
    .execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('retest', 'test_once', 'audit')`))
    .addColumn('credits', 'integer', (c) => c.notNull().check(sql`credits >= 0`))
    .addColumn('payload', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued').check(sql`status in ('queued', 'running', 'done', 'failed')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('orders_site_kind_created').on('orders').columns(['site_id', 'kind', 'created_at']).execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('order_id', 'bigint', (c) => c.references('orders.id').onDelete('cascade'))
    .addColumn('credits', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('credit_ledger_site_created').on('credit_ledger').columns(['site_id', 'created_at']).execute();

  await db.schema
    .createTable('test_runs')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('order_id', 'bigint', (c) => c.references('orders.id').onDelete('set null'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('private', 'boolean', (c) => c.notNull().defaultTo(false))
    /** Test types asked for; null means every available one. */
    .addColumn('test_types', sql`integer[]`)
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued').check(sql`status in ('queued', 'running', 'done', 'failed')`))
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('test_runs_site_private').on('test_runs').columns(['site_id', 'private', 'created_at']).execute();

  await db.schema
    .createTable('test_results')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('test_runs.id').onDelete('cascade'))
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('private', 'boolean', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('type_of_test', 'integer', (c) => c.notNull())
    .addColumn('rating', 'numeric(7, 5)', (c) => c.notNull())
    .addColumn('rating_a11y', 'numeric(7, 5)')
    .addColumn('rating_infosec', 'numeric(7, 5)')
    .addColumn('rating_pagespeed', 'numeric(7, 5)')
    .addColumn('rating_webstandard', 'numeric(7, 5)')
    /** { sv: { overall, a11y, perf, sec, stand }, en: {...} } */
    .addColumn('reports', 'jsonb', (c) => c.notNull())
    .addColumn('json_check_data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('error', 'text')
    .addColumn('test_date', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('test_results_run').on('test_results').column('run_id').execute();
  await db.schema.createIndex('test_results_site_date').on('test_results').columns(['site_id', 'test_date']).execute();

  // Summaries kept as results land (ARCHITECTURE.md: not recomputed per request).
  await db.schema
    .createTable('latest_results')
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('type_of_test', 'integer', (c) => c.notNull())
    .addColumn('result_id', 'bigint', (c) => c.notNull().references('test_results.id').onDelete('cascade'))
    .addColumn('test_date', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('latest_results_pk', ['site_id', 'type_of_test'])
    .execute();

  await db.schema
    .createTable('site_scores')
    .addColumn('site_id', 'integer', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('a11y', 'numeric(7, 5)')
    .addColumn('infosec', 'numeric(7, 5)')
    .addColumn('pagespeed', 'numeric(7, 5)')
    .addColumn('webstandard', 'numeric(7, 5)')
    .addColumn('overall', 'numeric(7, 5)')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('monthly_scores')
    /** data_id in the API. */
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('timeperiod', 'text', (c) => c.notNull().check(sql`timeperiod ~ '^[0-9]{4}-[0-9]{2}$'`))
    .addColumn('type_of_score', 'text', (c) =>
      c.notNull().check(sql`type_of_score in ('kat-total', 'kat-infosec', 'kat-a11y', 'kat-perf', 'kat-webstandard')`),
    )
    .addColumn('score_sum', 'numeric', (c) => c.notNull())
    .addColumn('score_count', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('monthly_scores_unique', ['site_id', 'timeperiod', 'type_of_score'])
    .execute();

  await db.schema
    .createTable('category_scores')
    .addColumn('category_id', 'integer', (c) => c.primaryKey().references('categories.id').onDelete('cascade'))
    .addColumn('a11y', 'numeric(7, 5)')
    .addColumn('infosec', 'numeric(7, 5)')
    .addColumn('pagespeed', 'numeric(7, 5)')
    .addColumn('webstandard', 'numeric(7, 5)')
    .addColumn('overall', 'numeric(7, 5)')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('audits')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('order_id', 'bigint', (c) => c.references('orders.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull().check(sql`format in ('csv', 'audit', 'audit_v2')`))
    .addColumn('folder', 'text', (c) => c.notNull().unique())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('pages', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('date_modified', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('audit_files')
    .addColumn('audit_id', 'bigint', (c) => c.notNull().references('audits.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_files_pk', ['audit_id', 'name'])
    .execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('site_id', 'integer', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('threshold', 'numeric(7, 5)')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('result_id', 'bigint', (c) => c.references('test_results.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('delivered_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('analytics_detections')
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('test_runs.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('test_date', 'timestamptz', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_detections_pk', ['run_id', 'tool'])
    .execute();
  await db.schema.createIndex('analytics_detections_site_date').on('analytics_detections').columns(['site_id', 'test_date']).execute();

  /** Key-value settings of the installation (demo site id, ...). */
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'jsonb', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'settings', 'analytics_detections', 'webhook_deliveries', 'webhooks', 'audit_files', 'audits',
    'category_scores', 'monthly_scores', 'site_scores', 'latest_results', 'test_results', 'test_runs',
    'credit_ledger', 'orders', 'key_sites', 'api_keys', 'site_categories', 'categories', 'sites', 'premium_levels',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
