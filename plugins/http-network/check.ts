/**
 * What each judgement of the HTTP & Network plugin returns: findings with structured details
 * (for json_check_data).
 */
import type { Category, Finding, ReportText, Severity } from '../../core/plugin-api.js';

/** A finding plus the structured details stored in json_check_data. */
export interface Check extends Finding {
  details: Record<string, unknown>;
}

export interface Judgement {
  checks: Check[];
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

/** The first `max` items joined, with how many more there are. */
export function listOf(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} (+${items.length - max})` : shown;
}
