/**
 * The link to DIGG's notification function (anmälningsfunktionen), compared as an address:
 * scheme, www and a trailing slash do not matter (upstream compares exact strings, so
 * https://digg.se/tdosanmalan/ or http://www.digg.se/tdosanmalan fail there).
 */
import { decodedPath, type PageLink } from './html.js';
import { withoutWww } from '../../core/gather/site.js';

/** The address DIGG asks statements to link to. */
export const DIGG_SHORT = 'digg.se/tdosanmalan';
/** DIGG's page the short address led to ("canonical" upstream). */
export const DIGG_CANONICAL = 'digg.se/analys-och-uppfoljning/lagen-om-tillganglighet-till-digital-offentlig-service-dos-lagen/anmal-bristande-tillganglighet';
/** Older pages of the same function: accepted, but worth updating (upstream's regex, on the normalised address). */
const DIGG_OLD = /^digg\.se\/[a-z0-9/-]*anmal-bristande-tillganglighet$/;

export type DiggLinkKind = 'short' | 'canonical' | 'old';

/** host without www + path without trailing slashes, lower-case; null when not digg.se. */
export function normalisedDiggAddress(url: URL): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = withoutWww(url.hostname);
  if (host !== 'digg.se') return null;
  return `${host}${decodedPath(url).toLowerCase().replace(/\/+$/, '')}`;
}

export function diggLinkKind(url: URL): DiggLinkKind | null {
  const address = normalisedDiggAddress(url);
  if (address === DIGG_SHORT) return 'short';
  if (address === DIGG_CANONICAL) return 'canonical';
  if (address && DIGG_OLD.test(address)) return 'old';
  return null;
}

export interface DiggLink {
  href: string;
  text: string;
  kind: DiggLinkKind;
}

const RANK: Record<DiggLinkKind, number> = { short: 0, canonical: 1, old: 2 };

/** The best link to DIGG's notification function on the page (any link in the body, nav included, as upstream). */
export function findDiggLink(links: readonly PageLink[]): DiggLink | null {
  let best: DiggLink | null = null;
  for (const link of links) {
    const kind = link.url ? diggLinkKind(link.url) : null;
    if (kind && (!best || RANK[kind] < RANK[best.kind])) best = { href: link.href, text: link.text, kind };
  }
  return best;
}
