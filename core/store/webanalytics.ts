/**
 * The agency analytics list: per followed site its latest analytics test (type 101) and the tools
 * that test detected (analytics_detections of its run).
 *
 * Two layers kept by the database, so a request reads ~8 rows of joined text for 4,000 sites:
 * - analytics_csv_rows: each site's CSV record, pre-rendered when its data changes (the runner
 *   storing a result, an operator changing an address: same transaction). Triggers clear a record
 *   in the transaction of any change it depends on (migration 2026-11-23T00-05-00); a reader
 *   meeting a cleared record renders it and stores it back unless it changed again meanwhile
 *   (version).
 * - analytics_csv_chunks: the records of each run of 500 consecutive site ids (~65 KiB, under
 *   V8's large-object size, so each chunk string dies young), joined in site id order (migration
 *   2026-11-23T00-08-00). A trigger clears a chunk when one of its records changes; a reader
 *   meeting a cleared chunk joins and stores it (joinChunk).
 * Read by cursor in bucket order, a few chunks at a time, so memory does not grow with the number
 * of sites, and a stale record is never served, whatever wrote the change.
 */
import { sql, type Transaction } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { ROW_DELIMITER, renderAnalyticsRecord } from '../analytics-csv.js';

/** The analytics plugin's test type (core/catalogue.ts, entry 101). */
export const ANALYTICS_TEST_TYPE = 101;
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

/** The PostgreSQL error a REPEATABLE READ transaction gets when a row it writes changed after its snapshot. */
const SERIALIZATION_FAILURE = '40001';
/** Joins of one chunk tried before it is served without being stored (other writers keep changing it). */
const STORE_ATTEMPTS = 3;

/**
 * Every followed site's record by site id, in chunks of whole records each followed by the row
 * delimiter: the joined chunks of analytics_csv_chunks, read by cursor, a few per read; the next
 * read waits until the chunks before it have been taken (backpressure from the client down to
 * PostgreSQL). A chunk cleared by a change is joined afresh (joinChunk) and stored back.
 */
export async function* streamAnalyticsCsvChunks(db: Db): AsyncGenerator<string> {
  // Chunks without a followed site (text '') are skipped by the database: an installation that
  // knows many more sites than it follows would otherwise spend a round trip per four of them.
  const chunks = db
    .selectFrom('analytics_csv_chunks')
    .select(['bucket', 'text'])
    .where((eb) => eb.or([eb('text', 'is', null), eb('text', '<>', '')]))
    .orderBy('bucket')
    .stream(4);
  for await (const chunk of chunks) {
    yield chunk.text ?? (await joinChunk(db, chunk.bucket));
  }
}

/**
 * Joins one bucket's records (rendering and storing any cleared record first) and stores the
 * chunk, in one REPEATABLE READ transaction: a change that clears the chunk after this snapshot
 * makes the store fail (serialization failure) instead of being overwritten by older text; the
 * join is then tried again on a fresh snapshot. After STORE_ATTEMPTS such failures the records
 * are joined once more and served without storing the chunk (it stays cleared).
 */
async function joinChunk(db: Db, bucket: number): Promise<string> {
  for (let attempt = 1; attempt <= STORE_ATTEMPTS; attempt++) {
    try {
      return await db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
        const current = await trx.selectFrom('analytics_csv_chunks').select('text').where('bucket', '=', bucket).executeTakeFirst();
        // Joined meanwhile by another reader.
        if (current?.text != null) return current.text;
        const joined = await joinRecords(trx, bucket);
        await trx.updateTable('analytics_csv_chunks').set({ text: joined }).where('bucket', '=', bucket).execute();
        return joined;
      });
    } catch (err) {
      if ((err as { code?: unknown }).code !== SERIALIZATION_FAILURE) throw err;
    }
  }
  return joinRecords(db, bucket);
}

/** The bucket's followed sites' records in site id order, each followed by the row delimiter; cleared ones rendered and stored. */
async function joinRecords(db: Executor, bucket: number): Promise<string> {
  const rows = await db
    .selectFrom('analytics_csv_rows')
    .select(['site_id', 'line'])
    .where('followed', '=', true)
    .where(sql<number>`analytics_csv_bucket(site_id)`, '=', bucket)
    .orderBy('site_id')
    .execute();
  const fresh = await renderAndStore(db, rows.filter((r) => r.line === null).map((r) => r.site_id));
  let joined = '';
  for (const r of rows) {
    const line = r.line ?? fresh.get(r.site_id);
    // undefined: the site was deleted meanwhile.
    if (line !== undefined) joined += line + ROW_DELIMITER;
  }
  return joined;
}
