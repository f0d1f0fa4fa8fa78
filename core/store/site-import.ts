/**
 * Bulk site import (`webperf sites import FILE.csv`): an agency's or operator's list of sites,
 * read whole, checked row by row against the catalogue, and applied in one transaction.
 *
 * The file:
 * - UTF-8, with or without a byte-order mark; fields separated by ";" or "," (whichever the
 *   header row holds more of), quoted with "..." where a field holds the separator, a quote or a
 *   line break (a quote inside doubled: ""). Blank lines are skipped.
 * - A header row naming the columns, in any order and case: `title` and `url` (required),
 *   `category` (or `categories`), `level`, `quota`, `followed` (optional). Other columns are
 *   ignored and reported as such; a column named twice is an error.
 * - title: not empty. url: an absolute http(s) address without user name or password; stored
 *   normalised (WHATWG URL: lowercase host, no default port; the #fragment and tracking
 *   parameters such as utm_source dropped).
 * - category: existing category titles, several separated by "|"; level: an existing premium
 *   level; quota: a whole number of credits per 30 days (0 or more); followed: yes/no, true/false,
 *   1/0 or ja/nej (any case).
 * - An empty optional cell means what leaving the option out of `webperf sites add` means: no
 *   categories, no level, no quota of the site's own (the level's applies), followed.
 *
 * A site is identified by its normalised start-page address, a trailing slash aside
 * (`https://x.se/start/` is `https://x.se/start`): a row whose address a site has already changes
 * that site (its title and the fields of the columns the file has; a column the file lacks is
 * left as it is), otherwise it adds a site. The address itself is never rewritten. Importing a
 * file twice changes nothing the second time.
 */
import { parseString } from 'fast-csv';
import { sql } from '../db/kysely.js';
import { normaliseUrl, pageKey } from '../audit/normalise.js';
import type { Db } from '../db/database.js';
import { WebperfError } from '../errors.js';
import { listCatalogSites, type CatalogSite } from './catalog-admin.js';
import { notifyCache, notifyCacheEach, withCacheEvents, type CacheEvent } from './notify.js';
import { refreshCategoryScores } from './runs.js';

/** The columns an import file may have. */
export const IMPORT_COLUMNS = ['title', 'url', 'category', 'level', 'quota', 'followed'] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

const COLUMN_NAMES: Record<string, ImportColumn> = {
  title: 'title',
  url: 'url',
  category: 'category',
  categories: 'category',
  level: 'level',
  quota: 'quota',
  followed: 'followed',
};

/** Spellings of `followed`, lowercased. */
const FOLLOWED: Record<string, boolean> = { yes: true, no: false, true: true, false: false, 1: true, 0: false, ja: true, nej: false };

/** Separates several categories in one cell. */
export const CATEGORY_SEPARATOR = '|';

const INT_MAX = 2_147_483_647;

/** A data row of the file: its line (where it starts) and its cells by column. */
export interface ImportFileRow {
  line: number;
  cells: Partial<Record<ImportColumn, string>>;
  /** Fields beyond the header's: a sign of an unquoted separator. */
  extraFields: number;
}

/** An import file, read and split, not yet checked against the catalogue. */
export interface SiteImportFile {
  separator: ';' | ',';
  /** The known columns the header names, in its order. */
  columns: ImportColumn[];
  /** Header cells that name no known column (their cells are ignored). */
  ignoredColumns: string[];
  rows: ImportFileRow[];
}

/** What a site is set to by an import. */
export interface ImportedSite {
  title: string;
  url: string;
  level: string | null;
  quota: number | null;
  followed: boolean;
  /** Category titles, sorted. */
  categories: string[];
}

type Field = 'title' | 'level' | 'quota' | 'followed' | 'categories';
type FieldValue = string | number | boolean | string[] | null;

export interface SiteImportReport {
  dryRun: boolean;
  /** Whether anything was written (false for a dry run, and when bad rows stopped the import). */
  written: boolean;
  separator: ';' | ',';
  columns: ImportColumn[];
  ignoredColumns: string[];
  /** Data rows read (blank lines aside). */
  rows: number;
  /** New sites; `id` null in a dry run or when nothing was written. */
  added: (ImportedSite & { line: number; id: number | null })[];
  /** Sites the file changes, with each changed field's value before and after. */
  changed: { line: number; id: number; title: string; url: string; changes: Partial<Record<Field, { from: FieldValue; to: FieldValue }>> }[];
  unchanged: number;
  bad: { line: number; reasons: string[] }[];
}

export interface SiteImportOptions {
  /** Check and report, write nothing. */
  dryRun?: boolean;
  /** Write the good rows when some are bad (else nothing is written while any row is bad). */
  skipBad?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Reading the file

const lineBreaks = (s: string) => s.match(/\r\n|\r|\n/g)?.length ?? 0;

/** The text of a UTF-8 file, its byte-order mark removed; anything else is refused with the line of the first bad byte. */
function utf8Text(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const lenient = new TextDecoder('utf-8').decode(bytes);
    const at = lenient.indexOf('\uFFFD');
    throw new WebperfError('SITE_IMPORT_INVALID', `line ${lineBreaks(lenient.slice(0, at)) + 1}: the file is not UTF-8 text (save it as "CSV UTF-8")`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The separator the header row (the first line not blank) uses: the one of ";" and "," it holds more of. */
function detectSeparator(text: string): ';' | ',' {
  const header = /[^\r\n]*\S[^\r\n]*/.exec(text)?.[0] ?? '';
  const semicolons = header.split(';').length - 1;
  const commas = header.split(',').length - 1;
  if (semicolons === 0 && commas === 0) {
    throw new WebperfError('SITE_IMPORT_INVALID', `the header row names one column ("${header.trim()}"); it needs at least title and url, separated by ";" or ","`);
  }
  if (semicolons === commas) throw new WebperfError('SITE_IMPORT_INVALID', 'the header row holds as many ";" as ","; the separator cannot be told');
  return semicolons > commas ? ';' : ',';
}

function parseRows(text: string, delimiter: string): Promise<{ rows: string[][]; error: Error | null }> {
  return new Promise((resolve) => {
    const rows: string[][] = [];
    parseString<string[], string[]>(text, { headers: false, delimiter, ignoreEmpty: false })
      .on('error', (error) => resolve({ rows, error }))
      .on('data', (row: string[]) => rows.push(row))
      .on('end', () => resolve({ rows, error: null }));
  });
}

/**
 * The first line at which the file's first lines fail to parse for a reason other than a quote
 * left open at their end (which a line break inside a quoted field also gives): a binary search,
 * since once the failing line is in, every longer start fails too.
 */
async function failingLine(text: string, delimiter: string): Promise<number> {
  const lines = text.split(/(?<=\r\n|\n|\r(?!\n))/);
  const fails = async (k: number) => {
    const { error } = await parseRows(lines.slice(0, k).join(''), delimiter);
    return error !== null && !/missing closing/.test(error.message);
  };
  let [lo, hi] = [1, lines.length];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await fails(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Reads an import file: encoding, separator, header and rows, each row with the line it starts
 * on. A file that cannot be read as a whole (not UTF-8, no usable header, a quote that does not
 * close) is refused with SITE_IMPORT_INVALID; problems of single rows are left to the import.
 */
export async function readSiteImportFile(bytes: Uint8Array | string): Promise<SiteImportFile> {
  const text = typeof bytes === 'string' ? (bytes.charCodeAt(0) === 0xfeff ? bytes.slice(1) : bytes) : utf8Text(bytes);
  if (text.trim() === '') throw new WebperfError('SITE_IMPORT_INVALID', 'the file is empty: it needs a header row (title and url) and a row per site');
  const separator = detectSeparator(text);
  const { rows: raw, error } = await parseRows(text, separator);
  // Each row starts on the line after the previous one and its line breaks inside quotes.
  let line = 1;
  const located = raw.map((cells) => {
    const at = line;
    line += 1 + cells.reduce((n, c) => n + lineBreaks(c), 0);
    return { line: at, cells };
  });
  if (error) {
    // A quote that never closes is found at the end, after every row before it came out; any other
    // error stops the parse before the rows of its chunk come out: its line is searched for.
    const unclosed = /missing closing/.test(error.message);
    const at = unclosed ? line : await failingLine(text, separator);
    const what = unclosed
      ? 'a quote opens a field and never closes'
      : /expected/.test(error.message)
        ? 'a quoted field goes on after its closing quote'
        : error.message.replace(/\s+/g, ' ');
    throw new WebperfError('SITE_IMPORT_INVALID', `line ${at}: ${what}; a field holding "${separator}", a quote or a line break is quoted as "...", a quote inside doubled ("")`);
  }
  const blank = (cells: string[]) => cells.every((c) => c.trim() === '');
  const nonBlank = located.filter((r) => !blank(r.cells));
  const header = nonBlank.shift();
  if (!header) throw new WebperfError('SITE_IMPORT_INVALID', 'the file is empty: it needs a header row (title and url) and a row per site');
  const index = new Map<ImportColumn, number>();
  const ignoredColumns: string[] = [];
  header.cells.forEach((cell, i) => {
    const name = cell.trim();
    const column = COLUMN_NAMES[name.toLowerCase()];
    if (column === undefined) {
      if (name !== '') ignoredColumns.push(name);
    }
    else if (index.has(column)) throw new WebperfError('SITE_IMPORT_INVALID', `line ${header.line}: the header names the column ${column} twice`);
    else index.set(column, i);
  });
  const missing = (['title', 'url'] as const).filter((c) => !index.has(c));
  if (missing.length) {
    throw new WebperfError(
      'SITE_IMPORT_INVALID',
      `line ${header.line}: the header row has no ${missing.join(' and ')} column (columns: ${IMPORT_COLUMNS.join(', ')}; the first row of the file names them)`,
    );
  }
  const columns = [...index.entries()].sort((a, b) => a[1] - b[1]).map(([c]) => c);
  const width = header.cells.length;
  return {
    separator,
    columns,
    ignoredColumns,
    rows: nonBlank.map((r) => ({
      line: r.line,
      cells: Object.fromEntries(columns.map((c) => [c, (r.cells[index.get(c)!] ?? '').trim()])),
      extraFields: Math.max(0, r.cells.length - width),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Checking it against the catalogue

/** The address of a row, or why it is not one. */
function siteAddress(raw: string): { url: string; key: string } | { reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: `bad url "${raw}": not an absolute address (it starts with https:// or http://)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { reason: `bad url "${raw}": not an http or https address` };
  if (url.username !== '' || url.password !== '') return { reason: `bad url "${raw}": it carries a user name or password` };
  const normalised = normaliseUrl(raw)!;
  return { url: normalised, key: pageKey(normalised) };
}

/** The identity of a site in an import: its normalised address, a trailing slash aside. Null for no http(s) address. */
export function siteAddressKey(url: string): string | null {
  const normalised = normaliseUrl(url);
  return normalised === null ? null : pageKey(normalised);
}

interface Plan {
  report: SiteImportReport;
  /** Category ids by title. */
  categoryIds: Map<string, number>;
  /** What to write for each added and changed site. */
  add: ImportedSite[];
  change: { id: number; site: ImportedSite; categoriesChanged: boolean }[];
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

async function plan(db: Db, file: SiteImportFile, dryRun: boolean): Promise<Plan> {
  const [sites, levelRows, categoryRows] = await Promise.all([
    listCatalogSites(db),
    db.selectFrom('premium_levels').select('name').execute(),
    db.selectFrom('categories').select(['id', 'title']).execute(),
  ]);
  const levels = new Set(levelRows.map((l) => l.name));
  const categories = new Map(categoryRows.map((c) => [c.title, c.id]));
  const byKey = new Map<string, CatalogSite[]>();
  for (const site of sites) {
    const key = siteAddressKey(site.url);
    if (key !== null) byKey.set(key, [...(byKey.get(key) ?? []), site]);
  }
  const has = new Set(file.columns);
  const seen = new Map<string, number>();
  const report: SiteImportReport = {
    dryRun,
    written: false,
    separator: file.separator,
    columns: file.columns,
    ignoredColumns: file.ignoredColumns,
    rows: file.rows.length,
    added: [],
    changed: [],
    unchanged: 0,
    bad: [],
  };
  const add: ImportedSite[] = [];
  const change: Plan['change'] = [];

  for (const { line, cells, extraFields } of file.rows) {
    const reasons: string[] = [];
    if (extraFields > 0) reasons.push(`${extraFields} field${extraFields === 1 ? '' : 's'} more than the header has (a "${file.separator}" inside a field must be quoted)`);
    const title = cells.title ?? '';
    if (title === '') reasons.push('title is missing');
    let address: { url: string; key: string } | null = null;
    if (!cells.url) reasons.push('url is missing');
    else {
      const a = siteAddress(cells.url);
      if ('reason' in a) reasons.push(a.reason);
      else {
        address = a;
        const first = seen.get(a.key);
        if (first !== undefined) reasons.push(`duplicate: the same address as line ${first}`);
        else seen.set(a.key, line);
      }
    }
    const level = cells.level || null;
    if (level !== null && !levels.has(level)) reasons.push(`unknown level "${level}" (see webperf levels list)`);
    let quota: number | null = null;
    if (cells.quota) {
      if (/^(0|[1-9][0-9]{0,9})$/.test(cells.quota) && Number(cells.quota) <= INT_MAX) quota = Number(cells.quota);
      else reasons.push(`bad quota "${cells.quota}": a whole number of credits (0 or more)`);
    }
    let followed = true;
    if (cells.followed) {
      const value = FOLLOWED[cells.followed.toLowerCase()];
      if (value === undefined) reasons.push(`bad followed "${cells.followed}": yes or no (true/false, 1/0, ja/nej)`);
      else followed = value;
    }
    const cats = [...new Set((cells.category ?? '').split(CATEGORY_SEPARATOR).map((c) => c.trim()).filter(Boolean))].sort();
    const unknown = cats.filter((c) => !categories.has(c));
    if (unknown.length) reasons.push(`unknown categor${unknown.length === 1 ? 'y' : 'ies'} ${unknown.map((c) => `"${c}"`).join(', ')} (see webperf categories list)`);
    const matches = address ? (byKey.get(address.key) ?? []) : [];
    if (matches.length > 1) reasons.push(`the address matches ${matches.length} sites (ids ${matches.map((m) => m.id).join(', ')}): change them one by one with webperf sites set`);
    if (reasons.length || !address) {
      report.bad.push({ line, reasons });
      continue;
    }

    const [existing] = matches;
    if (!existing) {
      const site = { title, url: address.url, level, quota, followed, categories: cats };
      add.push(site);
      report.added.push({ line, id: null, ...site });
      continue;
    }
    // The columns the file lacks keep the site's values.
    const site: ImportedSite = {
      title,
      url: existing.url,
      level: has.has('level') ? level : existing.premium_level,
      quota: has.has('quota') ? quota : existing.monthly_quota,
      followed: has.has('followed') ? followed : existing.followed,
      categories: has.has('category') ? cats : existing.categories,
    };
    const changes: SiteImportReport['changed'][number]['changes'] = {};
    if (site.title !== existing.title) changes.title = { from: existing.title, to: site.title };
    if (site.level !== existing.premium_level) changes.level = { from: existing.premium_level, to: site.level };
    if (site.quota !== existing.monthly_quota) changes.quota = { from: existing.monthly_quota, to: site.quota };
    if (site.followed !== existing.followed) changes.followed = { from: existing.followed, to: site.followed };
    if (!sameList(site.categories, existing.categories)) changes.categories = { from: existing.categories, to: site.categories };
    if (Object.keys(changes).length === 0) {
      report.unchanged++;
      continue;
    }
    change.push({ id: existing.id, site, categoriesChanged: changes.categories !== undefined });
    report.changed.push({ line, id: existing.id, title: existing.title, url: existing.url, changes });
  }
  return { report, categoryIds: categories, add, change };
}

// ---------------------------------------------------------------------------------------------
// Writing it

/**
 * Imports a read file: checks every row, then (unless a dry run, or rows are bad and `skipBad`
 * is not given) adds and changes the sites in one transaction that holds off other writers of
 * the sites table meanwhile, so that two imports never add a site twice. Returns the report.
 */
export async function importSites(db: Db, file: SiteImportFile, options: SiteImportOptions = {}): Promise<SiteImportReport> {
  const dryRun = options.dryRun ?? false;
  if (dryRun) return (await plan(db, file, true)).report;
  return withCacheEvents(db, async (trx) => {
    // Readers go on; `sites add`, `sites set` and another import wait for this one.
    await sql`lock table sites in share row exclusive mode`.execute(trx);
    const { report, categoryIds, add, change } = await plan(trx, file, false);
    if (report.bad.length && !options.skipBad) return report;
    if (add.length === 0 && change.length === 0) {
      report.written = true;
      return report;
    }
    const links: { site: number; category: number }[] = [];

    if (add.length) {
      // Ids drawn first, so that each row's id is known without relying on the order RETURNING gives.
      const ids = (await sql<{ id: number }>`select nextval(pg_get_serial_sequence('sites', 'id'))::int as id from generate_series(1, ${add.length}::int)`.execute(trx)).rows.map((r) => r.id);
      await sql`
        insert into sites (id, title, url, premium_level, monthly_quota, followed)
        select * from unnest(${ids}::int[], ${add.map((s) => s.title)}::text[], ${add.map((s) => s.url)}::text[],
                             ${add.map((s) => s.level)}::text[], ${add.map((s) => s.quota)}::int[], ${add.map((s) => s.followed)}::bool[])`.execute(trx);
      add.forEach((s, i) => {
        report.added[i].id = ids[i];
        for (const title of s.categories) links.push({ site: ids[i], category: categoryIds.get(title)! });
      });
    }
    if (change.length) {
      await sql`
        update sites s set title = v.title, premium_level = v.premium_level, monthly_quota = v.monthly_quota, followed = v.followed
        from unnest(${change.map((c) => c.id)}::int[], ${change.map((c) => c.site.title)}::text[], ${change.map((c) => c.site.level)}::text[],
                    ${change.map((c) => c.site.quota)}::int[], ${change.map((c) => c.site.followed)}::bool[]) as v(id, title, premium_level, monthly_quota, followed)
        where s.id = v.id`.execute(trx);
      const recategorised = change.filter((c) => c.categoriesChanged);
      if (recategorised.length) {
        await trx.deleteFrom('site_categories').where('site_id', 'in', recategorised.map((c) => c.id)).execute();
        for (const c of recategorised) for (const title of c.site.categories) links.push({ site: c.id, category: categoryIds.get(title)! });
      }
    }
    if (links.length) {
      await sql`
        insert into site_categories (site_id, category_id)
        select * from unnest(${links.map((l) => l.site)}::int[], ${links.map((l) => l.category)}::int[])`.execute(trx);
    }
    const events: CacheEvent[] = change.map((c) => ({ site: c.id }));
    if (add.length) events.push({ sites: true });
    await notifyCacheEach(trx, events);
    if (links.length || change.some((c) => c.categoriesChanged)) {
      await refreshCategoryScores(trx, null);
      await notifyCache(trx, { categories: true });
    }
    report.written = true;
    return report;
  });
}
