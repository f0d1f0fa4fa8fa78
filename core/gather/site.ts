/**
 * "Same site" by registrable domain (eTLD+1), as browsers read it: the public suffix list with its
 * private section (user.github.io and another.github.io are two sites; kommun.se and
 * www.kommun.se one), through tldts, which keeps the list built in. An IP address, and a name
 * under no known suffix with a single label (localhost), is its own site.
 */
import net from 'node:net';
import { getDomain } from 'tldts';

export function siteOf(hostname: string): string {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (net.isIP(host)) return host;
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/**
 * A host name as the "www twin" rule reads it (www.kommun.se and kommun.se are one site's two
 * names): lower case, no trailing dot, no leading "www.".
 */
export function withoutWww(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '').replace(/^www\./, '');
}

export function sameSite(a: string, b: string): boolean {
  return siteOf(a) === siteOf(b);
}

/** The cookie's domain attribute without its leading dot. */
export function cookieHost(domain: string): string {
  return domain.replace(/^\./, '');
}

/** The host name of a URL, without the brackets of an IPv6 address; null when it is no URL. */
export function hostOf(raw: string): string | null {
  try {
    return new URL(raw).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/** The host name of an http(s) URL (as hostOf); null for any other. */
export function webHostOf(raw: string): string | null {
  return /^https?:/i.test(raw) ? hostOf(raw) : null;
}

/** The http(s) hosts of `urls` that are not the page's site, with their request counts, most requests first. */
export function thirdPartyHosts(urls: readonly string[], pageHost: string): { host: string; requests: number }[] {
  const counts = new Map<string, number>();
  for (const raw of urls) {
    const host = webHostOf(raw);
    if (host === null || sameSite(host, pageHost)) continue;
    counts.set(host, (counts.get(host) ?? 0) + 1);
  }
  return [...counts].map(([host, requests]) => ({ host, requests })).sort((a, b) => b.requests - a.requests || a.host.localeCompare(b.host));
}
