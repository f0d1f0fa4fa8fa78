/**
 * Sitemaps (sitemaps.org 0.9): those robots.txt lists, else /sitemap.xml and /sitemap_index.xml.
 * Each must answer 200 with well-formed XML whose root is <urlset> or <sitemapindex>.
 * Gzipped sitemaps are reported reachable but not read: probes return text, not bytes.
 */
import type { Finding, Probes } from '../../core/plugin-api.js';
import { isFile, mediaType, parseXml } from './answers.js';
import { STRINGS } from './strings.js';

/** One entry of json_check_data.sitemaps. */
export interface SitemapData {
  url: string;
  status: number;
  /** Null when not checked (missing, or gzipped). */
  well_formed: boolean | null;
  /** Number of <loc> entries (URLs of a urlset, sitemaps of an index); null when not read. */
  entries: number | null;
}

/** At most this many listed sitemaps are fetched. */
const MAX_SITEMAPS = 10;

async function checkOne(probes: Probes, url: string): Promise<SitemapData & { found: boolean }> {
  const res = await probes.fetch(url);
  if (!isFile(res)) return { url, status: res.status, found: false, well_formed: null, entries: null };
  if (/\.gz$/i.test(new URL(res.url).pathname) || /gzip/.test(mediaType(res))) {
    return { url, status: res.status, found: true, well_formed: null, entries: null };
  }
  const xml = parseXml(res.body);
  const items = xml?.root === 'urlset' ? xml.content?.url : xml?.root === 'sitemapindex' ? xml.content?.sitemap : undefined;
  if (!xml || !(xml.root === 'urlset' || xml.root === 'sitemapindex')) {
    return { url, status: res.status, found: true, well_formed: false, entries: null };
  }
  const entries = Array.isArray(items) ? items.filter((i) => i && typeof i === 'object' && 'loc' in i).length : 0;
  return { url, status: res.status, found: true, well_formed: true, entries };
}

export async function checkSitemaps(probes: Probes, origin: string, listed: string[]): Promise<{ data: SitemapData[]; findings: Finding[] }> {
  const fromRobots = listed.length > 0;
  const urls = fromRobots ? listed.slice(0, MAX_SITEMAPS) : [`${origin}/sitemap.xml`, `${origin}/sitemap_index.xml`];
  const results = await Promise.all(urls.map((u) => checkOne(probes, u)));
  const findings: Finding[] = [];
  const add = (rule: string, severity: 'error' | 'warning', bad: typeof results, text: typeof STRINGS.sitemapMalformed) => {
    if (bad.length) findings.push({ rule, category: 'webstandard', severity, text: text(bad[0].url), count: bad.length });
  };
  if (fromRobots) add('sitemap-unreachable', 'error', results.filter((r) => !r.found), STRINGS.sitemapUnreachable);
  else if (!results.some((r) => r.found)) findings.push({ rule: 'sitemap-missing', category: 'webstandard', severity: 'error', text: STRINGS.sitemapMissing });
  add('sitemap-malformed', 'error', results.filter((r) => r.well_formed === false), STRINGS.sitemapMalformed);
  add('sitemap-empty', 'warning', results.filter((r) => r.entries === 0), STRINGS.sitemapEmpty);
  return { data: results.map(({ found: _found, ...r }) => r), findings };
}
