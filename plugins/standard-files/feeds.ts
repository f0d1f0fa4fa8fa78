/**
 * Feeds: <link rel="alternate" type="application/rss+xml|application/atom+xml"> in the main
 * document, each answering 200 with well-formed XML whose root is <rss>, <feed> or <rdf:RDF>.
 */
import type { FetchFailure, Finding, Probes } from '../../core/plugin-api.js';
import { isFile, parseXml } from './answers.js';
import { STRINGS } from './strings.js';

/** One entry of json_check_data.feeds. */
export interface FeedData {
  url: string;
  status: number;
  ok: boolean;
  /** Why no answer came (status 0). */
  failure?: FetchFailure;
}

const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml']);
const FEED_ROOTS = new Set(['rss', 'feed', 'RDF']);
const MAX_FEEDS = 5;

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (const m of tag.replace(/^<link\b/i, '').matchAll(re)) {
    const name = m[1].toLowerCase();
    if (!(name in out)) out[name] = (m[2] ?? m[3] ?? m[4] ?? '').replace(/&amp;/g, '&');
  }
  return out;
}

/** Absolute URLs of the feeds the document links to. */
export function feedLinks(html: string, baseUrl: string): string[] {
  const urls: string[] = [];
  const withoutComments = html.replace(/<!--[\s\S]*?-->/g, '');
  for (const [tag] of withoutComments.matchAll(/<link\b[^>]*>/gi)) {
    const a = attributes(tag);
    const rel = (a.rel ?? '').toLowerCase().split(/\s+/);
    const type = (a.type ?? '').split(';', 1)[0].trim().toLowerCase();
    if (!rel.includes('alternate') || !FEED_TYPES.has(type) || !a.href?.trim()) continue;
    try {
      const abs = new URL(a.href.trim(), baseUrl).href;
      if (!urls.includes(abs)) urls.push(abs);
    } catch {
      // An href that is no URL cannot be followed; nothing to check.
    }
  }
  return urls;
}

export async function checkFeeds(probes: Probes, html: string, baseUrl: string): Promise<{ data: FeedData[]; findings: Finding[] }> {
  const urls = feedLinks(html, baseUrl).slice(0, MAX_FEEDS);
  if (urls.length === 0) {
    return { data: [], findings: [{ rule: 'feed-missing', category: 'webstandard', severity: 'warning', text: STRINGS.feedMissing }] };
  }
  const data = await Promise.all(
    urls.map(async (url): Promise<FeedData> => {
      const res = await probes.fetch(url);
      const xml = isFile(res) ? parseXml(res.body) : null;
      return { url, status: res.status, ok: xml !== null && FEED_ROOTS.has(xml.root), ...(res.failure ? { failure: res.failure } : {}) };
    }),
  );
  const broken = data.filter((f) => !f.ok);
  const findings: Finding[] = broken.length
    ? [{ rule: 'feed-broken', category: 'webstandard', severity: 'error', text: STRINGS.feedBroken(broken[0].url, broken[0].status, broken[0].failure), count: broken.length }]
    : [];
  return { data, findings };
}
