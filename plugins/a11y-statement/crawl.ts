/**
 * The walk from the start page to the statement: links whose text promises it (footer,
 * "Om webbplatsen", "Tillgänglighet") are followed best first, across pages, up to MAX_PAGES
 * pages, every one read through the guarded, memoised probe. A statement about another service
 * (an e-service, an app) does not end the walk: the website's own is looked for further.
 */
import type { Probes, ProbeResponse } from '../../core/plugin-api.js';
import { readPage, type Page } from './html.js';
import { interestingLinks, pageKey, sameSite, type Candidate } from './links.js';
import { aboutOf, recognise, type About } from './rules.js';
import { withoutWww } from '../../core/gather/site.js';

/** Pages read at most, the start page included (upstream: 15). */
export const MAX_PAGES = 15;
/** Pages read at once. */
const BATCH = 3;
/**
 * Unreadable pages whose link promised at least this much may have held the statement, or led to
 * it: the link names "tillgänglighet" (0.3 and up) or "Om webbplatsen" (0.29).
 */
export const LIKELY_STATEMENT = 0.29;

export interface FoundStatement {
  page: Page;
  depth: number;
  /** The link that led to it; null for the start page itself. */
  via: Candidate | null;
  signal: 'strong' | 'weak';
  about: About;
  aboutReason: string;
}

export interface Visit {
  url: string;
  final_url: string;
  depth: number;
  link_text: string;
  precision: number;
  status: number;
  /** Why the page could not be read; null when it was. */
  unreadable: string | null;
  statement: boolean;
}

export interface CrawlResult {
  statements: FoundStatement[];
  visits: Visit[];
  /** Pages read, the start page included. */
  pagesRead: number;
  /** Links still queued when the walk stopped. */
  left: number;
}

/** Why an answer is no readable HTML page; null when it is one. */
export function whyUnreadable(answer: Pick<ProbeResponse, 'status' | 'headers' | 'body' | 'error'>): string | null {
  if (answer.error) return answer.error;
  if (answer.status === 0) return 'no answer';
  if (answer.status < 200 || answer.status >= 300) return `status ${answer.status}`;
  const type = (answer.headers['content-type'] ?? '').toLowerCase();
  if (type && !/html|xml/.test(type)) return `not HTML (${type.split(';')[0].trim()})`;
  if (!answer.body.includes('<')) return 'no HTML';
  return null;
}

/** One key for a page and its www twin's copy, so that the same page is not read twice. */
function twinKey(url: string): string {
  const u = new URL(pageKey(url));
  u.hostname = withoutWww(u.hostname);
  return u.href;
}

const byPromise = (a: Candidate, b: Candidate) => b.precision - a.precision || a.depth - b.depth || a.order - b.order;

export async function findStatement(start: Page, aliases: readonly string[], probes: Probes, signal: AbortSignal): Promise<CrawlResult> {
  const site = new URL(start.url);
  const seen = new Set([start.url, ...aliases].map(twinKey));
  const queue: Candidate[] = [];
  let order = 0;
  const statements: FoundStatement[] = [];
  const visits: Visit[] = [];

  const enqueue = (page: Page, depth: number) => {
    for (const link of interestingLinks(page.links, site, depth + 1, page.url)) {
      if (seen.has(twinKey(link.url))) continue;
      const queued = queue.find((q) => twinKey(q.url) === twinKey(link.url));
      if (!queued) queue.push({ ...link, order: order++ });
      else if (link.precision > queued.precision) Object.assign(queued, { text: link.text, precision: link.precision });
    }
  };
  const consider = (page: Page, depth: number, via: Candidate | null): boolean => {
    const r = recognise(page);
    if (!r.statement) return false;
    const about = aboutOf(page, via?.text ?? '');
    statements.push({ page, depth, via, signal: r.signal!, about: about.about, aboutReason: about.reason });
    return true;
  };
  const ownFound = () => statements.some((s) => s.about === 'website');

  consider(start, 0, null);
  enqueue(start, 0);
  let pagesRead = 1;
  while (!ownFound() && queue.length > 0 && pagesRead < MAX_PAGES) {
    signal.throwIfAborted();
    queue.sort(byPromise);
    const batch = queue.splice(0, Math.min(BATCH, MAX_PAGES - pagesRead));
    for (const c of batch) seen.add(twinKey(c.url));
    pagesRead += batch.length;
    const answers = await Promise.all(batch.map((c) => probes.fetch(c.url)));
    signal.throwIfAborted();
    for (const [i, c] of batch.entries()) {
      const answer = answers[i];
      const unreadable = whyUnreadable(answer);
      const visit: Visit = { url: c.url, final_url: answer.url, depth: c.depth, link_text: c.text, precision: c.precision, status: answer.status, unreadable, statement: false };
      visits.push(visit);
      if (unreadable) continue;
      // Redirected to a page already read (the start page, say): nothing new there.
      const finalKey = twinKey(answer.url);
      if (finalKey !== twinKey(c.url) && seen.has(finalKey)) continue;
      seen.add(finalKey);
      const page = readPage(answer.body, answer.url);
      visit.statement = consider(page, c.depth, c);
      // A page on another site (a redirect away) may be the statement, but its links are not followed.
      if (sameSite(new URL(answer.url), site)) enqueue(page, c.depth);
    }
  }
  return { statements, visits, pagesRead, left: queue.length };
}
