/**
 * Cookies as the site asked for them in its Set-Cookie headers. The cookie jar alone hides two
 * things: browsers cap lifetimes (Chromium at 400 days), so a site asking for two years looks
 * like 400 days; and a browser that blocks third-party cookies (as the gather's Chromium does by
 * default) stores none of them, although the site tried to set them.
 */
import type { CookieRecord, NetworkRecord } from '../plugin-api.js';
import { sameSite } from './site.js';

export interface DeclaredCookie {
  name: string;
  /** Domain attribute without its leading dot, else the host that answered. */
  domain: string;
  /** Seconds the site asked the cookie to live; null for a session cookie. */
  lifetimeSeconds: number | null;
  secure: boolean;
  httpOnly: boolean;
  sameSite: CookieRecord['sameSite'];
}

const SAME_SITE: Record<string, CookieRecord['sameSite']> = { strict: 'Strict', lax: 'Lax', none: 'None' };

export function parseSetCookie(line: string, requestHost: string, responseDate: number): DeclaredCookie | null {
  const [pair, ...attributes] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq < 0) return null;
  const name = pair.slice(0, eq).trim();
  if (!name) return null;
  const cookie: DeclaredCookie = { name, domain: requestHost.toLowerCase(), lifetimeSeconds: null, secure: false, httpOnly: false, sameSite: '' };
  let maxAge: number | null = null;
  let expires: number | null = null;
  for (const attribute of attributes) {
    const i = attribute.indexOf('=');
    const key = (i < 0 ? attribute : attribute.slice(0, i)).trim().toLowerCase();
    const value = i < 0 ? '' : attribute.slice(i + 1).trim();
    if (key === 'domain' && value) cookie.domain = value.replace(/^\./, '').toLowerCase();
    else if (key === 'max-age' && /^-?\d+$/.test(value)) maxAge = Number(value);
    else if (key === 'expires' && !Number.isNaN(Date.parse(value))) expires = Date.parse(value);
    else if (key === 'secure') cookie.secure = true;
    else if (key === 'httponly') cookie.httpOnly = true;
    else if (key === 'samesite') cookie.sameSite = SAME_SITE[value.toLowerCase()] ?? '';
  }
  // Max-Age wins over Expires (RFC 6265 §5.3).
  cookie.lifetimeSeconds = maxAge !== null ? maxAge : expires !== null ? Math.round((expires - responseDate) / 1000) : null;
  return cookie;
}

/** The last Set-Cookie of every (name, domain) the page load received, in network order. */
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

/**
 * The third-party cookies the page's responses tried to set that the browser did not store (it
 * blocks them): what a test that judges the cookies a site has others set reads besides the jar.
 * `stored`: the jar's cookies by cookieKey; expired ones (a deletion) are left out.
 */
export function refusedThirdPartyCookies(network: readonly NetworkRecord[], stored: ReadonlySet<string>, pageHost: string): DeclaredCookie[] {
  return [...declaredCookies(network)]
    .filter(([key, d]) => !stored.has(key) && !sameSite(d.domain, pageHost) && (d.lifetimeSeconds === null || d.lifetimeSeconds > 0))
    .map(([, d]) => d);
}
