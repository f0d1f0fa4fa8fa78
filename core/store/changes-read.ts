/**
 * What changed between runs of a site (issue 31), read from the stored results: pairs of results
 * of one test type (the earlier and the later) and the diff of their findings (core/changes.ts).
 *
 * - Between two runs of the site: per test type present in both, that pair (either may be private:
 *   both are the site's).
 * - Over a time range: every consecutive pair of the site's public results of a type whose later
 *   result falls in the range, newest first (the pair's earlier result may be older than the
 *   range: it is the one that came before); paginated in SQL, so that only the page's results are
 *   read whole (index test_results_site_date; two years of daily runs of 17 types is 12,000 rows
 *   of ids and dates for the window function).
 * - Neither: per test type, its latest public result and the one before it ("since the last test").
 * Only judgements are compared: a result with an error (the page could not be loaded, the plugin
 * failed, the type was not available on the runner) has no findings to compare and is left out;
 * the pair is the judgements either side of it.
 */
import { sql } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import { diffFindings, type FindingChange, type StoredFinding } from '../changes.js';
import { NOT_RATED, type Category } from '../plugin-api.js';
import { WebperfError } from '../errors.js';

export interface ResultSide {
  runId: number;
  resultId: number;
  testDate: Date;
  url: string;
  rating: number;
  ratings: Record<Category, number | null>;
  /** Null for a result stored before findings were kept. */
  findings: StoredFinding[] | null;
}

export interface ChangePair {
  typeOfTest: number;
  from: ResultSide;
  to: ResultSide;
  /** Null when either side's findings were not kept. */
  changes: FindingChange[] | null;
}

export type ChangesQuery =
  | { kind: 'latest'; types: number[] | null; limit: number; offset: number }
  | { kind: 'range'; since: Date; until: Date; types: number[] | null; limit: number; offset: number }
  | { kind: 'runs'; fromRun: number; toRun: number; types: number[] | null; limit: number; offset: number };

interface ResultRow {
  id: string | number;
  run_id: string | number;
  type_of_test: number;
  test_date: Date;
  url: string;
  rating: string | number;
  rating_a11y: string | number | null;
  rating_infosec: string | number | null;
  rating_pagespeed: string | number | null;
  rating_webstandard: string | number | null;
  findings: StoredFinding[] | null;
}

const num = (v: string | number | null) => (v === null ? null : Number(v));

function side(row: ResultRow): ResultSide {
  return {
    runId: Number(row.run_id),
    resultId: Number(row.id),
    testDate: row.test_date,
    url: row.url,
    rating: Number(row.rating),
    ratings: { a11y: num(row.rating_a11y), infosec: num(row.rating_infosec), pagespeed: num(row.rating_pagespeed), webstandard: num(row.rating_webstandard) },
    findings: row.findings,
  };
}

async function resultsById(db: Db, ids: number[]): Promise<Map<number, ResultRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<ResultRow>`
    select id, run_id, type_of_test, test_date, url, rating, rating_a11y, rating_infosec, rating_pagespeed, rating_webstandard, findings
    from test_results where id = any(${ids}::bigint[])`.execute(db);
  return new Map(rows.map((r) => [Number(r.id), r]));
}

function pairOf(typeOfTest: number, a: ResultRow, b: ResultRow): ChangePair {
  const from = side(a);
  const to = side(b);
  return { typeOfTest, from, to, changes: from.findings && to.findings ? diffFindings(from.findings, to.findings) : null };
}

/** The pairs asked for and how many there are in all; null when the site does not exist. */
export async function readChanges(db: Db, siteId: number, q: ChangesQuery): Promise<{ total: number; pairs: ChangePair[] } | null> {
  const site = await db.selectFrom('sites').select('id').where('id', '=', siteId).executeTakeFirst();
  if (!site) return null;
  const types = q.types ? sql`and type_of_test = any(${q.types}::int[])` : sql``;
  if (q.kind === 'runs') {
    const runs = await db.selectFrom('test_runs').select(['id', 'site_id']).where('id', 'in', [q.fromRun, q.toRun]).execute();
    for (const id of [q.fromRun, q.toRun]) {
      // Another site's run is answered as one that does not exist: ids cannot be probed.
      if (!runs.some((r) => Number(r.id) === id && r.site_id === siteId)) throw new WebperfError('RUN_NOT_FOUND', `Run ${id} is not a run of website ${siteId}`);
    }
    const { rows } = await sql<{ a: string; b: string; type_of_test: number; total: string }>`
      select a.id as a, b.id as b, a.type_of_test, count(*) over () as total
      from test_results a join test_results b on b.type_of_test = a.type_of_test and b.run_id = ${q.toRun}
      where a.run_id = ${q.fromRun} and a.error is null and b.error is null ${q.types ? sql`and a.type_of_test = any(${q.types}::int[])` : sql``}
      order by a.type_of_test limit ${q.limit} offset ${q.offset}`.execute(db);
    const byId = await resultsById(db, rows.flatMap((r) => [Number(r.a), Number(r.b)]));
    return { total: rows.length ? Number(rows[0].total) : 0, pairs: rows.map((r) => pairOf(r.type_of_test, byId.get(Number(r.a))!, byId.get(Number(r.b))!)) };
  }
  const window = q.kind === 'range' ? sql`test_date >= ${q.since} and test_date < ${q.until}` : sql`newest = 1`;
  const { rows } = await sql<{ id: string; prev_id: string; type_of_test: number; total: string }>`
    with r as (
      select id, type_of_test, test_date,
        lag(id) over (partition by type_of_test order by test_date, id) as prev_id,
        row_number() over (partition by type_of_test order by test_date desc, id desc) as newest
      from test_results
      where site_id = ${siteId} and not private and error is null ${types}
    )
    select id, prev_id, type_of_test, count(*) over () as total
    from r where prev_id is not null and ${window}
    order by test_date desc, type_of_test
    limit ${q.limit} offset ${q.offset}`.execute(db);
  const byId = await resultsById(db, rows.flatMap((r) => [Number(r.id), Number(r.prev_id)]));
  return { total: rows.length ? Number(rows[0].total) : 0, pairs: rows.map((r) => pairOf(r.type_of_test, byId.get(Number(r.prev_id))!, byId.get(Number(r.id))!)) };
}

/** The change of a rating from one side to the other, two decimals; null when either is not rated. */
export function ratingChange(from: number | null, to: number | null): number | null {
  if (from === null || to === null || from === NOT_RATED || to === NOT_RATED) return null;
  return Math.round((to - from) * 100) / 100;
}
