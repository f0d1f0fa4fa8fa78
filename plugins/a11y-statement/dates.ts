/**
 * The statement's dates: each date of the text ("13 januari 2025", "januari 2025", "2025-06-17")
 * is paired with the nearest keyword of its sentence (upstream's keywords bedömning, redogörelse,
 * gransk, uppdater, and a few more), which tells whether it is the date of the assessment or of
 * the statement's last update. Upstream merges both into one date and, sorting by weight
 * descending and then taking `.pop()`, keeps the lowest-weight one; here each kind keeps its
 * latest date that is not in the future (a planned review is no review).
 *
 * Dates are Swedish days: a date is in the future until midnight begins it in Europe/Stockholm,
 * and ages count days from it to the run's day there. Sentence bounds, the keyword before and
 * after each date and the dates between them are found by binary search over lists made in one
 * scan each, so a page of many dates or many sentences costs about its length.
 */
import { firstAtLeast, Sentences } from './sentences.js';

export type DateKind = 'assessment' | 'update' | 'published';

export interface FoundDate {
  /** YYYY-MM-DD; the 1st of the month when only month and year are given. */
  date: string;
  /** The date as written. */
  text: string;
  /** The keyword it was paired with ('' when none). */
  keyword: string;
  kind: DateKind | null;
  precision: 'day' | 'month';
  /** After the time of the run: a planned date, not used. */
  future: boolean;
}

const MONTHS: Record<string, number> = {
  januari: 1, jan: 1, februari: 2, feb: 2, mars: 3, mar: 3, april: 4, apr: 4, maj: 5, juni: 6, jun: 6,
  juli: 7, jul: 7, augusti: 8, aug: 8, september: 9, sept: 9, sep: 9, oktober: 10, okt: 10, november: 11,
  nov: 11, december: 12, dec: 12,
};
const MONTH_NAMES = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|');

const DATE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:(?<day>\\d{1,2})(?::[ae])?\\s+)?(?<month>${MONTH_NAMES})\\.?\\s+(?<year>(?:19|20)\\d{2})(?!\\p{N})` +
    `|(?<![\\p{N}-])(?<iy>(?:19|20)\\d{2})-(?<im>\\d{1,2})-(?<id>\\d{1,2})(?![\\p{N}-])`,
  'giu',
);

/** What a keyword says a date is (upstream's keywords: bedömning, redogörelse, gransk, uppdater). */
const KEYWORDS: { re: RegExp; kind: DateKind }[] = [
  { re: /^(?:bedöm|gransk|test|utvärder|självskattning)/i, kind: 'assessment' },
  { re: /^(?:uppdater|revider|ändrad)|redogörelse/i, kind: 'update' },
  { re: /^(?:publicer|lanser)/i, kind: 'published' },
];
const KEYWORD = /(?<![\p{L}])(?:bedöm|gransk|test(?:ad|at|er|ning)|utvärder|självskattning|uppdater|revider|ändrad|publicer|lanser|\p{L}*redogörelse)\p{L}*/giu;
const SENTENCE_END = /[.!?](?=\s+[\p{Lu}\p{N}]|\s*$)/gu;
/** A keyword pairs with a date at most this many characters away (upstream: anywhere in the sentence). */
const NEAR = 100;

interface Span { start: number; end: number }

function validDate(y: number, m: number, d: number): string | null {
  const t = Date.UTC(y, m - 1, d);
  const date = new Date(t);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

const SWEDISH_DAY = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Stockholm', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The day `now` falls on in Sweden, YYYY-MM-DD. */
export function swedishDay(now: Date): string {
  const part = Object.fromEntries(SWEDISH_DAY.formatToParts(now).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day}`;
}

export function findDates(text: string, now: Date): FoundDate[] {
  const sentences = new Sentences(text, SENTENCE_END);
  const keywords = Array.from(text.matchAll(KEYWORD), (m) => ({ start: m.index!, end: m.index! + m[0].length, word: m[0] }));
  const dates: (Span & { iso: string; text: string; precision: 'day' | 'month' })[] = [];
  for (const m of text.matchAll(DATE)) {
    const g = m.groups!;
    const iso = g.iy
      ? validDate(Number(g.iy), Number(g.im), Number(g.id))
      : validDate(Number(g.year), MONTHS[g.month.toLowerCase()], g.day ? Number(g.day) : 1);
    if (iso) dates.push({ start: m.index!, end: m.index! + m[0].length, iso, text: m[0], precision: g.iy || g.day ? 'day' : 'month' });
  }
  const today = swedishDay(now);
  // Keywords, dates and sentence ends are each in text order and do not overlap, so the nearest
  // keyword before a date is the only one that can pair with it: one further away is further, in
  // the same or an earlier sentence, with the same dates or more between (and so for the one after).
  return dates.map((d, i) => {
    const sentence = sentences.around(d.start, d.end);
    const prev = dates[i - 1];
    const next = dates[i + 1];
    const b = keywords[firstAtLeast(keywords.length, d.start + 1, (k) => keywords[k].end) - 1];
    const before = b && b.start >= sentence.start && d.start - b.end <= NEAR && !(prev && prev.start >= b.end) ? b : undefined;
    const a = keywords[firstAtLeast(keywords.length, d.end, (k) => keywords[k].start)];
    const after = a && a.end <= sentence.end && a.start - d.end <= NEAR && !(next && next.end <= a.start) ? a : undefined;
    // The keyword before the date first ("uppdaterades senast den 13 januari 2025"), else the one after it.
    const keyword = before ?? after;
    const kind = keyword ? KEYWORDS.find((k) => k.re.test(keyword.word))?.kind ?? null : null;
    return {
      date: d.iso,
      text: d.text,
      keyword: keyword?.word ?? '',
      kind,
      precision: d.precision,
      future: d.iso > today,
    };
  });
}

/** The latest date of a kind that is not in the future; null when there is none. */
export function latestOf(dates: readonly FoundDate[], kind: DateKind): FoundDate | null {
  const usable = dates.filter((d) => d.kind === kind && !d.future);
  return usable.reduce<FoundDate | null>((best, d) => (!best || d.date > best.date ? d : best), null);
}

const YEAR_MS = 365 * 86_400_000;

/** Whole years (of 365 days, as upstream) from a date to the day of `now` in Sweden. */
export function ageInYears(date: string, now: Date): number {
  return Math.floor((Date.parse(`${swedishDay(now)}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / YEAR_MS);
}
