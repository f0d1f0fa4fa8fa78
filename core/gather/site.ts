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
