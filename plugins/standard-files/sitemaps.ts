/**
 * Sitemaps (sitemaps.org 0.9): those robots.txt lists, else /sitemap.xml and /sitemap_index.xml,
 * read with the one sitemap reader (core/net/sitemap.ts): gzipped files are read, sitemap indexes
 * followed. A listed sitemap (by robots.txt or an index) that cannot be fetched, read or parsed is
 * a finding, never a silent pass; the two fallback addresses only count when one of them exists.
 */
import { readSitemaps, type SitemapInfo, type SitemapProblem } from '../../core/net/sitemap.js';
import type { Finding, Probes } from '../../core/plugin-api.js';
import { STRINGS } from './strings.js';

/** One entry of json_check_data.sitemaps: every file read, listed ones first, then their children. */
export type SitemapData = SitemapInfo;

/** Bounds of one check: a site's sitemaps often run to a few dozen files; the rest is reported not read. */
const LIMITS = { maxSitemaps: 25, maxBytes: 20_000_000 };

const UNREADABLE: SitemapProblem[] = ['too-large', 'bad-gzip', 'not-read'];

export async function checkSitemaps(
  probes: Probes,
  origin: string,
  listed: string[],
): Promise<{ data: SitemapData[]; pages: number | null; findings: Finding[] }> {
  const fromRobots = listed.length > 0;
  const fallbacks = [`${origin}/sitemap.xml`, `${origin}/sitemap_index.xml`];
  const { sitemaps, urls } = await readSitemaps(probes, fromRobots ? listed : fallbacks, LIMITS);
  // A fallback address that does not exist is no finding: nothing pointed to it.
  const missing = (s: SitemapInfo) => s.problem === 'unreachable' || s.problem === 'not-sitemap';
  const results = fromRobots ? sitemaps : sitemaps.filter((s) => !(fallbacks.includes(s.url) && missing(s)));
  const findings: Finding[] = [];
  const add = (rule: string, severity: 'error' | 'warning', bad: SitemapInfo[], text: (s: SitemapInfo) => Finding['text']) => {
    if (bad.length) findings.push({ rule, category: 'webstandard', severity, text: text(bad[0]), count: bad.length });
  };
  if (!fromRobots && results.length === 0) findings.push({ rule: 'sitemap-missing', category: 'webstandard', severity: 'error', text: STRINGS.sitemapMissing });
  add('sitemap-unreachable', 'error', results.filter(missing), (s) => STRINGS.sitemapUnreachable(s.url, s.status, s.failure));
  add('sitemap-unreadable', 'error', results.filter((s) => s.problem !== null && UNREADABLE.includes(s.problem)), (s) => STRINGS.sitemapUnreadable(s.url, s.problem!));
  add('sitemap-malformed', 'error', results.filter((s) => s.problem === 'malformed'), (s) => STRINGS.sitemapMalformed(s.url));
  add('sitemap-empty', 'warning', results.filter((s) => s.entries === 0), (s) => STRINGS.sitemapEmpty(s.url));
  const readUrlset = sitemaps.some((s) => s.kind === 'urlset');
  return { data: sitemaps, pages: readUrlset ? urls.length : null, findings };
}
