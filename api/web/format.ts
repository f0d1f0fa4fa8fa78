/**
 * Numbers and dates as a page shows them in its language (decimal comma in Swedish).
 */
import type { PageLang } from './i18n/index.js';

export interface Formatters {
  /** A score with two decimals, or "–" when not rated. */
  score: (value: number | null | undefined) => string;
  /** A date as yyyy-mm-dd (UTC), or "–". */
  date: (value: Date | string | null | undefined) => string;
}

const cache = new Map<PageLang, Formatters>();

export function formatters(lang: PageLang): Formatters {
  let f = cache.get(lang);
  if (f) return f;
  const n = new Intl.NumberFormat(lang === 'sv' ? 'sv-SE' : 'en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  f = {
    score: (value) => (value === null || value === undefined || !Number.isFinite(value) ? '–' : n.format(value)),
    date: (value) => (value === null || value === undefined ? '–' : new Date(value).toISOString().slice(0, 10)),
  };
  cache.set(lang, f);
  return f;
}
