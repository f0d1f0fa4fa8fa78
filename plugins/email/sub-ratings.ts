/**
 * Upstream's rating family A: each check that fires is a sub-rating with a value for overall and
 * for some of the categories; a category's rating is the plain mean of the sub-ratings that set
 * it, and overall the mean of every sub-rating's overall value (two decimals). Each sub-rating
 * becomes one finding per category it sets, whose severity follows its value there.
 */
import type { Category, Finding, ReportText, Severity } from '../../core/plugin-api.js';
import { meanRating } from '../../core/rating.js';

export type RatedCategory = Extract<Category, 'infosec' | 'webstandard'>;

export interface SubRating {
  rule: string;
  overall: number;
  infosec?: number;
  webstandard?: number;
  /** The text of each category the row sets (one text for all when the same). */
  text: ReportText | Partial<Record<RatedCategory, ReportText>>;
  count?: number;
}

const isReportText = (t: SubRating['text']): t is ReportText => typeof (t as ReportText).sv === 'string';

/** 5: nothing to improve; 3 up to 5: a warning; below 3: an error. */
export function severityOf(value: number): Severity {
  if (value >= 5) return 'resolved';
  return value >= 3 ? 'warning' : 'error';
}

export function rate(rows: readonly SubRating[]): { rating: number; ratings: Partial<Record<RatedCategory, number>> } {
  const ratings: Partial<Record<RatedCategory, number>> = {};
  for (const category of ['infosec', 'webstandard'] as const) {
    const values = rows.map((r) => r[category]).filter((v): v is number => v !== undefined);
    if (values.length > 0) ratings[category] = meanRating(values);
  }
  return { rating: meanRating(rows.map((r) => r.overall)), ratings };
}

export function findingsOf(rows: readonly SubRating[]): Finding[] {
  const out: Finding[] = [];
  for (const row of rows) {
    for (const category of ['infosec', 'webstandard'] as const) {
      const value = row[category];
      if (value === undefined) continue;
      const text = isReportText(row.text) ? row.text : row.text[category];
      if (!text) throw new Error(`sub-rating ${row.rule} has no ${category} text`);
      out.push({ rule: row.rule, category, severity: severityOf(value), text, ...(row.count !== undefined ? { count: row.count } : {}) });
    }
  }
  return out;
}

/** The rows as json_check_data keeps them. */
export function rowsData(rows: readonly SubRating[]): { rule: string; overall: number; infosec: number | null; webstandard: number | null }[] {
  return rows.map((r) => ({ rule: r.rule, overall: r.overall, infosec: r.infosec ?? null, webstandard: r.webstandard ?? null }));
}
