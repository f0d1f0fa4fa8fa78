/**
 * What is wrong with the software found, and the rating (webperf_core's test 25, family A):
 *
 * Per detection (enrich): known vulnerabilities (RetireJS for JavaScript libraries; the CVE lists
 * of data/server-software.json for nginx, Apache and OpenSSL); how many known releases are newer
 * (BEHIND levels; a version older than the oldest release listed is BEHIND100, the lists being cut
 * short); an end-of-life branch (data/server-software.json, against the run's time, or
 * RetireJS's end-of-life notices); an archived or long-unpushed source repository
 * (data/js-libraries.json, against the day that data was taken); an accessibility overlay.
 *
 * Pooled over the page as upstream pools them (one issue key for all software), each issue gives
 * sub-ratings, and each category is the plain mean of the sub-ratings that set it:
 *   each distinct vulnerability id        1.0   overall, infosec
 *   BEHIND100/075/050/025/010/001         2.0 / 2.25 / 2.5 / 2.75 / 3.0 / 4.9 (one per level present)
 *   ARCHIVED_SOURCE                       1.75
 *   UNMAINTAINED_SOURCE_3..10_YEARS       4.0, 3.5, 3.0, 2.5, 2.0, 1.5, 1.0, 1.0 (one per level present)
 *   END_OF_LIFE                           1.75
 *   A11Y_OVERLAY                          1.0   overall, a11y
 *   none of: vulnerabilities, BEHIND, source issues, end of life   5.0 each, overall and infosec
 *   no overlay                            5.0   overall, a11y
 */
import { round } from '../../core/rating.js';
import { JS_DATA, SERVER_DATA } from './data.js';
import type { Vulnerability } from './retire-data.js';
import { MAX_RESOURCES, type Detection } from './detect.js';
import { isEndOfLifeNotice, vulnerabilityIds } from './retire-scan.js';
import { behindLevel, inBranch, isComparable, newerReleases, olderThanListed } from './versions.js';

export type BehindKey = NonNullable<ReturnType<typeof behindLevel>>;

/** One known vulnerability of one piece of software. */
export interface KnownVulnerability {
  /** The ids it is counted under (see retire-scan.ts vulnerabilityIds). */
  ids: string[];
  severity: string | null;
  summary: string | null;
  /** Where the fact comes from: 'retirejs' or 'server-software'. */
  source: 'retirejs' | 'server-software';
}

export interface EndOfLifeFact {
  branch: string | null;
  /** YYYY-MM-DD; null when not recorded. */
  date: string | null;
  source: string;
}

export interface SoftwareIssues {
  vulnerabilities: KnownVulnerability[];
  /** Known releases newer than this version (null: no release data or no version). */
  newerReleases: number | null;
  latest: string | null;
  behind: BehindKey | null;
  /** Older than the oldest release listed: BEHIND100 whatever newerReleases says (the list is cut short). */
  olderThanListed: boolean;
  endOfLife: EndOfLifeFact | null;
  archived: boolean;
  /** UNMAINTAINED level in years (3..10), null when pushed to recently or not known. */
  unmaintainedYears: number | null;
  overlay: boolean;
}

const SERVER_CATEGORIES = new Set(['cms', 'webserver', 'os', 'tech']);

/** The year of a YYYY-MM-DD date. */
const yearOf = (date: string) => Number(date.slice(0, 4));

/** Upstream's UNMAINTAINED_SOURCE_{n}_YEARS: the largest n in 3..10 with last push < year − n. */
export function unmaintainedYears(lastPushedYear: number | null, asOfYear: number): number | null {
  if (lastPushedYear === null) return null;
  const n = Math.min(10, asOfYear - lastPushedYear - 1);
  return n >= 3 ? n : null;
}

export function enrich(d: Detection, now: Date): SoftwareIssues {
  const issues: SoftwareIssues = {
    vulnerabilities: [],
    newerReleases: null,
    latest: null,
    behind: null,
    olderThanListed: false,
    endOfLife: null,
    archived: false,
    unmaintainedYears: null,
    overlay: d.category === 'a11y_overlay',
  };
  const version = d.version !== null && isComparable(d.version) ? d.version : null;
  const today = now.toISOString().slice(0, 10);

  const server = SERVER_CATEGORIES.has(d.category) ? SERVER_DATA.software[d.key] : undefined;
  if (server && d.version !== null) {
    for (const id of server.cves?.[d.version] ?? []) issues.vulnerabilities.push({ ids: [id], severity: null, summary: null, source: 'server-software' });
    if (version && server.releases.length) {
      issues.newerReleases = newerReleases(version, server.releases);
      issues.olderThanListed = olderThanListed(version, server.releases);
      issues.latest = server.releases[0];
    }
    const eol = server.end_of_life.find((e) => inBranch(d.version!, e.branch) && (e.date === null || e.date < today));
    if (eol) issues.endOfLife = { branch: eol.branch, date: eol.date, source: eol.source };
  }

  if (d.category === 'js') {
    const library = JS_DATA.libraries[d.key];
    if (library) {
      if (version && library.releases.length) {
        issues.newerReleases = newerReleases(version, library.releases);
        issues.olderThanListed = olderThanListed(version, library.releases);
        issues.latest = library.releases[0];
      }
      issues.archived = library.archived;
      issues.unmaintainedYears = unmaintainedYears(library.last_pushed_year, yearOf(JS_DATA.taken));
    }
    for (const v of d.vulnerabilities) {
      if (isEndOfLifeNotice(v)) {
        issues.endOfLife ??= { branch: null, date: null, source: v.info?.[0] ?? 'RetireJS' };
        continue;
      }
      issues.vulnerabilities.push(known(d.key, v));
    }
  }
  if (issues.newerReleases !== null) issues.behind = issues.olderThanListed ? 'BEHIND100' : behindLevel(issues.newerReleases);
  return issues;
}

function known(component: string, v: Vulnerability): KnownVulnerability {
  return { ids: vulnerabilityIds(component, v), severity: v.severity ?? null, summary: v.identifiers?.summary?.trim() || null, source: 'retirejs' };
}

/** One pooled issue of the page, as upstream's result['issues'][key]. */
export interface PooledIssue {
  key: string;
  /** "name version", at most MAX_RESOURCES. */
  softwares: string[];
  /** At most MAX_RESOURCES. */
  resources: string[];
  /** CVE: the distinct vulnerability ids. */
  ids: string[];
}

/** The page's issues, pooled per key, in upstream's order of rating. */
export function poolIssues(found: readonly { detection: Detection; issues: SoftwareIssues }[]): PooledIssue[] {
  const pool = new Map<string, PooledIssue>();
  const add = (key: string, d: Detection, ids: string[] = []) => {
    let p = pool.get(key);
    if (!p) {
      p = { key, softwares: [], resources: [], ids: [] };
      pool.set(key, p);
    }
    const label = d.version ? `${d.name} ${d.version}` : d.name;
    if (p.softwares.length < MAX_RESOURCES && !p.softwares.includes(label)) p.softwares.push(label);
    for (const r of d.resources) if (p.resources.length < MAX_RESOURCES && !p.resources.includes(r)) p.resources.push(r);
    for (const id of ids) if (!p.ids.includes(id)) p.ids.push(id);
  };
  for (const { detection: d, issues } of found) {
    const ids = issues.vulnerabilities.flatMap((v) => v.ids);
    if (ids.length) add('CVE', d, ids);
    if (issues.behind) add(issues.behind, d);
    if (issues.archived) add('ARCHIVED_SOURCE', d);
    if (issues.unmaintainedYears !== null) add(`UNMAINTAINED_SOURCE_${issues.unmaintainedYears}_YEARS`, d);
    if (issues.endOfLife) add('END_OF_LIFE', d);
    if (issues.overlay) add('A11Y_OVERLAY', d);
  }
  const order = (k: string) => (k === 'CVE' ? 0 : k.startsWith('BEHIND') ? 1 : k === 'ARCHIVED_SOURCE' ? 2 : k.startsWith('UNMAINTAINED') ? 3 : k === 'END_OF_LIFE' ? 4 : 5);
  return [...pool.values()].sort((a, b) => order(a.key) - order(b.key) || b.key.localeCompare(a.key));
}

export const BEHIND_POINTS: Record<BehindKey, number> = { BEHIND100: 2.0, BEHIND075: 2.25, BEHIND050: 2.5, BEHIND025: 2.75, BEHIND010: 3.0, BEHIND001: 4.9 };
const UNMAINTAINED_POINTS: Record<number, number> = { 3: 4.0, 4: 3.5, 5: 3.0, 6: 2.5, 7: 2.0, 8: 1.5, 9: 1.0, 10: 1.0 };

/** One sub-rating: which issue (or absence) it is and which categories it sets besides overall. */
export interface SubRating {
  issue: string;
  points: number;
  category: 'infosec' | 'a11y';
}

/** The issue's sub-ratings (a CVE pool gives one per id). */
export function pointsOf(issue: PooledIssue): number {
  if (issue.key === 'CVE') return 1.0;
  if (issue.key in BEHIND_POINTS) return BEHIND_POINTS[issue.key as BehindKey];
  if (issue.key === 'ARCHIVED_SOURCE' || issue.key === 'END_OF_LIFE') return 1.75;
  const unmaintained = /^UNMAINTAINED_SOURCE_(\d+)_YEARS$/.exec(issue.key);
  if (unmaintained) return UNMAINTAINED_POINTS[Number(unmaintained[1])] ?? 1.0;
  return 1.0; // A11Y_OVERLAY
}

export function subRatings(pooled: readonly PooledIssue[]): SubRating[] {
  const rows: SubRating[] = [];
  for (const issue of pooled) {
    const category = issue.key === 'A11Y_OVERLAY' ? 'a11y' : 'infosec';
    const times = issue.key === 'CVE' ? issue.ids.length : 1;
    for (let i = 0; i < times; i++) rows.push({ issue: issue.key, points: pointsOf(issue), category });
  }
  const has = (test: (k: string) => boolean) => pooled.some((p) => test(p.key));
  if (!has((k) => k === 'CVE')) rows.push({ issue: 'NO_CVE', points: 5.0, category: 'infosec' });
  if (!has((k) => k.startsWith('BEHIND'))) rows.push({ issue: 'NO_BEHIND', points: 5.0, category: 'infosec' });
  if (!has((k) => k === 'ARCHIVED_SOURCE' || k.startsWith('UNMAINTAINED'))) rows.push({ issue: 'NO_SOURCE_ISSUES', points: 5.0, category: 'infosec' });
  if (!has((k) => k === 'END_OF_LIFE')) rows.push({ issue: 'NO_END_OF_LIFE', points: 5.0, category: 'infosec' });
  if (!has((k) => k === 'A11Y_OVERLAY')) rows.push({ issue: 'NO_A11Y_OVERLAY', points: 5.0, category: 'a11y' });
  return rows;
}

/** Plain means, two decimals: overall over every row, each category over its own rows. */
export function ratingsOf(rows: readonly SubRating[]): { rating: number; infosec: number; a11y: number } {
  const mean = (list: readonly SubRating[]) => round(list.reduce((s, r) => s + r.points, 0) / list.length, 2);
  return { rating: mean(rows), infosec: mean(rows.filter((r) => r.category === 'infosec')), a11y: mean(rows.filter((r) => r.category === 'a11y')) };
}
