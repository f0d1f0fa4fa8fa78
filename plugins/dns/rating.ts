/**
 * Type 32's rating, as upstream's tests/zonemaster_dns.py (branch tip 2af29896) rates Zonemaster's
 * output (webperf_core-tests-next.md section 7):
 * - levels first lowered by SEVERITY_OVERRIDES (only ever to NOTICE: reverse DNS, SOA expire, the
 *   syntax "discouraged" tags), each tag checked against the installed engine's profile (a test
 *   reads `zonemaster-cli --dump-profile`; upstream's list was written for engine v9);
 * - the worst level per test case, the SYSTEM module and UNSPECIFIED test case left out; every test
 *   case that gave a message at INFO or above is one criterion that ran;
 * - any CRITICAL → 1.0; else max(1, 5 − (1.5·errors + 0.75·warnings)), NOTICE and INFO free;
 * - security: the same over the DNSSEC and Consistency modules; standards: over every other module;
 *   overall: over all. A part with no criterion that ran is not rated.
 */
import { NOT_RATED } from '../../core/plugin-api.js';
import type { Level, ZonemasterEntry } from './zonemaster.js';

export const ERROR_PENALTY = 1.5;
export const WARNING_PENALTY = 0.75;
/** The modules rated as security (infosec); the others are standards (webstandard). */
export const SECURITY_MODULES = new Set(['DNSSEC', 'CONSISTENCY']);

/** Upstream's overrides: module → tags lowered to NOTICE (a trailing * matches a prefix). */
export const SEVERITY_OVERRIDES: Record<string, string[]> = {
  ADDRESS: ['NAMESERVER_IP_WITHOUT_REVERSE', 'NO_RESPONSE_PTR_QUERY'],
  ZONE: ['EXPIRE_LOWER_THAN_REFRESH', 'EXPIRE_MINIMUM_VALUE_LOWER'],
  SYNTAX: ['DISCOURAGED_DOUBLE_DASH', 'MNAME_*', 'MX_*', 'NAMESERVER_DISCOURAGED_DOUBLE_DASH', 'RNAME_MISUSED_AT_SIGN', 'RNAME_RFC822_INVALID'],
};

const ORDER: Record<Level, number> = { DEBUG: 0, INFO: 1, NOTICE: 2, WARNING: 3, ERROR: 4, CRITICAL: 5 };

function overridden(entry: ZonemasterEntry): boolean {
  return (SEVERITY_OVERRIDES[entry.module] ?? []).some((tag) => (tag.endsWith('*') ? entry.tag.startsWith(tag.slice(0, -1)) : entry.tag === tag));
}

/** The entry's level after upstream's overrides (never raised). */
export function effectiveLevel(entry: ZonemasterEntry): Level {
  return overridden(entry) && ORDER[entry.level] > ORDER.NOTICE ? 'NOTICE' : entry.level;
}

/** One test case's verdict: its worst level and the entries that gave it. */
export interface Criterion {
  testcase: string;
  module: string;
  level: Level;
  /** The entries at the worst level, in Zonemaster's order. */
  entries: ZonemasterEntry[];
}

/** The criteria that ran: one per test case, its worst level, in the order Zonemaster first reported them. */
export function criteria(entries: readonly ZonemasterEntry[]): Criterion[] {
  const byCase = new Map<string, Criterion>();
  for (const entry of entries) {
    if (entry.module === 'SYSTEM' || entry.testcase === 'UNSPECIFIED' || !entry.testcase) continue;
    const level = effectiveLevel(entry);
    if (ORDER[level] < ORDER.INFO) continue;
    const seen = byCase.get(entry.testcase);
    if (!seen || ORDER[level] > ORDER[seen.level]) byCase.set(entry.testcase, { testcase: entry.testcase, module: entry.module, level, entries: [entry] });
    else if (level === seen.level) seen.entries.push(entry);
  }
  return [...byCase.values()];
}

export interface Counts {
  total: number;
  critical: number;
  errors: number;
  warnings: number;
  notices: number;
  /** Criteria with nothing to remark (INFO only). */
  ok: number;
}

export function count(list: readonly Criterion[]): Counts {
  const n = (level: Level) => list.filter((c) => c.level === level).length;
  return { total: list.length, critical: n('CRITICAL'), errors: n('ERROR'), warnings: n('WARNING'), notices: n('NOTICE'), ok: n('INFO') };
}

/** The rating of a set of criteria: NOT_RATED when none ran, 1.0 on any CRITICAL, else the deduction. */
export function rate(counts: Counts): number {
  if (counts.total === 0) return NOT_RATED;
  if (counts.critical > 0) return 1;
  return Math.max(1, 5 - (ERROR_PENALTY * counts.errors + WARNING_PENALTY * counts.warnings));
}
