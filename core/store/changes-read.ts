/**
 * What changed between runs of a site (issue 31), read from the stored results: pairs of results
 * of one test type (the earlier and the later) and the diff of their findings (core/changes.ts).
 *
 * - Between two runs of the site: per test type present in both, that pair (either may be private:
 *   both are the site's).
 * - Over a time range: every consecutive pair of the site's public results of a type whose later
 *   result falls in the range, newest first (the pair's earlier result may be older than the
 *   range: it is the one that came before); paginated in SQL, so that only the page's results are
 *   read whole.
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
  // Not by a window over the site's whole history (a sort of every result: 27 ms for two years of
  // daily runs of 10 types): one pass over the site's judgements counts the pairs per type, the
  // page's later results come newest first from the (site_id, test_date) index, and each finds
  // the judgement before it of its type by a short scan back from it, which ends at the type's
  // first judgement (a type's first judgement, or a type tested rarely among daily ones, would
  // otherwise read back through the whole history). A type's first judgement has no earlier one:
  // at most one such result per type is read past the page and dropped.
  const judged = sql`site_id = ${siteId} and not private and error is null ${types}`;
  const inRange = q.kind === 'range' ? sql`test_date >= ${q.since} and test_date < ${q.until}` : sql`true`;
  const earlier = sql`
    select e.id from test_results e
    where e.site_id = ${siteId} and e.type_of_test = l.type_of_test and not e.private and e.error is null
      and (e.test_date, e.id) < (l.test_date, l.id) and e.test_date >= pt.first
    order by e.test_date desc, e.id desc limit 1`;
  const { rows } = q.kind === 'range'
    ? await sql<{ id: string | null; prev_id: string | null; type_of_test: number | null; total: string }>`
      with per_type as (
        select type_of_test, min(test_date) as first, count(*) filter (where ${inRange}) as n
        from test_results where ${judged} group by type_of_test
      ), counted as (
        select coalesce(sum(n), 0) - count(*) filter (where first >= ${q.since} and first < ${q.until}) as total,
          count(*) filter (where first >= ${q.since} and first < ${q.until}) as firsts
        from per_type
      )
      select c.total, p.id, p.prev_id, p.type_of_test
      from counted c left join lateral (
        select l.id, l.type_of_test, l.test_date, prev.id as prev_id
        from (
          select id, type_of_test, test_date from test_results where ${judged} and ${inRange}
          order by test_date desc, type_of_test, id desc
          limit ${q.offset + q.limit} + c.firsts
        ) l join per_type pt on pt.type_of_test = l.type_of_test
        cross join lateral (${earlier}) prev
        order by l.test_date desc, l.type_of_test, l.id desc
        offset ${q.offset} limit ${q.limit}
      ) p on true
      order by p.test_date desc, p.type_of_test, p.id desc`.execute(db)
    : await sql<{ id: string | null; prev_id: string | null; type_of_test: number | null; total: string }>`
      with per_type as (
        select type_of_test, min(test_date) as first, max(test_date) as last from test_results where ${judged}
        group by type_of_test having count(*) > 1
      ), counted as (select count(*) as total from per_type)
      select c.total, p.id, p.prev_id, p.type_of_test
      from counted c left join lateral (
        select l.id, l.type_of_test, l.test_date, prev.id as prev_id
        from (select type_of_test, first from per_type order by last desc, type_of_test offset ${q.offset} limit ${q.limit}) pt
        cross join lateral (
          select id, type_of_test, test_date from test_results where ${judged} and type_of_test = pt.type_of_test
          order by test_date desc, id desc limit 1
        ) l cross join lateral (${earlier}) prev
      ) p on true
      order by p.test_date desc, p.type_of_test`.execute(db);
  const page = rows.filter((r) => r.id !== null);
  const byId = await resultsById(db, page.flatMap((r) => [Number(r.id), Number(r.prev_id)]));
  return { total: Number(rows[0]?.total ?? 0), pairs: page.map((r) => pairOf(r.type_of_test!, byId.get(Number(r.prev_id))!, byId.get(Number(r.id))!)) };
}

/** The change of a rating from one side to the other, two decimals; null when either is not rated. */
export function ratingChange(from: number | null, to: number | null): number | null {
  if (from === null || to === null || from === NOT_RATED || to === NOT_RATED) return null;
  return Math.round((to - from) * 100) / 100;
}
