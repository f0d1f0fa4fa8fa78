/**
 * "Same site" by registrable domain. Without a public-suffix list we take the last two labels
 * (three under a few well-known two-level suffixes); an IP address is its own site.
 */
import net from 'node:net';

const TWO_LEVEL = new Set(['co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'com.au', 'co.nz', 'co.jp', 'com.br', 'co.za']);

export function siteOf(hostname: string): string {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (net.isIP(host)) return host;
  const labels = host.split('.');
  if (labels.length <= 2) return host;
  const lastTwo = labels.slice(-2).join('.');
  return TWO_LEVEL.has(lastTwo) ? labels.slice(-3).join('.') : lastTwo;
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
