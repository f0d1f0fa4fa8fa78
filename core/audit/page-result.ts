/**
 * One audited page, reduced to what the summaries need (stored per page in audit_pages.result):
 * Lighthouse's four category scores and failing audits, axe's violated rules, and what the page
 * shares with third parties (hosts, cookies, analytics tools).
 */
import { detectAnalytics } from '../analytics.js';
import { sameSite } from '../gather/site.js';
import type { Artifacts, Category } from '../plugin-api.js';
import type { TestOutcome } from '../pipeline.js';

export const AUDIT_CATEGORIES = ['accessibility', 'performance', 'seo', 'best-practices'] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];

/** A Lighthouse audit or axe rule the page fails. */
export interface FailedCheck {
  id: string;
  title: string;
  /** Lighthouse score (0–1), or null for an axe rule. */
  score: number | null;
  /** axe: impact and number of elements. */
  impact?: string | null;
  nodes?: number;
}

/** What is stored per page. */
export interface PageResult {
  final_url: string;
  /** Lighthouse category scores, 0–100 (null when Lighthouse could not score it). */
  scores: Record<AuditCategory, number | null>;
  failing: Record<AuditCategory, FailedCheck[]>;
  privacy: { third_party_hosts: string[]; cookies: { name: string; domain: string; first_party: boolean }[]; analytics: string[] };
  /** The service's own test types on this page. */
  tests: { type_of_test: number; rating: number; ratings: Partial<Record<Category, number>>; error: string | null }[];
}

// Lighthouse modes that carry no pass/fail judgement.
const UNJUDGED = new Set(['informative', 'notApplicable', 'manual', 'error']);
/** A Lighthouse audit below this score is listed as failing (Lighthouse's own "passed" mark). */
const PASS = 0.9;

export function summarisePage(artifacts: Artifacts, outcomes: readonly TestOutcome[]): Record<string, unknown> {
  const lh = artifacts.lighthouse;
  const scores = {} as PageResult['scores'];
  const failing = {} as PageResult['failing'];
  for (const cat of AUDIT_CATEGORIES) {
    const s = lh?.categories[cat]?.score;
    scores[cat] = typeof s === 'number' ? Math.round(s * 100) : null;
    failing[cat] = [];
    for (const ref of lh?.auditRefs[cat] ?? []) {
      const a = lh?.audits[ref.id];
      if (!a || a.score === null || UNJUDGED.has(a.scoreDisplayMode) || a.score >= PASS) continue;
      failing[cat].push({ id: a.id, title: a.title.en, score: a.score });
    }
  }
  // axe's WCAG rules are the accessibility summary's own evidence, beside Lighthouse's subset of them.
  for (const v of artifacts.axe?.violations ?? []) {
    failing.accessibility.push({ id: `axe:${v.id}`, title: v.help, score: null, impact: v.impact, nodes: v.nodes.length });
  }
  const pageHost = new URL(artifacts.finalUrl).hostname;
  const hosts = new Set<string>();
  for (const r of artifacts.network) {
    try {
      const h = new URL(r.url).hostname;
      if (/^https?:/.test(r.url) && !sameSite(h, pageHost)) hosts.add(h);
    } catch {
      // Not an address.
    }
  }
  const analytics = detectAnalytics({
    urls: artifacts.network.map((r) => r.url),
    bodies: artifacts.scripts.map((s) => s.content),
    cookies: artifacts.cookies,
  }).map((d) => d.tool);
  const result: PageResult = {
    final_url: artifacts.finalUrl,
    scores,
    failing,
    privacy: {
      third_party_hosts: [...hosts].sort(),
      cookies: artifacts.cookies.map((c) => ({ name: c.name, domain: c.domain, first_party: c.firstParty })).sort((a, b) => a.name.localeCompare(b.name)),
      analytics: [...new Set(analytics)].sort(),
    },
    tests: outcomes.map((o) => ({ type_of_test: o.typeOfTest, rating: o.rating, ratings: o.ratings, error: o.error })),
  };
  return result as unknown as Record<string, unknown>;
}
