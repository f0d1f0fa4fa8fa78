/**
 * Read side of the premium API: every query behind the premium read routes (stats, monthly
 * scores, private tests, categories, quota). Each answers from the summaries kept as results land
 * (latest_results, monthly_scores, site_scores, category_scores) or from one indexed range, so a
 * request costs one round trip and nothing is recomputed per request.
 *
 * Queries that name a site start from `sites` and left-join the data, so that one round trip also
 * tells "the site does not exist" (null) from "the site has nothing yet" (empty list).
 */
import { sql } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import type { ReportLang } from '../i18n/langs.js';
import type { ReportSet } from '../report.js';
import { creditStatus, QUOTA_PERIOD_DAYS } from '../quota.js';

export { QUOTA_PERIOD_DAYS };


/** One site a key reaches (GET /stats/). */
export interface ReachableSite {
  id: number;
  title: string;
  url: string;
  /** Latest public test of the site; null before its first result. */
  latestTestDate: Date | null;
}

/**
 * The sites a key reaches, by id: `siteIds` as linked to the key, or every site (null: admin).
 * Uses the sites primary key and latest_results(site_id, ...) for the latest test date.
 */
export async function listReachableSites(db: Db, siteIds: readonly number[] | null): Promise<ReachableSite[]> {
  if (siteIds !== null && siteIds.length === 0) return [];
  let q = db
    .selectFrom('sites as s')
    .select((eb) => [
      's.id',
      's.title',
      's.url',
      eb.selectFrom('latest_results as l').select((e) => e.fn.max('l.test_date').as('d')).whereRef('l.site_id', '=', 's.id').as('latest_test_date'),
    ])
    .orderBy('s.id');
  if (siteIds !== null) q = q.where('s.id', 'in', [...siteIds]);
  const rows = await q.execute();
  return rows.map((r) => ({ id: r.id, title: r.title, url: r.url, latestTestDate: r.latest_test_date === null ? null : new Date(r.latest_test_date) }));
}

/** One stored test result in one report language, shaped for the API. */
export interface ResultRow {
  typeOfTest: number;
  /** 1.0–5.0, or -1 when not rated. */
  rating: number;
  /** ISO 8601 in UTC, to the millisecond (as Date#toISOString). */
  testDate: string;
  report: ReportSet;
  /** The stored json_check_data as JSON text. */
  jsonCheckData: string;
}

interface RawResult {
  type_of_test: number | null;
  rating: number | null;
  test_date: string | null;
  overall: string | null;
  a11y: string | null;
  perf: string | null;
  sec: string | null;
  stand: string | null;
  json_check_data: string | null;
}

function toResult(r: RawResult): ResultRow {
  return {
    typeOfTest: r.type_of_test!,
    rating: Number(r.rating),
    testDate: r.test_date!,
    report: { overall: r.overall ?? '', a11y: r.a11y ?? '', perf: r.perf ?? '', sec: r.sec ?? '', stand: r.stand ?? '' },
    jsonCheckData: r.json_check_data ?? '{}',
  };
}

/** ISO 8601 text of a timestamptz in UTC, as Date#toISOString writes it. */
const isoUtc = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * The columns of a result in one report language. Texts, dates and JSON are read as text: nothing
 * is parsed only to be written again (about half the CPU of reading the jsonb and dates as values).
 */
const resultColumns = (lang: ReportLang) => sql`
  r.type_of_test, r.rating::float8 as rating, ${isoUtc('r.test_date')} as test_date,
  r.reports -> ${lang}::text ->> 'overall' as overall, r.reports -> ${lang}::text ->> 'a11y' as a11y,
  r.reports -> ${lang}::text ->> 'perf' as perf, r.reports -> ${lang}::text ->> 'sec' as sec,
  r.reports -> ${lang}::text ->> 'stand' as stand, r.json_check_data::text as json_check_data`;

/**
 * The latest public result per test type of a site, in one report language, by type_of_test;
 * null when the site does not exist. latest_results holds public results only (runs.ts); the
 * `private` condition is a second guard. Index: latest_results_pk(site_id, type_of_test), then
 * test_results' primary key.
 */
export async function readLatestResults(db: Db, siteId: number, lang: ReportLang): Promise<ResultRow[] | null> {
  const { rows } = await sql<RawResult>`
    select ${resultColumns(lang)}
    from sites s
    left join latest_results l on l.site_id = s.id
    left join test_results r on r.id = l.result_id and not r.private
    where s.id = ${siteId}::int
    order by l.type_of_test`.execute(db);
  if (rows.length === 0) return null;
  return rows.filter((r) => r.type_of_test !== null).map(toResult);
}

/** One monthly score (GET /stats_per_month/{siteId}). */
export interface MonthlyScoreRow {
  dataId: number;
  /** score_sum / score_count, rounded to 2 decimal places (half away from zero). */
  score: number;
  timeperiod: string;
  typeOfScore: string;
}

/** A site's monthly scores and when the latest of them changed (ISO 8601 UTC; null without any). */
export interface MonthlyScores {
  rows: MonthlyScoreRow[];
  updatedAt: string | null;
}

/**
 * A site's monthly scores, by timeperiod then type_of_score; null when the site does not exist.
 * Index: monthly_scores_unique(site_id, timeperiod, type_of_score).
 */
export async function readMonthlyScores(db: Db, siteId: number): Promise<MonthlyScores | null> {
  const { rows } = await sql<{ id: number | null; score: number | null; timeperiod: string | null; type_of_score: string | null; updated_at: string | null }>`
    select m.id, round(m.score_sum / nullif(m.score_count, 0), 2)::float8 as score, m.timeperiod, m.type_of_score,
      ${isoUtc('max(m.updated_at) over ()')} as updated_at
    from sites s
    left join monthly_scores m on m.site_id = s.id
    where s.id = ${siteId}::int
    order by m.timeperiod, m.type_of_score`.execute(db);
  if (rows.length === 0) return null;
  return {
    rows: rows
      .filter((r) => r.id !== null)
      .map((r) => ({ dataId: Number(r.id), score: Number(r.score ?? 0), timeperiod: r.timeperiod!, typeOfScore: r.type_of_score! })),
    updatedAt: rows[0].updated_at,
  };
}

/** One private test (a private run) of a site. */
export interface PrivateTestRow {
  id: number;
  url: string;
  status: string;
  createdAt: Date;
  finishedAt: Date | null;
}

/**
 * A site's private tests, newest first, optionally only those of the given addresses (exact
 * match); null when the site does not exist. Index: test_runs_site_private(site_id, private,
 * created_at), read backwards.
 */
export async function listPrivateTests(db: Db, siteId: number, urls: readonly string[] | null): Promise<PrivateTestRow[] | null> {
  const filter = urls === null ? sql`` : sql`and t.url = any(${[...urls]}::text[])`;
  const { rows } = await sql<{ id: number | null; url: string | null; status: string | null; created_at: Date | null; finished_at: Date | null }>`
    select t.id, t.url, t.status, t.created_at, t.finished_at
    from sites s
    left join test_runs t on t.site_id = s.id and t.private ${filter}
    where s.id = ${siteId}::int
    order by t.created_at desc, t.id desc`.execute(db);
  if (rows.length === 0) return null;
  return rows
    .filter((r) => r.id !== null)
    .map((r) => ({ id: Number(r.id), url: r.url!, status: r.status!, createdAt: new Date(r.created_at!), finishedAt: r.finished_at === null ? null : new Date(r.finished_at) }));
}

/** One private test with its results. */
export interface PrivateTestDetail extends PrivateTestRow {
  results: ResultRow[];
}

/**
 * One private test of a site with every result of it, by type_of_test; null when no private run
 * has that id for that site (another site's run, a public run or no run at all look the same).
 * Index: test_runs primary key, then test_results_run(run_id).
 */
export async function readPrivateTest(db: Db, siteId: number, testId: number, lang: ReportLang): Promise<PrivateTestDetail | null> {
  const run = await db
    .selectFrom('test_runs')
    .select(['id', 'url', 'status', 'created_at', 'finished_at'])
    .where('id', '=', testId)
    .where('site_id', '=', siteId)
    .where('private', '=', true)
    .executeTakeFirst();
  if (!run) return null;
  const { rows } = await sql<RawResult>`
    select ${resultColumns(lang)}
    from test_results r
    where r.run_id = ${testId}::bigint and r.private
    order by r.type_of_test, r.id`.execute(db);
  return {
    id: Number(run.id),
    url: run.url,
    status: run.status,
    createdAt: new Date(run.created_at),
    finishedAt: run.finished_at === null ? null : new Date(run.finished_at),
    results: rows.map(toResult),
  };
}

/** One category with its averages (null where no site of it is rated), unrounded. */
export interface CategoryScoreRow {
  id: number;
  title: string;
  a11y: number | null;
  infosec: number | null;
  pagespeed: number | null;
  webstandard: number | null;
  overall: number | null;
  updatedAt: Date | null;
}

/** Every category by id with its averages from category_scores (kept up to date in runs.ts). */
export async function readCategoryScores(db: Db): Promise<CategoryScoreRow[]> {
  const rows = await db
    .selectFrom('categories as c')
    .leftJoin('category_scores as cs', 'cs.category_id', 'c.id')
    .select(['c.id', 'c.title', 'cs.a11y', 'cs.infosec', 'cs.pagespeed', 'cs.webstandard', 'cs.overall', 'cs.updated_at'])
    .orderBy('c.id')
    .execute();
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    a11y: num(r.a11y),
    infosec: num(r.infosec),
    pagespeed: num(r.pagespeed),
    webstandard: num(r.webstandard),
    overall: num(r.overall),
    updatedAt: r.updated_at === null ? null : new Date(r.updated_at),
  }));
}

/** A site's credit quota over the rolling window. */
export interface Quota {
  siteId: number;
  /** The ceiling: the site's own monthly_quota, else its premium level's, else 0. */
  monthlyQuota: number;
  /** Sum of the credits of the ledger rows younger than the window. */
  used: number;
  /** max(0, monthlyQuota − used). */
  available: number;
  periodDays: number;
}

/**
 * The quota of a site, or null when the site does not exist. A ledger row counts while
 * created_at > now() − 30 days, so credits free up continuously, exactly 30 days after use.
 * Index: credit_ledger_site_created(site_id, created_at).
 * (To merge with core/quota.ts, which orders use to check and book credits in one transaction.)
 */
export async function readQuota(db: Db, siteId: number): Promise<Quota | null> {
  // One rule for the window and the ceiling: the same one orders are checked against.
  const status = await creditStatus(db, siteId);
  if (!status) return null;
  return { siteId, monthlyQuota: status.ceiling, used: status.used, available: status.available, periodDays: QUOTA_PERIOD_DAYS };
}

/** A site's current scores (the summary kept as results land), for lists of sites. */
export interface SiteScoreRow {
  siteId: number;
  overall: number | null;
  a11y: number | null;
  pagespeed: number | null;
  infosec: number | null;
  webstandard: number | null;
}

/** The kept scores of these sites (every site with scores when null), by site id. Index: site_scores primary key. */
export async function readSiteScores(db: Db, siteIds: readonly number[] | null): Promise<Map<number, SiteScoreRow>> {
  if (siteIds !== null && siteIds.length === 0) return new Map();
  let q = db.selectFrom('site_scores').select(['site_id', 'overall', 'a11y', 'pagespeed', 'infosec', 'webstandard']);
  if (siteIds !== null) q = q.where('site_id', 'in', [...siteIds]);
  const rows = await q.execute();
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return new Map(rows.map((r) => [r.site_id, { siteId: r.site_id, overall: num(r.overall), a11y: num(r.a11y), pagespeed: num(r.pagespeed), infosec: num(r.infosec), webstandard: num(r.webstandard) }]));
}
