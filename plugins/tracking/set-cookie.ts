/**
 * The lifetime a site asked for in its Set-Cookie headers. Browsers cap cookie lifetimes (Chromium
 * at 400 days), so the cookie jar alone would hide a site that asks for two years.
 */
import type { NetworkRecord } from '../../core/plugin-api.js';

export interface DeclaredCookie {
  name: string;
  /** Domain attribute without its leading dot, else the host that answered. */
  domain: string;
  /** Seconds the site asked the cookie to live; null for a session cookie. */
  lifetimeSeconds: number | null;
}

export function parseSetCookie(line: string, requestHost: string, responseDate: number): DeclaredCookie | null {
  const [pair, ...attributes] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq < 0) return null;
  const name = pair.slice(0, eq).trim();
  if (!name) return null;
  let domain = requestHost.toLowerCase();
  let maxAge: number | null = null;
  let expires: number | null = null;
  for (const attribute of attributes) {
    const i = attribute.indexOf('=');
    const key = (i < 0 ? attribute : attribute.slice(0, i)).trim().toLowerCase();
    const value = i < 0 ? '' : attribute.slice(i + 1).trim();
    if (key === 'domain' && value) domain = value.replace(/^\./, '').toLowerCase();
    else if (key === 'max-age' && /^-?\d+$/.test(value)) maxAge = Number(value);
    else if (key === 'expires') {
      const t = Date.parse(value);
      if (!Number.isNaN(t)) expires = t;
    }
  }
  // Max-Age wins over Expires (RFC 6265 §5.3).
  const lifetimeSeconds = maxAge !== null ? maxAge : expires !== null ? Math.round((expires - responseDate) / 1000) : null;
  return { name, domain, lifetimeSeconds };
}

/** The last Set-Cookie of every (name, domain) the page load received. */
export function declaredCookies(network: readonly NetworkRecord[]): Map<string, DeclaredCookie> {
  const out = new Map<string, DeclaredCookie>();
  for (const record of network) {
    if (record.setCookies.length === 0) continue;
    let host: string;
    try {
      host = new URL(record.url).hostname.replace(/^\[|\]$/g, '');
    } catch {
      continue;
    }
    const dateHeader = Date.parse(record.responseHeaders.date ?? '');
    const date = Number.isNaN(dateHeader) ? Date.now() : dateHeader;
    for (const line of record.setCookies) {
      const parsed = parseSetCookie(line, host, date);
      if (parsed) out.set(cookieKey(parsed.name, parsed.domain), parsed);
    }
  }
  return out;
}

export function cookieKey(name: string, domain: string): string {
  return `${name}\n${domain.replace(/^\./, '').toLowerCase()}`;
}
