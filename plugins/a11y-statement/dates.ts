/**
 * The statement's dates: each date of the text ("13 januari 2025", "januari 2025", "2025-06-17")
 * is paired with the nearest keyword of its sentence (upstream's keywords bedömning, redogörelse,
 * gransk, uppdater, and a few more), which tells whether it is the date of the assessment or of
 * the statement's last update. Upstream merges both into one date and, sorting by weight
 * descending and then taking `.pop()`, keeps the lowest-weight one; here each kind keeps its
 * latest date that is not in the future (a planned review is no review).
 */

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
const KEYWORD = /(?<![\p{L}])(?:bedöm|gransk|testa(?:de|t)|testades|testats|utvärder|självskattning|uppdater|revider|ändrad|publicer|lanser|\p{L}*redogörelse)\p{L}*/giu;
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

export function findDates(text: string, now: Date): FoundDate[] {
  const ends = [...text.matchAll(SENTENCE_END)].map((m) => m.index!);
  const keywords = [...text.matchAll(KEYWORD)].map((m) => ({ start: m.index!, end: m.index! + m[0].length, word: m[0] }));
  const dates: (Span & { iso: string; text: string; precision: 'day' | 'month' })[] = [];
  for (const m of text.matchAll(DATE)) {
    const g = m.groups!;
    const iso = g.iy
      ? validDate(Number(g.iy), Number(g.im), Number(g.id))
      : validDate(Number(g.year), MONTHS[g.month.toLowerCase()], g.day ? Number(g.day) : 1);
    if (iso) dates.push({ start: m.index!, end: m.index! + m[0].length, iso, text: m[0], precision: g.iy || g.day ? 'day' : 'month' });
  }
  const dateBetween = (from: number, to: number) => dates.some((d) => d.start >= from && d.end <= to);
  return dates.map((d) => {
    const sentenceStart = Math.max(-1, ...ends.filter((e) => e < d.start)) + 1;
    const sentenceEnd = Math.min(text.length, ...ends.filter((e) => e >= d.end));
    // The keyword before the date first ("uppdaterades senast den 13 januari 2025"), else the one after it.
    const before = keywords.filter((k) => k.start >= sentenceStart && k.end <= d.start && d.start - k.end <= NEAR && !dateBetween(k.end, d.start)).pop();
    const after = keywords.find((k) => k.start >= d.end && k.end <= sentenceEnd && k.start - d.end <= NEAR && !dateBetween(d.end, k.start));
    const keyword = before ?? after;
    const kind = keyword ? KEYWORDS.find((k) => k.re.test(keyword.word))?.kind ?? null : null;
    return {
      date: d.iso,
      text: d.text,
      keyword: keyword?.word ?? '',
      kind,
      precision: d.precision,
      future: Date.parse(`${d.iso}T00:00:00Z`) > now.getTime(),
    };
  });
}

/** The latest date of a kind that is not in the future; null when there is none. */
export function latestOf(dates: readonly FoundDate[], kind: DateKind): FoundDate | null {
  const usable = dates.filter((d) => d.kind === kind && !d.future);
  return usable.reduce<FoundDate | null>((best, d) => (!best || d.date > best.date ? d : best), null);
}

const YEAR_MS = 365 * 86_400_000;

/** Whole years (of 365 days, as upstream) from a date to `now`. */
export function ageInYears(date: string, now: Date): number {
  return Math.floor((now.getTime() - Date.parse(`${date}T00:00:00Z`)) / YEAR_MS);
}
