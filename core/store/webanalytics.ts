/**
 * The agency analytics list: per followed site its latest analytics test (type 101) and the tools
 * that test detected (analytics_detections of its run), streamed through a cursor so memory does
 * not grow with the number of sites.
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** The analytics plugin's test type (core/catalogue.ts, entry 101). */
export const ANALYTICS_TEST_TYPE = 101;
/** Rows fetched per cursor read. */
const CHUNK = 500;

/** One followed site. */
export interface AnalyticsSiteRow {
  title: string;
  /** The tested address of the latest analytics test; the start page before the first. */
  url: string;
  /** The latest analytics test; null before the first. */
  testDate: Date | null;
  /** Tools that test detected; null before the first test. */
  tools: string[] | null;
}

/** Every followed site by id, with its latest analytics detections. */
export async function* streamAnalyticsSites(db: Db): AsyncGenerator<AnalyticsSiteRow> {
  const rows = db
    .selectFrom('sites as s')
    .leftJoin('latest_results as l', (j) => j.onRef('l.site_id', '=', 's.id').on('l.type_of_test', '=', ANALYTICS_TEST_TYPE))
    .leftJoin('test_results as r', (j) => j.onRef('r.id', '=', 'l.result_id').on('r.private', '=', false))
    .select([
      's.title',
      sql<string>`coalesce(r.url, s.url)`.as('url'),
      'r.test_date',
      // Index: analytics_detections_pk (run_id, tool).
      sql<string[] | null>`case when r.id is null then null else array(select d.tool from analytics_detections d where d.run_id = r.run_id order by d.tool) end`.as('tools'),
    ])
    .where('s.followed', '=', true)
    .orderBy('s.id')
    .stream(CHUNK);
  for await (const r of rows) {
    yield { title: r.title, url: r.url, testDate: r.test_date, tools: r.tools };
  }
}
