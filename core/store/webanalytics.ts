/**
 * The agency analytics list: per followed site its latest analytics test (type 101) and the tools
 * that test detected (analytics_detections of its run).
 *
 * Served from analytics_csv_rows: each site's CSV record pre-rendered when its data changes (the
 * runner storing a result, an operator changing an address: same transaction), read by cursor in
 * site id order in large batches, so a request is one index scan of one table and its memory does
 * not grow with the number of sites. Database triggers clear a record in the transaction of any
 * change it depends on (migration 2026-11-23T00-05-00); a reader meeting a cleared record renders
 * it from the detections and stores it back unless it changed again meanwhile (version), so a
 * stale record is never served, whatever wrote the change.
 */
import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { ROW_DELIMITER, renderAnalyticsRecord } from '../analytics-csv.js';

/** The analytics plugin's test type (core/catalogue.ts, entry 101). */
export const ANALYTICS_TEST_TYPE = 101;
/**
 * Sites per chunk: PostgreSQL joins each run of up to this many consecutive site ids' records into
 * one string (~65 KiB), so the process handles a few strings instead of thousands of rows. Kept
 * under V8's large-object size (~128 KiB): each chunk dies young, in the new space, instead of
 * piling up in the large-object space until a full collection.
 */
const SITES_PER_CHUNK = 500;

type Executor = Db | Transaction<DB>;

/** Renders these sites' records from the detections and stores each over the version it was read with. */
async function renderAndStore(db: Executor, siteIds: number[]): Promise<Map<number, string>> {
  if (!siteIds.length) return new Map();
  const sources = await db
    .selectFrom('sites as s')
    .innerJoin('analytics_csv_rows as c', 'c.site_id', 's.id')
    .leftJoin('latest_results as l', (j) => j.onRef('l.site_id', '=', 's.id').on('l.type_of_test', '=', ANALYTICS_TEST_TYPE))
    .leftJoin('test_results as r', (j) => j.onRef('r.id', '=', 'l.result_id').on('r.private', '=', false))
    .select([
      's.id',
      's.title',
      'c.version',
      sql<string>`coalesce(r.url, s.url)`.as('url'),
      'r.test_date',
      // Index: analytics_detections_pk (run_id, tool).
      sql<string[] | null>`case when r.id is null then null else array(select d.tool from analytics_detections d where d.run_id = r.run_id order by d.tool) end`.as('tools'),
    ])
    .where('s.id', 'in', siteIds)
    .execute();
  const lines = await Promise.all(sources.map((s) => renderAnalyticsRecord({ title: s.title, url: s.url, testDate: s.test_date, tools: s.tools })));
  await sql`
    update analytics_csv_rows c set line = v.line
    from unnest(${sources.map((s) => s.id)}::int[], ${sources.map((s) => s.version)}::bigint[], ${lines}::text[]) as v(site_id, version, line)
    where c.site_id = v.site_id and c.version = v.version`.execute(db);
  return new Map(sources.map((s, i) => [s.id, lines[i]]));
}

/** Re-renders one site's record; called in the transaction that changed what it shows. */
export async function refreshAnalyticsCsvRow(trx: Executor, siteId: number): Promise<void> {
  await renderAndStore(trx, [siteId]);
}

/**
 * Every followed site's record by site id, in chunks of whole records each followed by the row
 * delimiter. Read by cursor, a few chunks per read; the next read waits until the chunks before it
 * have been taken (backpressure from the client down to PostgreSQL).
 */
export async function* streamAnalyticsCsvChunks(db: Db): AsyncGenerator<string> {
  const bucket = sql<number>`site_id / ${sql.lit(SITES_PER_CHUNK)}`;
  const chunks = db
    .selectFrom('analytics_csv_rows')
    .select([
      bucket.as('bucket'),
      sql<string | null>`string_agg(line || ${sql.lit(ROW_DELIMITER)}, '' order by site_id)`.as('text'),
      sql<number>`count(*) filter (where line is null)`.as('cleared'),
    ])
    .where('followed', '=', true)
    .groupBy(bucket)
    .orderBy(bucket)
    .stream(4);
  for await (const chunk of chunks) {
    if (chunk.cleared === 0) {
      yield chunk.text ?? '';
      continue;
    }
    // Some records were cleared by a change: render them afresh (and store them back).
    const rows = await db
      .selectFrom('analytics_csv_rows')
      .select(['site_id', 'line'])
      .where('followed', '=', true)
      .where(bucket, '=', chunk.bucket)
      .orderBy('site_id')
      .execute();
    const fresh = await renderAndStore(db, rows.filter((r) => r.line === null).map((r) => r.site_id));
    let out = '';
    for (const r of rows) {
      const line = r.line ?? fresh.get(r.site_id);
      // undefined: the site was deleted meanwhile.
      if (line !== undefined) out += line + ROW_DELIMITER;
    }
    yield out;
  }
}
