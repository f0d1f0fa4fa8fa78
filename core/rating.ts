/**
 * Rating maths of the 1–5 scale (webperf-reference.md).
 * - Issue-based: each category that occurs starts at 100; each failing rule deducts 25 (critical),
 *   10 (error) or 1 (warning), once however many places it fails; the rating is max(1, score/100 × 5).
 * - Lighthouse-based: max(1, 5 × score).
 * - Overall: the mean of the category ratings present; NOT_RATED is skipped everywhere.
 */
import { NOT_RATED, type Category, type Finding, type Severity } from './plugin-api.js';

export const DEDUCTION: Record<Severity, number> = { critical: 25, error: 10, warning: 1, info: 0, resolved: 0 };

/** Round half away from zero to `places` decimals, without binary surprises (4.125 → 4.13). */
export function round(value: number, places: number): number {
  const factor = 10 ** places;
  return Math.sign(value) * Math.round(Number((Math.abs(value) * factor).toPrecision(15))) / factor;
}

/** Score 0..100 of one category from its findings (each rule counts once). */
export function issueScore(findings: readonly Finding[]): number {
  const worstPerRule = new Map<string, number>();
  for (const f of findings) {
    const d = DEDUCTION[f.severity];
    worstPerRule.set(f.rule, Math.max(worstPerRule.get(f.rule) ?? 0, d));
  }
  let score = 100;
  for (const d of worstPerRule.values()) score -= d;
  return Math.max(0, score);
}

export function scoreToRating(score: number): number {
  return round(Math.max(1, (score / 100) * 5), 2);
}

/**
 * Issue-based ratings: one per category in `categories` and per category any finding names.
 * Returns the per-category ratings and the overall mean.
 */
export function issueRatings(
  findings: readonly Finding[],
  categories: readonly Category[],
): { rating: number; ratings: Partial<Record<Category, number>> } {
  const present = new Set<Category>([...categories, ...findings.map((f) => f.category)]);
  const ratings: Partial<Record<Category, number>> = {};
  for (const category of present) {
    ratings[category] = scoreToRating(issueScore(findings.filter((f) => f.category === category)));
  }
  return { rating: meanRating(Object.values(ratings)), ratings };
}

/** Lighthouse category score (0..1) to a rating; null (not scored) is NOT_RATED. */
export function lighthouseRating(score: number | null | undefined): number {
  if (score === null || score === undefined || Number.isNaN(score)) return NOT_RATED;
  return round(Math.max(1, 5 * score), 2);
}

/** Lighthouse audit score to a finding severity. */
export function lighthouseSeverity(score: number): Severity {
  if (score >= 0.9) return 'resolved';
  if (score >= 0.5) return 'warning';
  return 'error';
}

/** Mean of the ratings that are rated; NOT_RATED when none is. */
export function meanRating(ratings: readonly (number | null | undefined)[], places = 2): number {
  const rated = ratings.filter((r): r is number => typeof r === 'number' && r !== NOT_RATED && r >= 1);
  if (rated.length === 0) return NOT_RATED;
  return round(rated.reduce((a, b) => a + b, 0) / rated.length, places);
}
