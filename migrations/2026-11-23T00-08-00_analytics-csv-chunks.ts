/**
 * The agency CSV's records joined ahead of time, per run of 500 consecutive site ids (a "bucket",
 * ~65 KiB of text): GET /webanalytics then reads ~8 rows for 4,000 sites in key order instead of
 * sorting and joining 4,000 records per request (measured: the sort and join were most of the
 * time above a static file of the same bytes; bench/webanalytics.ts).
 *
 * A chunk is never served stale: a trigger on analytics_csv_rows clears the chunk of any record
 * whose text or followed flag changes, is inserted or deleted, in that change's transaction
 * (analytics_csv_rows itself is kept by the triggers of 2026-11-23T00-05-00, so every change the
 * CSV depends on reaches it). A reader meeting a cleared chunk joins it afresh in a REPEATABLE
 * READ transaction and stores it there: should a change touch the chunk after the reader's
 * snapshot, storing fails with a serialization error instead of overwriting the clearing, and the
 * reader tries again (core/store/webanalytics.ts).
 *
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  // The one definition of a bucket, shared by the trigger and the reader's queries.
  await sql`
    create function analytics_csv_bucket(site integer) returns integer
    language sql immutable parallel safe as $$ select site / 500 $$`.execute(db);
  await db.schema
    .createTable('analytics_csv_chunks')
    .addColumn('bucket', 'integer', (c) => c.primaryKey())
    /** The bucket's followed sites' records in site id order, each followed by "\n"; null until (re-)joined. */
    .addColumn('text', 'text')
    .execute();
  // Kept uncompressed (out of line): a request reads every chunk, and decompressing ~65 KiB per
  // chunk was a measurable share of its time; the text is written far less often than read.
  await sql`alter table analytics_csv_chunks alter column text set storage external`.execute(db);
  await sql`insert into analytics_csv_chunks (bucket) select distinct analytics_csv_bucket(site_id) from analytics_csv_rows`.execute(db);

  await sql`
    create function analytics_csv_chunk_stale() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into analytics_csv_chunks (bucket) values (analytics_csv_bucket(new.site_id))
        on conflict (bucket) do update set text = null;
        return null;
      end if;
      update analytics_csv_chunks set text = null where bucket = analytics_csv_bucket(old.site_id);
      if tg_op = 'UPDATE' and analytics_csv_bucket(new.site_id) <> analytics_csv_bucket(old.site_id) then
        insert into analytics_csv_chunks (bucket) values (analytics_csv_bucket(new.site_id))
        on conflict (bucket) do update set text = null;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger analytics_csv_chunk_rows after insert or delete on analytics_csv_rows
    for each row execute function analytics_csv_chunk_stale()`.execute(db);
  // A version bump alone (the record was already cleared) changes nothing a chunk shows.
  await sql`
    create trigger analytics_csv_chunk_change after update on analytics_csv_rows
    for each row when ((old.site_id, old.line, old.followed) is distinct from (new.site_id, new.line, new.followed))
    execute function analytics_csv_chunk_stale()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger analytics_csv_chunk_change on analytics_csv_rows`.execute(db);
  await sql`drop trigger analytics_csv_chunk_rows on analytics_csv_rows`.execute(db);
  await sql`drop function analytics_csv_chunk_stale()`.execute(db);
  await db.schema.dropTable('analytics_csv_chunks').execute();
  await sql`drop function analytics_csv_bucket(integer)`.execute(db);
}
