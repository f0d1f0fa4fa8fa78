/**
 * The open public-sector list (GET /public-sector/): its websites and when it last changed.
 */
import { sql } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import { listPublicSector } from './sites.js';

export interface PublicSectorList {
  rows: Awaited<ReturnType<typeof listPublicSector>>;
  /** When the newest public-sector website was added; null for an empty list. */
  changedAt: Date | null;
}

export async function readPublicSector(db: Db): Promise<PublicSectorList> {
  const [rows, changed] = await Promise.all([
    listPublicSector(db),
    db.selectFrom('sites').select((eb) => eb.fn.max('created_at').as('at')).where('public_sector', '=', true).executeTakeFirst(),
  ]);
  return { rows, changedAt: changed?.at ? new Date(changed.at) : null };
}

/** Columns the public-sector score list sorts by. */
export const SCORE_LIST_SORTS = ['title', 'category', 'overall', 'a11y', 'pagespeed', 'infosec', 'webstandard', 'tested'] as const;
export type ScoreListSort = (typeof SCORE_LIST_SORTS)[number];

export interface ScoreListQuery {
  /** Part of the title, any case; empty or absent: every website. */
  q?: string;
  category?: 'Municipality' | 'Region';
  sort?: ScoreListSort;
  dir?: 'asc' | 'desc';
}

/** One public-sector website with its latest scores (unrounded; null until rated). */
export interface ScoreListRow {
  id: number;
  title: string;
  url: string;
  category: string | null;
  sameAs: string | null;
  overall: number | null;
  a11y: number | null;
  pagespeed: number | null;
  infosec: number | null;
  webstandard: number | null;
  /** The latest public test of the website; null before its first result. */
  lastTested: Date | null;
}

// Organisation names are Swedish: å, ä, ö sort after z, in that order, whatever the page language.
const byTitle = new Intl.Collator('sv', { sensitivity: 'base', numeric: true });

function compareRows(sort: ScoreListSort, dir: 1 | -1): (a: ScoreListRow, b: ScoreListRow) => number {
  const value = (r: ScoreListRow): string | number | null =>
    sort === 'title' ? r.title : sort === 'category' ? r.category : sort === 'tested' ? (r.lastTested?.getTime() ?? null) : r[sort];
  return (a, b) => {
    const va = value(a);
    const vb = value(b);
    let c = 0;
    if (va === null || vb === null) c = va === vb ? 0 : va === null ? 1 : -1; // unrated last, either direction
    else c = dir * (typeof va === 'string' ? byTitle.compare(va, vb as string) : va - (vb as number));
    return c || byTitle.compare(a.title, b.title) || a.id - b.id;
  };
}

/**
 * The public-sector websites with their latest scores and last test date, filtered, searched and sorted
 * (the dashboard's start page and its downloads). Reads only the summaries kept
 * as results land: site_scores (one row per site) and latest_results (one row per site and test
 * type, by its primary key), never the history. Unrated values sort last in either direction.
 */
export async function listPublicSectorScores(db: Db, query: ScoreListQuery = {}): Promise<ScoreListRow[]> {
  const q = query.q?.trim().toLocaleLowerCase('sv') ?? '';
  const { rows } = await sql<{
    id: number; title: string; url: string; org_category: string | null; same_as: string | null;
    overall: number | null; a11y: number | null; pagespeed: number | null; infosec: number | null; webstandard: number | null; tested: Date | null;
  }>`
    select s.id, s.title, s.url, s.org_category, s.same_as,
      sc.overall::float8 as overall, sc.a11y::float8 as a11y, sc.pagespeed::float8 as pagespeed,
      sc.infosec::float8 as infosec, sc.webstandard::float8 as webstandard,
      (select max(l.test_date) from latest_results l where l.site_id = s.id) as tested
    from sites s
    left join site_scores sc on sc.site_id = s.id
    where s.public_sector
      ${query.category ? sql`and s.org_category = ${query.category}` : sql``}
  `.execute(db);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const list = rows.filter((r) => !q || r.title.toLocaleLowerCase('sv').includes(q)).map((r) => ({
    id: r.id,
    title: r.title,
    url: r.url,
    category: r.org_category,
    sameAs: r.same_as,
    overall: num(r.overall),
    a11y: num(r.a11y),
    pagespeed: num(r.pagespeed),
    infosec: num(r.infosec),
    webstandard: num(r.webstandard),
    lastTested: r.tested === null ? null : new Date(r.tested),
  }));
  // Searched and sorted here rather than in SQL: Swedish case and collation whatever the
  // database's locale (lower('Å') is 'Å' under the C locale); a few hundred rows.
  return list.sort(compareRows(query.sort ?? 'title', query.dir === 'desc' ? -1 : 1));
}
