/**
 * robots.txt per origin, as RFC 9309 has it: each origin (scheme, host and port) the crawl visits
 * has its own file, fetched once through the guarded probes, and what a fetch that gives no file
 * means is the RFC's, not the parser's (robots-parser answers `undefined` for an address of
 * another origin, which must never read as "allowed"):
 *
 * - 2xx: the file's rules (§2.3.1.1), the first 500 KiB of it at least (§2.5);
 * - 3xx: followed, across hosts too, up to five redirects, and the file reached is applied to the
 *   origin first asked (§2.3.1.2); more than five: unavailable, as the RFC allows;
 * - 4xx: unavailable, everything may be crawled (§2.3.1.3);
 * - 5xx, no answer (refused, timed out, refused by the target guard) or a redirect without a
 *   Location: unreachable, nothing may be crawled (§2.3.1.4).
 */
import robotsParserModule from 'robots-parser';
import type { Probes } from '../plugin-api.js';
import { normaliseUrl } from './normalise.js';

// The package's CommonJS default export, typed as the module namespace.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** The robots.txt user agent token the crawler obeys. */
export const CRAWLER_AGENT = 'webperf';

/** Redirects followed to reach a robots.txt (RFC 9309 §2.3.1.2: at least five). */
export const ROBOTS_MAX_REDIRECTS = 5;

/** Bytes of a robots.txt parsed (RFC 9309 §2.5: at least 500 KiB). */
export const ROBOTS_MAX_BYTES = 512 * 1024;

/** parsed: the file's rules hold · unavailable: no file, all allowed · unreachable: all disallowed. */
export type RobotsState = 'parsed' | 'unavailable' | 'unreachable';

/** One origin's robots.txt as the crawl obeys it. */
export interface OriginRobots {
  /** The origin the rules apply to. */
  origin: string;
  /** `<origin>/robots.txt`, the address asked. */
  url: string;
  /** Every address fetched, redirects included, the first one first. */
  chain: string[];
  /** The last answer's status (0 when none came). */
  status: number;
  state: RobotsState;
  /** Why there is no file (an error, a status, too many redirects); null for a parsed file. */
  reason: string | null;
  /** Sitemap: lines of the file, absolute. */
  sitemaps: string[];
  /** Whether the crawler may fetch `url`, an address of this origin. */
  allowed(url: string): boolean;
}

function withoutFile(origin: string, url: string, chain: string[], status: number, state: Exclude<RobotsState, 'parsed'>, reason: string): OriginRobots {
  return { origin, url, chain, status, state, reason, sitemaps: [], allowed: () => state === 'unavailable' };
}

/** Fetches and reads the robots.txt of `origin` (an address's `URL.origin`). */
export async function fetchRobots(probes: Probes, origin: string): Promise<OriginRobots> {
  const url = `${origin}/robots.txt`;
  const chain: string[] = [];
  let current = url;
  for (let redirects = 0; ; redirects++) {
    chain.push(current);
    // Hop by hop, so that the RFC's limit is ours, not the probes' own.
    const res = await probes.fetch(current, { followRedirects: false, maxBytes: ROBOTS_MAX_BYTES });
    if (res.error) return withoutFile(origin, url, chain, 0, 'unreachable', res.error);
    const { status } = res;
    if (status >= 200 && status < 300) {
      // The file's rules are read in the context of the origin first asked (robots-parser only
      // answers for addresses of the origin it is given).
      const robots = robotsParser(url, res.body);
      const sitemaps = robots.getSitemaps().map((s) => normaliseUrl(s, current)).filter((s): s is string => s !== null);
      return {
        origin,
        url,
        chain,
        status,
        state: 'parsed',
        reason: null,
        sitemaps: [...new Set(sitemaps)],
        allowed: (page) => {
          const verdict = robots.isAllowed(page, CRAWLER_AGENT);
          if (verdict === undefined) throw new Error(`${page} is not an address of ${origin}: its robots.txt does not answer for it`);
          return verdict;
        },
      };
    }
    if (status >= 300 && status < 400) {
      const location = res.headers.location;
      if (!location) return withoutFile(origin, url, chain, status, 'unreachable', `HTTP ${status} without a Location`);
      if (redirects === ROBOTS_MAX_REDIRECTS) return withoutFile(origin, url, chain, status, 'unavailable', `More than ${ROBOTS_MAX_REDIRECTS} redirects`);
      try {
        current = new URL(location, current).href;
      } catch {
        return withoutFile(origin, url, chain, status, 'unreachable', `HTTP ${status} to an address that cannot be read: ${location}`);
      }
      continue;
    }
    if (status >= 400 && status < 500) return withoutFile(origin, url, chain, status, 'unavailable', `HTTP ${status}`);
    return withoutFile(origin, url, chain, status, 'unreachable', `HTTP ${status}`);
  }
}

/** The robots.txt of every origin a crawl meets, each fetched once. */
export class RobotsCache {
  private readonly byOrigin = new Map<string, Promise<OriginRobots>>();

  constructor(private readonly probes: Probes) {}

  /** The robots.txt that governs `url`. */
  for(url: string): Promise<OriginRobots> {
    const { origin } = new URL(url);
    let hit = this.byOrigin.get(origin);
    if (!hit) {
      hit = fetchRobots(this.probes, origin);
      this.byOrigin.set(origin, hit);
    }
    return hit;
  }

  /** The files read so far, in the order first asked. */
  async all(): Promise<OriginRobots[]> {
    return Promise.all(this.byOrigin.values());
  }
}
