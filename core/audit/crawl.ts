/**
 * The audit's crawler: breadth first from the start page, seeded by the site's sitemaps, over the
 * links of the rendered pages; same host (and its www twin, over http and https), robots.txt
 * honoured per origin (core/audit/robots.ts, RFC 9309: each origin the crawl meets has its own
 * file, and every redirect hop of a page is checked against the file of its origin before it is
 * fetched), `noindex` pages not audited and `nofollow` pages' links not followed, addresses
 * normalised and de-duplicated, non-HTML skipped by content type, stopping at `pages`.
 *
 * Every fetch goes through the guarded probes and every page load through `visit`, which the
 * caller builds on the guarded gather; nothing here opens a connection of its own. Pages already
 * stored (a resumed audit) are replayed from their stored links instead of being loaded again.
 */
import type { PhaseTimes } from '../phase-times.js';
import type { ProbeResponse, Probes } from '../plugin-api.js';
import { readSitemaps } from '../net/sitemap.js';
import { inScope, normaliseUrl, pageKey } from './normalise.js';
import { RobotsCache, type OriginRobots } from './robots.js';

export { CRAWLER_AGENT } from './robots.js';

/** What loading and testing one page gave. */
export interface Visited {
  /** Absolute addresses of the links in the rendered page. */
  links: string[];
  /** A meta robots noindex/nofollow seen in the rendered page. */
  noindex?: boolean;
  nofollow?: boolean;
  /** The page's test outcome, stored as it is. */
  result: Record<string, unknown>;
}

/** One audited page, as stored. */
export interface CrawledPage {
  position: number;
  url: string;
  status: 'done' | 'failed';
  error?: string | null;
  /** Same-site links to follow (normalised); empty for nofollow pages. */
  links: string[];
  result: Record<string, unknown>;
}

/**
 * Why an address was not audited. robots: its origin's robots.txt disallows it (or a redirect hop
 * on its way) · robots-unreachable: its origin's robots.txt could not be fetched (5xx, no answer),
 * which RFC 9309 makes a complete disallow.
 */
export type SkipReason = 'out-of-scope' | 'robots' | 'robots-unreachable' | 'not-html' | 'noindex' | 'redirect-out-of-scope' | 'duplicate';

export interface CrawlOptions {
  /** The start page. */
  start: string;
  /** Pages to audit at most. */
  pages: number;
  probes: Probes;
  /** Loads and tests one page (guarded); throws when the page fails. */
  visit: (url: string) => Promise<Visited>;
  /** Pages stored by an earlier attempt, replayed without loading them again. */
  done?: readonly CrawledPage[];
  /** Called when a page is finished (store it here), in crawl order. */
  onPage?: (page: CrawledPage) => Promise<void>;
  /** Called for every address left out, with the reason (diagnostics and tests). */
  onSkip?: (url: string, reason: SkipReason) => void;
  /** Adds the wall time of the crawler's own steps to these (the audit benchmark's profile). */
  times?: PhaseTimes;
}

export interface CrawlResult {
  pages: CrawledPage[];
  /** The sitemap addresses tried. */
  sitemaps: string[];
  /** The robots.txt of every origin the crawl asked about, in the order first asked. */
  robots: OriginRobots[];
}

function isHtml(contentType: string | undefined): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '');
}

/** noindex / nofollow from an X-Robots-Tag header or a meta robots tag of the raw HTML. */
export function robotsDirectives(headers: Record<string, string>, html: string): { noindex: boolean; nofollow: boolean } {
  const values = [headers['x-robots-tag'] ?? ''];
  for (const m of html.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = m[0];
    if (/\bname\s*=\s*["']?(robots|webperf)\b/i.test(tag)) values.push(/\bcontent\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1] ?? '');
  }
  const all = values.join(',').toLowerCase();
  return { noindex: /\b(noindex|none)\b/.test(all), nofollow: /\b(nofollow|none)\b/.test(all) };
}

const MAX_REDIRECTS = 5;

/** A refusal by robots.txt, with the skip reason it gives. */
type RobotsVerdict = { allowed: true } | { allowed: false; reason: 'robots' | 'robots-unreachable'; robots: OriginRobots };

async function robotsVerdict(robots: RobotsCache, url: string): Promise<RobotsVerdict> {
  const file = await robots.for(url);
  if (file.allowed(url)) return { allowed: true };
  return { allowed: false, reason: file.state === 'unreachable' ? 'robots-unreachable' : 'robots', robots: file };
}

/** Why robots.txt kept a page out, in words for the audit's files. */
function robotsRefusal(url: string, verdict: Extract<RobotsVerdict, { allowed: false }>): string {
  const file = verdict.robots;
  if (verdict.reason === 'robots-unreachable') {
    return `Not loaded: the robots.txt of ${file.origin} could not be fetched (${file.reason}), and a crawler must then assume that nothing may be crawled (RFC 9309, 2.3.1.4)`;
  }
  return `Not loaded: the robots.txt of ${file.origin} disallows ${url} for crawlers`;
}

/**
 * The page's answer, its redirects followed hop by hop: a hop that leaves the site is never
 * fetched, nor one that its origin's robots.txt disallows.
 */
async function fetchInScope(probes: Probes, robots: RobotsCache, url: string, start: URL): Promise<ProbeResponse | 'out-of-scope' | Extract<RobotsVerdict, { allowed: false }>> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await probes.fetch(current, { followRedirects: false });
    const location = res.headers.location;
    if (res.error || res.status < 300 || res.status >= 400 || !location) return res;
    const next = normaliseUrl(location, current);
    if (!next) return { ...res, error: `Redirect to an address that is not a page: ${location}` };
    if (!inScope(next, start)) return 'out-of-scope';
    const verdict = await robotsVerdict(robots, next);
    if (!verdict.allowed) return verdict;
    current = next;
  }
  return { url: current, status: 0, headers: {}, body: '', chain: [url], error: 'Too many redirects' };
}

/** Runs the crawl; resolves when `pages` pages are audited or the site has no more. */
export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  const startUrl = normaliseUrl(options.start);
  if (!startUrl) throw new Error(`Not a page address: ${options.start}`);
  const start = new URL(startUrl);
  const { probes } = options;
  const skip = (url: string, reason: SkipReason) => options.onSkip?.(url, reason);
  const lap = options.times?.laps('crawl:robots-sitemaps');

  const robots = new RobotsCache(probes);
  const startRobots = await robots.for(startUrl);
  // robots.txt's Sitemap: lines first, then the usual places; none when its robots.txt could not
  // be fetched, since then nothing on the origin may be (RFC 9309, 2.3.1.4).
  const sitemaps = startRobots.state === 'unreachable'
    ? []
    : [...new Set([...startRobots.sitemaps, new URL('/sitemap.xml', start).href, new URL('/sitemap_index.xml', start).href])];
  // Bounded: an audit never needs more addresses than a few times the pages it tests.
  const fromSitemaps = sitemaps.length ? (await readSitemaps(probes, sitemaps, { maxUrls: Math.max(1000, options.pages * 10), maxSitemaps: 20 })).urls : [];

  lap?.end();
  const stored = new Map((options.done ?? []).map((p) => [pageKey(p.url), p]));
  const pages: CrawledPage[] = [];
  const seen = new Set<string>();
  const queue: string[] = [];
  const enqueue = (raw: string, base?: string) => {
    const url = normaliseUrl(raw, base);
    if (!url) return;
    const key = pageKey(url);
    if (seen.has(key)) return;
    seen.add(key);
    queue.push(url);
  };
  enqueue(startUrl);
  for (const u of fromSitemaps) enqueue(u);

  while (queue.length && pages.length < options.pages) {
    const url = queue.shift()!;
    const replay = stored.get(pageKey(url));
    if (replay) {
      pages.push(replay);
      for (const link of replay.links) enqueue(link);
      continue;
    }
    if (!inScope(url, start)) { skip(url, 'out-of-scope'); continue; }

    const position = pages.length;
    const finish = async (page: CrawledPage) => {
      pages.push(page);
      lap?.next('save');
      await options.onPage?.(page);
      lap?.end();
      for (const link of page.links) enqueue(link);
    };
    // robots.txt keeps a page out; the start page, which the audit was ordered for, is recorded
    // as failed with the reason, so that an audit that can test nothing says why.
    const refused = async (verdict: Extract<RobotsVerdict, { allowed: false }>) => {
      if (url === startUrl) await finish({ position, url, status: 'failed', error: robotsRefusal(url, verdict), links: [], result: {} });
      else skip(url, verdict.reason);
    };
    lap?.next('crawl:robots-sitemaps');
    const verdict = await robotsVerdict(robots, url);
    lap?.end();
    if (!verdict.allowed) { await refused(verdict); continue; }

    // A guarded GET first: content type, redirects and robots directives decide before Chromium
    // loads anything. Redirects are followed here hop by hop, so that one leaving the site (or
    // disallowed by its robots.txt) is never followed at all.
    lap?.next('crawl:probe');
    const probe = await fetchInScope(probes, robots, url, start);
    lap?.end();
    if (probe === 'out-of-scope') { skip(url, 'redirect-out-of-scope'); continue; }
    if ('allowed' in probe) { await refused(probe); continue; }
    if (probe.error) {
      await finish({ position, url, status: 'failed', error: probe.error, links: [], result: {} });
      continue;
    }
    const finalUrl = normaliseUrl(probe.url) ?? url;
    if (finalUrl !== url) {
      const key = pageKey(finalUrl);
      if (key !== pageKey(url) && seen.has(key)) { skip(url, 'duplicate'); continue; }
      seen.add(key);
    }
    if (!isHtml(probe.headers['content-type'])) { skip(url, 'not-html'); continue; }
    const raw = robotsDirectives(probe.headers, probe.body);
    if (raw.noindex) {
      // Not audited, but its links still lead to pages that are (unless nofollow).
      skip(url, 'noindex');
      if (!raw.nofollow) for (const m of probe.body.matchAll(/<a\b[^>]*\bhref\s*=\s*["']([^"']+)["']/gi)) enqueue(m[1].replace(/&amp;/g, '&'), finalUrl);
      continue;
    }
    let visited: Visited;
    try {
      visited = await options.visit(finalUrl);
    } catch (err) {
      await finish({ position, url: finalUrl, status: 'failed', error: err instanceof Error ? err.message : String(err), links: [], result: {} });
      continue;
    }
    const nofollow = raw.nofollow || visited.nofollow === true;
    const found = nofollow ? [] : [...new Set(visited.links.map((l) => normaliseUrl(l, finalUrl)).filter((l): l is string => l !== null))];
    // Other sites' addresses are reported as skipped once; only the site's own are stored.
    for (const l of found) if (!inScope(l, start)) enqueue(l);
    const links = found.filter((l) => inScope(l, start));
    await finish({ position, url: finalUrl, status: 'done', links, result: visited.noindex ? { ...visited.result, noindex: true } : visited.result });
  }
  return { pages, sitemaps, robots: await robots.all() };
}
