/**
 * Address normalisation for the crawl: one key per page, so that the same page reached as
 * `/a/`, `/a#top`, `/a?utm_source=x` or `https://host:443/a` is tested and charged once, and the
 * crawl's scope: the start host and its www twin, over http and https on their standard ports.
 */

/** Query parameters that only track the visitor and never change the page. */
const TRACKING = /^(utm_[a-z_]+|gclid|dclid|gbraid|wbraid|fbclid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|igshid|twclid|ttclid|li_fat_id)$/i;

/**
 * The address to load: http(s) only, fragment dropped, tracking parameters dropped (WHATWG URL
 * already lowercases the host and drops default ports). Null for anything that is not a page
 * address (mailto:, javascript:, unparsable, credentials).
 */
export function normaliseUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  url.hash = '';
  for (const name of [...url.searchParams.keys()]) if (TRACKING.test(name)) url.searchParams.delete(name);
  if ([...url.searchParams.keys()].length === 0) url.search = '';
  return url.href;
}

/** The de-duplication key: the normalised address without a trailing slash (except the root). */
export function pageKey(normalised: string): string {
  const url = new URL(normalised);
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '');
  return url.href;
}

/** The host and its www/non-www twin. */
export function twinHosts(host: string): Set<string> {
  const h = host.toLowerCase();
  return new Set([h, h.startsWith('www.') ? h.slice(4) : `www.${h}`]);
}

/** The standard port of each scheme a page may have. */
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** The port an address connects to: written, or its scheme's standard one (which URL leaves out). */
export function effectivePort(url: URL): string {
  return url.port || DEFAULT_PORTS[url.protocol] || '';
}

/**
 * Same site as the start page: http(s), the start host or its www twin, and the start page's port.
 * A site on the standard ports has its http and https twins in scope (http://host/ answers for
 * https://host/ and the other way round: `http://host:443/` is neither); on another port, only
 * the same scheme on that port is.
 */
export function inScope(url: string, start: URL): boolean {
  const u = new URL(url);
  if (!DEFAULT_PORTS[u.protocol] || !twinHosts(start.hostname).has(u.hostname)) return false;
  const standard = (x: URL) => effectivePort(x) === DEFAULT_PORTS[x.protocol];
  if (standard(u) && standard(start)) return true;
  return u.protocol === start.protocol && effectivePort(u) === effectivePort(start);
}
