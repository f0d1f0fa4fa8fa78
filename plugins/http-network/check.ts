/**
 * What each judgement of the HTTP & Network plugin returns: findings with structured details
 * (for json_check_data) and the MDN HTTP Observatory-style score modifiers it stands for.
 */
import type { Category, Finding, ReportText, Severity } from '../../core/plugin-api.js';

/** A finding plus the structured details stored in json_check_data. */
export interface Check extends Finding {
  details: Record<string, unknown>;
}

/** One Observatory-style score modifier: the Observatory test result name and its points. */
export interface Modifier {
  test: string;
  modifier: number;
}

export interface Judgement {
  checks: Check[];
  modifiers: Modifier[];
}

export function check(
  rule: string,
  category: Category,
  severity: Severity,
  text: ReportText,
  details: Record<string, unknown> = {},
  count?: number,
): Check {
  return { rule, category, severity, text, details, ...(count !== undefined ? { count } : {}) };
}

/**
 * The Observatory's two rounds: baseline 100 minus every penalty; bonuses are added only when
 * that is 90 or more; never below 0.
 */
export function observatoryScore(modifiers: readonly Modifier[]): number {
  const penalties = modifiers.filter((m) => m.modifier < 0).reduce((sum, m) => sum + m.modifier, 0);
  const bonuses = modifiers.filter((m) => m.modifier > 0).reduce((sum, m) => sum + m.modifier, 0);
  const base = 100 + penalties;
  return Math.max(0, base >= 90 ? base + bonuses : base);
}

/** The first `max` items joined, with how many more there are. */
export function listOf(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} (+${items.length - max})` : shown;
}
