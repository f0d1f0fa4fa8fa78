/**
 * What changed between two runs of a test type, told by the findings that changed (issue 31).
 *
 * A finding's identity across runs is its key: the category, the rule and, for a rule that can
 * fire more than once in one result, the locator of what it points at (a header, a cookie, a DNS
 * name), normalised: lower case, a URL without its fragment and volatile query parts. Two runs of
 * an unchanged page give the same keys (tested for every type on the world's fixtures).
 *
 * The diff compares the problems only: findings of severity critical, error or warning. A passed
 * check ('resolved') and a note ('info') rate nothing, and their coming and going is not a change.
 * A problem is added, resolved, or changed (another severity, or another count). Noise kept out,
 * per kind:
 * - a measured finding (a Lighthouse timing or size, with its `value` and `unit`) whose value in
 *   the other run is within VALUE_TOLERANCE (25 %) of the larger of the two, or within its unit's
 *   floor (UNIT_FLOOR: 250 ms, 2 KiB, 0.05 unitless, as CLS), is no change, whichever side of a
 *   threshold each fell on (a timing near Lighthouse's 0.9 score flips between passed and warning
 *   from load to load; a CPU-bound one such as max-potential-fid moves 60 → 190 ms on a busy
 *   machine);
 * - in the pagespeed category counts are not compared, only severity;
 * - everywhere else severity and count are exact.
 */
import type { Category, Finding, ReportText, Severity } from './plugin-api.js';
import type { ReportLang } from './i18n/langs.js';

/** A finding as a result keeps it. */
export interface StoredFinding {
  rule: string;
  category: Category;
  severity: Severity;
  count: number;
  locator?: string;
  value?: number;
  unit?: string;
  /** The finding in the report languages: kept for problems only (a passed check or a note is never shown as a change). */
  text?: ReportText;
}

/** A measured value within this share of the other run's is the same value (jitter). */
export const VALUE_TOLERANCE = 0.25;
/** And within this much, by unit (Lighthouse's numericUnit); other units have no floor. */
export const UNIT_FLOOR: Readonly<Record<string, number>> = { millisecond: 250, byte: 2048, unitless: 0.05 };

/** The finding as stored: count 1 when the plugin gave none; the locator normalised. */
export function storedFinding(f: Finding): StoredFinding {
  return {
    rule: f.rule, category: f.category, severity: f.severity, count: f.count ?? 1,
    ...(f.locator ? { locator: normaliseLocator(f.locator) } : {}),
    ...(typeof f.value === 'number' && Number.isFinite(f.value) ? { value: f.value, ...(f.unit ? { unit: f.unit } : {}) } : {}),
    ...(PROBLEM.has(f.severity) ? { text: f.text } : {}),
  };
}

/** Query parameters that change from load to load without changing what the URL points at. */
const VOLATILE_PARAMS = /^(_|t|ts|timestamp|cb|cachebust(er)?|rnd|rand|random|nonce|v|ver|version|utm_[a-z]+|gclid|fbclid|sid|session(id)?)$/i;

/** A locator as its identity reads it: lower case; a URL without fragment and volatile parameters. */
export function normaliseLocator(locator: string): string {
  const text = locator.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      url.hash = '';
      for (const name of [...url.searchParams.keys()]) if (VOLATILE_PARAMS.test(name)) url.searchParams.delete(name);
      url.searchParams.sort();
      return url.href.toLowerCase();
    } catch {
      // Not a URL after all: as text.
    }
  }
  return text.toLowerCase();
}

/** The finding's identity across runs. */
export function findingKey(f: Pick<StoredFinding, 'category' | 'rule' | 'locator'>): string {
  return [f.category, f.rule, ...(f.locator ? [f.locator] : [])].join(' ');
}

const PROBLEM: ReadonlySet<Severity> = new Set(['critical', 'error', 'warning']);


export interface FindingChange {
  key: string;
  rule: string;
  category: Category;
  locator: string | null;
  change: 'added' | 'resolved' | 'changed';
  before: { severity: Severity; count: number } | null;
  after: { severity: Severity; count: number } | null;
  /** The finding's text in the later run (the earlier one's when resolved). */
  text: ReportText;
}

/** Whether two measured values are the same within the tolerance (both absent: not measured, not the same). */
function sameValue(a: StoredFinding | undefined, b: StoredFinding | undefined): boolean {
  if (a?.value === undefined || b?.value === undefined) return false;
  const allowed = Math.max(VALUE_TOLERANCE * Math.max(Math.abs(a.value), Math.abs(b.value)), UNIT_FLOOR[b.unit ?? a.unit ?? ''] ?? 0);
  return Math.abs(a.value - b.value) <= allowed;
}

/** The problems added, resolved and changed from `before` to `after`, in key order. */
export function diffFindings(before: readonly StoredFinding[], after: readonly StoredFinding[]): FindingChange[] {
  const byKey = (list: readonly StoredFinding[]) => new Map(list.map((f) => [findingKey(f), f]));
  const was = byKey(before);
  const is = byKey(after);
  const problem = (f: StoredFinding | undefined) => (f && PROBLEM.has(f.severity) ? f : undefined);
  const changes: FindingChange[] = [];
  const state = (f: StoredFinding) => ({ severity: f.severity, count: f.count });
  for (const key of [...new Set([...was.keys(), ...is.keys()])].sort()) {
    const a = problem(was.get(key));
    const b = problem(is.get(key));
    if (!a && !b) continue;
    // A measurement that moved within its tolerance is the same finding, passed or not.
    if (sameValue(was.get(key), is.get(key))) continue;
    const f = (b ?? a)!;
    const base = { key, rule: f.rule, category: f.category, locator: f.locator ?? null, text: f.text ?? { sv: f.rule, en: f.rule } };
    if (!a) changes.push({ ...base, change: 'added', before: null, after: state(b!) });
    else if (!b) changes.push({ ...base, change: 'resolved', before: state(a), after: null });
    else if (a.severity !== b.severity || (f.category !== 'pagespeed' && a.count !== b.count)) changes.push({ ...base, change: 'changed', before: state(a), after: state(b) });
  }
  return changes;
}

/** A change as the API and the command line's json give it: its text in one report language. */
export function changeJson(c: FindingChange, lang: ReportLang) {
  return { change: c.change, key: c.key, rule: c.rule, category: c.category, locator: c.locator, before: c.before, after: c.after, text: c.text[lang] };
}

/** Keys that occur more than once in one result's findings: a finding without an identity of its own. */
export function duplicateKeys(findings: readonly StoredFinding[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const f of findings) {
    const key = findingKey(f);
    if (seen.has(key)) twice.add(key);
    seen.add(key);
  }
  return [...twice].sort();
}
