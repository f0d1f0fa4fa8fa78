/**
 * The agency CSV's records, pre-rendered: per site its CSV record (fast-csv quoted, formulas
 * neutralised), so GET /webanalytics streams one table in key order instead of formatting
 * thousands of rows per request.
 *
 * The application renders a record (it needs fast-csv, so not in SQL); the database guarantees it
 * is never served stale: triggers, in the transaction of any change the record depends on (a
 * site's title, address or followed flag; its latest analytics result; detections), clear the
 * record and bump its version. A reader that meets a cleared record renders it afresh and stores
 * it back only if the version is still the one it read. Every site has a row from its insert on.
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_csv_rows')
    .addColumn('site_id', 'integer', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    /** sites.followed, copied so that a reader scans this table alone. */
    .addColumn('followed', 'boolean', (c) => c.notNull())
    /** The record: cells joined by ";", without the row delimiter; null until (re-)rendered. */
    .addColumn('line', 'text')
    /** Bumped by every change of what the record shows; a render stores only over the version it read. */
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`insert into analytics_csv_rows (site_id, followed) select id, followed from sites`.execute(db);

  await sql`
    create function analytics_csv_stale(site integer) returns void language sql as $$
      update analytics_csv_rows set line = null, version = version + 1 where site_id = site
    $$`.execute(db);
  await sql`
    create function analytics_csv_site() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into analytics_csv_rows (site_id, followed) values (new.id, new.followed);
      else
        update analytics_csv_rows set followed = new.followed where site_id = new.id;
        if (old.title, old.url) is distinct from (new.title, new.url) then
          perform analytics_csv_stale(new.id);
        end if;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger analytics_csv_site after insert or update of title, url, followed on sites
    for each row execute function analytics_csv_site()`.execute(db);
  // The analytics test is type 101 (the catalogue's entry); detections are its findings.
  await sql`
    create function analytics_csv_latest() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' then
        if old.type_of_test = 101 then perform analytics_csv_stale(old.site_id); end if;
      end if;
      if tg_op <> 'DELETE' then
        if new.type_of_test = 101 then perform analytics_csv_stale(new.site_id); end if;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create function analytics_csv_detection() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' then perform analytics_csv_stale(old.site_id); end if;
      if tg_op <> 'DELETE' then perform analytics_csv_stale(new.site_id); end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger analytics_csv_latest after insert or update or delete on latest_results
    for each row execute function analytics_csv_latest()`.execute(db);
  await sql`
    create trigger analytics_csv_detection after insert or update or delete on analytics_detections
    for each row execute function analytics_csv_detection()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger analytics_csv_detection on analytics_detections`.execute(db);
  await sql`drop trigger analytics_csv_latest on latest_results`.execute(db);
  await sql`drop trigger analytics_csv_site on sites`.execute(db);
  await sql`drop function analytics_csv_detection()`.execute(db);
  await sql`drop function analytics_csv_latest()`.execute(db);
  await sql`drop function analytics_csv_site()`.execute(db);
  await db.schema.dropTable('analytics_csv_rows').execute();
  await sql`drop function analytics_csv_stale(integer)`.execute(db);
}
