/**
 * Which links of a page may lead to the accessibility statement, and how likely (upstream's
 * getInterestingUrls precision table), with addresses resolved and compared as URLs.
 */
import { decodedPath, type PageLink } from './html.js';
import { withoutWww } from '../../core/gather/site.js';

/** "tillgänglighetsredogörelse", also with the letters mangled by a wrong encoding (upstream's `.{1,6}`). */
export const STATEMENT_WORD = /tillg(?:ä|a|.{1,6}?)nglighetsredog(?:ö|o|.{1,6}?)relse/i;
export const ACCESSIBILITY_WORD = /tillg(?:ä|a|.{1,6}?)nglighet/i;
/** A link or heading naming another service than the website: an e-service, an app, "Mina sidor". */
export const OTHER_SERVICE = /e-?tjänst|tjänsten\b|självservice|mina sidor|\bapp(?:en|ar|arna)?\b|\bportal(?:en)?\b/i;

/** Addresses that are documents, media, archives or data, never the statement page (upstream's list). */
const NOT_A_PAGE = /\.(?:pdf|docx?|xlsx?|pptx?|odt|ods|odp|rtf|csv|txt|png|jpe?g|gif|svg|webp|bmp|ico|tiff?|mp3|mp4|wav|ogg|webm|avi|mov|flac|m4a|zip|rar|7z|tar|gz|bz2|json|xml|rss|atom)$/i;

/** Below this a link is not followed (upstream: > 0.1). */
const MIN_PRECISION = 0.1;

/** How likely a link's text (or, failing that, its address) leads to the statement; 0: not at all. */
export function linkPrecision(text: string, url: URL): number {
  const t = text.toLowerCase().trim();
  let p = 0;
  const statement = STATEMENT_WORD.exec(t);
  const accessibility = ACCESSIBILITY_WORD.exec(t);
  if (statement && statement.index === 0 && statement[0].length === t.length) p = 0.55;
  else if (statement && statement.index === 0) p = 0.5;
  else if (statement) p = 0.45; // "Läs vår tillgänglighetsredogörelse": upstream gives 0.3
  else if (accessibility && accessibility.index === 0 && accessibility[0].length === t.length) p = 0.4;
  else if (accessibility && accessibility.index === 0) p = 0.35;
  else if (accessibility) p = 0.3;
  else if (t.includes('om webbplats')) p = 0.29;
  else if (/^om [a-zåäö]+$/.test(t)) p = 0.25; // upstream's [a-z] leaves out å, ä and ö
  else if (/^om [a-zåäö]+/.test(t)) p = 0.2;
  // An icon or an image without text: the address may still say it.
  if (p === 0) {
    const path = decodedPath(url).toLowerCase();
    if (/tillg(?:a|ä)nglighetsredog(?:o|ö)relse/.test(path)) p = 0.45;
    else if (/tillg(?:a|ä)nglighet/.test(path)) p = 0.3;
  }
  // A statement of an e-service or an app comes after the website's own (upstream #912).
  if (p > 0 && OTHER_SERVICE.test(t)) p -= 0.1;
  return p;
}

/**
 * Whether a link may lead to the statement whatever its rank: its text names "tillgänglighet"
 * (an e-service's or an app's too) or "om webbplats", or its address names "tillgänglighet".
 * An unreadable page behind such a link keeps a site without a found statement from 1.0.
 */
export function promisesStatement(text: string, url: URL): boolean {
  const t = text.toLowerCase();
  return ACCESSIBILITY_WORD.test(t) || t.includes('om webbplats') || /tillg(?:a|ä)nglighet/.test(decodedPath(url).toLowerCase());
}

/** www.kommun.se and kommun.se are the same site; other subdomains are not. */
export function twinHost(a: string, b: string): boolean {
  return withoutWww(a) === withoutWww(b);
}

/**
 * Same site: the same host or its www twin, on the same port (URL leaves a scheme's default port
 * empty, so http://kommun.se and https://kommun.se are both port-less and match; upstream drops
 * the port altogether and refuses an http link from an https page).
 */
export function sameSite(a: URL, b: URL): boolean {
  return twinHost(a.hostname, b.hostname) && a.port === b.port;
}

/** An address without its fragment, the key a page is visited under once. */
export function pageKey(url: URL | string): string {
  const u = new URL(typeof url === 'string' ? url : url.href);
  u.hash = '';
  return u.href;
}

export interface Candidate {
  url: string;
  /** The text of the link that led here. */
  text: string;
  precision: number;
  /** Links followed from the start page: 1 for a link on the start page. */
  depth: number;
  /** The page the link was on. */
  from: string;
  /** Discovery order, the last tie-breaker. */
  order: number;
}

/** The links of a page worth following, each address once (its best link kept). */
export function interestingLinks(links: readonly PageLink[], site: URL, depth: number, from: string): Omit<Candidate, 'order'>[] {
  const best = new Map<string, Omit<Candidate, 'order'>>();
  for (const link of links) {
    const url = link.url;
    const raw = link.href.trim().toLowerCase();
    if (!url || raw === '' || raw.startsWith('#')) continue;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue; // mailto:, tel:, javascript:, data:
    if (!sameSite(url, site) || NOT_A_PAGE.test(url.pathname)) continue;
    // Footer links are where people look for the statement: first among equals.
    const precision = linkPrecision(link.text, url) + (link.inFooter ? 0.01 : 0);
    if (precision <= MIN_PRECISION + 1e-9) continue;
    const key = pageKey(url);
    const seen = best.get(key);
    if (!seen || precision > seen.precision) best.set(key, { url: key, text: link.text, precision: Math.round(precision * 100) / 100, depth, from });
  }
  return [...best.values()];
}
