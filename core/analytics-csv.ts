/**
 * The agency analytics CSV (GET /webanalytics): semicolon-separated UTF-8 written by fast-csv,
 * one row per followed site, streamed row by row.
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
 */
import { Readable, Transform, pipeline } from 'node:stream';
import { format } from 'fast-csv';
import { ANALYTICS_TOOLS } from './analytics.js';
import type { AnalyticsSiteRow } from './store/webanalytics.js';

export const PRESENT = '1';
export const ABSENT = '0';

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

async function* cells(rows: AsyncIterable<AnalyticsSiteRow>): AsyncGenerator<string[]> {
  for await (const row of rows) yield toCells(row);
}

/** Bytes gathered before a write: fast-csv emits one small chunk per row, one socket write each. */
const BATCH_BYTES = 64 * 1024;

/** Joins small chunks into writes of about BATCH_BYTES (memory stays bounded by that). */
function batcher(): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= BATCH_BYTES) {
        const out = Buffer.concat(parts, size);
        parts = [];
        size = 0;
        return done(null, out);
      }
      done();
    },
    flush(done) {
      done(null, size > 0 ? Buffer.concat(parts, size) : undefined);
    },
  });
}

/** The CSV as a byte stream; an error of the source ends it (the response is cut, not completed). */
export function analyticsCsv(rows: AsyncIterable<AnalyticsSiteRow>): Readable {
  const csv = format<string[], string[]>({ delimiter: ';', headers: analyticsCsvColumns(), writeBOM: true, includeEndRowDelimiter: true });
  const out = batcher();
  pipeline(Readable.from(cells(rows)), csv, out, () => {});
  return out;
}
