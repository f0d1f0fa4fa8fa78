/**
 * Webhooks that arrive: the initial schema's webhooks and webhook_deliveries tables get what
 * signing, rotation, retries and disabling need. Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    /** The payload's uri (the site's /item/{id} address) and api_version, as the API that set the webhook names them. */
    .addColumn('item_uri', 'text', (c) => c.notNull())
    .addColumn('api_version', 'text', (c) => c.notNull())
    /** The secret being rotated out; it still signs until previous_secret_expires_at. */
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    /** First failed attempt since the last success; null while deliveries succeed. */
    .addColumn('failing_since', 'timestamptz')
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('disabled_reason', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .alterTable('webhook_deliveries')
    /** The webhook-id header: stable across the retries of one event. */
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    /** 'result' (a stored test result) or 'test' (POST /webhook/test). */
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('result').check(sql`kind in ('result', 'test')`))
    .addColumn('type_of_test', 'integer')
    .addColumn('url', 'text')
    /** The exact JSON body, built when the event is queued, so every retry sends the same bytes. */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('next_attempt_at', 'timestamptz')
    .execute();
  await sql`alter table webhook_deliveries add constraint webhook_deliveries_status check (status in ('pending', 'delivered', 'failed', 'gone'))`.execute(db);
  await db.schema.createIndex('webhook_deliveries_site_created').on('webhook_deliveries').columns(['site_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_site_created').ifExists().execute();
  await sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_status`.execute(db);
  for (const col of ['event_id', 'kind', 'type_of_test', 'url', 'payload', 'duration_ms', 'last_attempt_at', 'next_attempt_at']) {
    await db.schema.alterTable('webhook_deliveries').dropColumn(col).execute();
  }
  for (const col of ['item_uri', 'api_version', 'previous_secret', 'previous_secret_expires_at', 'failing_since', 'disabled_at', 'disabled_reason', 'updated_at']) {
    await db.schema.alterTable('webhooks').dropColumn(col).execute();
  }
}
