/**
 * The audit's result files, built from the stored pages: one summary per Lighthouse category
 * (per-page scores, the distribution over pages, the failing audits ranked by how many pages they
 * hit with example pages), the privacy summary (third-party hosts, cookies and analytics tools per
 * page), the CrUX summary (field data, built elsewhere) and summaries.zip holding all the JSON.
 */
import { writeToString } from 'fast-csv';
import { zipSync } from 'fflate';
import type { AuditFile, AuditFormat } from '../store/audits.js';
import { AUDIT_CATEGORIES, type AuditCategory, type PageResult } from './page-result.js';

/** File names by format, in listing order. */
export const AUDIT_FILES: Record<AuditFormat, readonly string[]> = {
  audit: ['accessibility_summary.json', 'performance_summary.json', 'seo_summary.json', 'best-practices_summary.json'],
  audit_v2: [
    'accessibility_summary.json', 'performance_summary.json', 'seo_summary.json', 'best-practices_summary.json',
    'crux_summary.json', 'privacy_summary.json', 'summaries.zip',
  ],
  csv: [],
};

/** The csv format's one file (not in result_files, as specified; read at /audit_file/). */
export const CSV_FILE = 'accessibility.csv';

/** Example pages listed per failing audit or rule. */
export const EXAMPLE_PAGES = 5;

/** A stored page as the summaries read it. */
export interface SummaryPage {
  url: string;
  status: string;
  error: string | null;
  result: Partial<PageResult>;
}

export interface SummaryContext {
  folder: string;
  baseUrl: string;
  /** When the audit finished (ISO 8601). */
  date: string;
  pagesOrdered: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function header(ctx: SummaryContext, pages: readonly SummaryPage[]) {
  return {
    format_version: 1,
    base_url: ctx.baseUrl,
    folder: ctx.folder,
    date: ctx.date,
    pages_ordered: ctx.pagesOrdered,
    pages_tested: pages.filter((p) => p.status === 'done').length,
    pages_failed: pages.filter((p) => p.status !== 'done').length,
  };
}

function ranked<T extends { id: string }>(hits: Map<string, { item: T; pages: string[] }>, total: number) {
  return [...hits.values()]
    .sort((a, b) => b.pages.length - a.pages.length || a.item.id.localeCompare(b.item.id))
    .map(({ item, pages }) => ({ ...item, pages: pages.length, share: total ? round1((pages.length / total) * 100) : 0, example_pages: pages.slice(0, EXAMPLE_PAGES) }));
}

/** The summary of one Lighthouse category (axe's rules join accessibility's). */
export function categorySummary(category: AuditCategory, ctx: SummaryContext, pages: readonly SummaryPage[]) {
  const perPage = pages.map((p) => ({
    url: p.url,
    status: p.status,
    score: p.status === 'done' ? (p.result.scores?.[category] ?? null) : null,
    failing: p.status === 'done' ? (p.result.failing?.[category] ?? []).map((f) => f.id) : [],
    ...(p.error ? { error: p.error } : {}),
  }));
  const scored = perPage.filter((p): p is typeof p & { score: number } => typeof p.score === 'number');
  const sorted = scored.map((p) => p.score).sort((a, b) => a - b);
  const median = sorted.length === 0 ? null : sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : round1((sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2);
  const worst = scored.length ? scored.reduce((w, p) => (p.score < w.score ? p : w)) : null;
  const hits = new Map<string, { item: { id: string; title: string; source: 'lighthouse' | 'axe'; impact?: string | null }; pages: string[] }>();
  for (const p of pages) {
    if (p.status !== 'done') continue;
    for (const f of p.result.failing?.[category] ?? []) {
      const hit = hits.get(f.id) ?? { item: { id: f.id, title: f.title, source: f.id.startsWith('axe:') ? 'axe' as const : 'lighthouse' as const, ...(f.impact !== undefined ? { impact: f.impact } : {}) }, pages: [] };
      hit.pages.push(p.url);
      hits.set(f.id, hit);
    }
  }
  return {
    ...header(ctx, pages),
    category,
    distribution: {
      pages_scored: sorted.length,
      mean: sorted.length ? round1(sorted.reduce((a, b) => a + b, 0) / sorted.length) : null,
      median,
      worst: worst ? { score: worst.score, url: worst.url } : null,
    },
    failing: ranked(hits, pages.filter((p) => p.status === 'done').length),
    pages: perPage,
  };
}

/** Third parties, cookies and analytics tools, per page and ranked over the site. */
export function privacySummary(ctx: SummaryContext, pages: readonly SummaryPage[]) {
  const done = pages.filter((p) => p.status === 'done');
  const hosts = new Map<string, { item: { id: string; host: string }; pages: string[] }>();
  const tools = new Map<string, { item: { id: string; tool: string }; pages: string[] }>();
  const cookies = new Map<string, { item: { id: string; name: string; domain: string; first_party: boolean }; pages: string[] }>();
  const add = <T extends { id: string }>(m: Map<string, { item: T; pages: string[] }>, item: T, url: string) => {
    const hit = m.get(item.id) ?? { item, pages: [] };
    if (!hit.pages.includes(url)) hit.pages.push(url);
    m.set(item.id, hit);
  };
  for (const p of done) {
    const priv = p.result.privacy;
    for (const host of priv?.third_party_hosts ?? []) add(hosts, { id: host, host }, p.url);
    for (const tool of priv?.analytics ?? []) add(tools, { id: tool, tool }, p.url);
    for (const c of priv?.cookies ?? []) add(cookies, { id: `${c.name}@${c.domain}`, name: c.name, domain: c.domain, first_party: c.first_party }, p.url);
  }
  const strip = <T extends { id: string }>(list: (T & { pages: number })[]) => list.map(({ id: _id, ...rest }) => rest);
  return {
    ...header(ctx, pages),
    third_party_hosts: strip(ranked(hosts, done.length)),
    analytics: strip(ranked(tools, done.length)),
    cookies: strip(ranked(cookies, done.length)),
    pages: pages.map((p) => ({
      url: p.url,
      status: p.status,
      third_party_hosts: p.result.privacy?.third_party_hosts ?? [],
      cookies: p.result.privacy?.cookies ?? [],
      analytics: p.result.privacy?.analytics ?? [],
      ...(p.error ? { error: p.error } : {}),
    })),
  };
}

const json = (name: string, value: unknown): AuditFile => ({ name, contentType: 'application/json', content: Buffer.from(`${JSON.stringify(value, null, 2)}\n`) });

/** Every file of the format. `crux` is the CrUX summary (audit_v2 only). */
export function buildAuditFiles(format: AuditFormat, ctx: SummaryContext, pages: readonly SummaryPage[], crux: unknown): AuditFile[] {
  if (format === 'csv') return [];
  const files = AUDIT_CATEGORIES.map((c) => json(`${c}_summary.json`, categorySummary(c, ctx, pages)));
  if (format === 'audit_v2') {
    files.push(json('crux_summary.json', crux), json('privacy_summary.json', privacySummary(ctx, pages)));
    // A fixed time stamp: the same audit always gives the same zip bytes.
    const mtime = new Date(ctx.date);
    const zip = zipSync(Object.fromEntries(files.map((f) => [f.name, [new Uint8Array(f.content), { mtime }]])), { level: 6 });
    files.push({ name: 'summaries.zip', contentType: 'application/zip', content: Buffer.from(zip) });
  }
  const order = AUDIT_FILES[format];
  return files.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
}


/** One violated axe rule on a page, as the csv format stores it. */
interface AxeHit {
  id: string;
  impact: string | null;
  help: string;
  help_url: string;
  nodes: number;
}

/** The csv format's file: one row per page and violated rule (a clean page one row with an empty rule, a failed page one row with its error). */
export async function accessibilityCsv(pages: readonly SummaryPage[]): Promise<AuditFile> {
  const rows: string[][] = [];
  for (const p of pages) {
    const hits = ((p.result as { axe?: AxeHit[] }).axe ?? []);
    if (p.status !== 'done') rows.push([p.url, 'failed', '', '', '', '', '', p.error ?? '']);
    else if (hits.length === 0) rows.push([p.url, 'done', '', '', '', '', '', '']);
    else for (const h of hits) rows.push([p.url, 'done', h.id, h.impact ?? '', String(h.nodes), h.help, h.help_url, '']);
  }
  const text = await writeToString(rows, { headers: ['url', 'status', 'rule', 'impact', 'elements', 'help', 'help_url', 'error'], writeHeaders: true });
  return { name: CSV_FILE, contentType: 'text/csv', content: Buffer.from(`${text}\n`) };
}
