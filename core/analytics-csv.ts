/**
 * The agency analytics CSV (GET /webanalytics): semicolon-separated UTF-8 written by fast-csv,
 * one row per followed site.
 *
 * - Columns: title, url, test_date (ISO 8601 UTC of the latest analytics test), then one column
 *   per tool in the rules file's order (ANALYTICS_TOOLS: new tools are appended there, so existing
 *   columns keep their place).
 * - Presence: "1" detected by the latest test, "0" not detected; every tool cell is empty (and
 *   test_date too) for a site not yet tested.
 * - CSV injection (OWASP): a cell starting with =, +, -, @, tab or carriage return gets a leading
 *   single quote, so a spreadsheet shows it as text instead of running it as a formula.
 * - fast-csv quotes a field holding ";", a double quote or a line break (quotes doubled).
 * - A UTF-8 byte order mark comes first, so spreadsheets read å, ä, ö right.
 *
 * Each site's record is rendered here once, when its data changes, and kept pre-rendered in the
 * database (core/store/webanalytics.ts); a request only streams those records, joined by "\n".
 */
import { Readable } from 'node:stream';
import { writeToString } from 'fast-csv';
import { ANALYTICS_TOOLS } from './analytics.js';

export const PRESENT = '1';
export const ABSENT = '0';
/** fast-csv's default row delimiter, used between pre-rendered records. */
export const ROW_DELIMITER = '\n';
const DELIMITER = ';';

/** One followed site as the CSV shows it. */
export interface AnalyticsSiteRow {
  title: string;
  /** The tested address of the latest analytics test; the start page before the first. */
  url: string;
  /** The latest analytics test; null before the first. */
  testDate: Date | null;
  /** Tools that test detected; null before the first test. */
  tools: string[] | null;
}

/** The header row. */
export function analyticsCsvColumns(): string[] {
  return ['title', 'url', 'test_date', ...ANALYTICS_TOOLS];
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** OWASP CSV injection: a cell that would start a formula is made text. */
export function neutralise(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

function toCells(row: AnalyticsSiteRow): string[] {
  const found = new Set(row.tools ?? []);
  return [
    neutralise(row.title),
    neutralise(row.url),
    row.testDate ? row.testDate.toISOString() : '',
    ...ANALYTICS_TOOLS.map((tool) => (row.tools === null ? '' : found.has(tool) ? PRESENT : ABSENT)),
  ];
}

/** One site's record, quoted by fast-csv, without the row delimiter. */
export function renderAnalyticsRecord(row: AnalyticsSiteRow): Promise<string> {
  return writeToString([toCells(row)], { delimiter: DELIMITER });
}

/**
 * The CSV as a byte stream: the byte order mark and header, then the records as the source yields
 * them (each chunk whole records, each record followed by the row delimiter). Pulled, so a slow
 * client slows the database reads instead of filling memory. An error of the source ends the
 * stream with that error (the response is cut, not completed).
 */
export function analyticsCsv(chunks: AsyncIterable<string>): Readable {
  async function* body(): AsyncGenerator<string> {
    yield await writeToString([analyticsCsvColumns()], { delimiter: DELIMITER, writeBOM: true, includeEndRowDelimiter: true });
    yield* chunks;
  }
  // Strings are encoded as UTF-8 by the stream itself.
  return Readable.from(body(), { objectMode: false });
}
