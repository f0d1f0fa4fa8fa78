/**
 * The walk from the start page to the statement: links whose text promises it (footer,
 * "Om webbplatsen", "Tillgänglighet") are followed best first, across pages, up to MAX_PAGES
 * pages, every one read through the guarded, memoised probe. A statement about another service
 * (an e-service, an app) does not end the walk: the website's own is looked for further. A page
 * is read once, whichever links (or redirects) lead to it, and in the encoding it is served in
 * (the probes decode it).
 *
 * What a followed link answered is one of three: a page, read; an answer that is no page (404,
 * 410, another client error, a document that is not HTML such as a PDF, an empty body), which says
 * the statement is not there; or nothing to go by (no answer, a timeout, 401, 403, 407, 408, 429,
 * a server error), which may hide it.
 */
import type { Probes, ProbeResponse, ReportText } from '../../core/plugin-api.js';
import { fetchFailureText } from '../../core/net/fetch-failure.js';
import { readPage, type Page } from './html.js';
import { interestingLinks, pageKey, promisesStatement, sameSite, type Candidate } from './links.js';
import { aboutOf, recognise, type About } from './rules.js';
import { withoutWww } from '../../core/gather/site.js';

/** Pages read at most, the start page included (upstream: 15). */
export const MAX_PAGES = 15;
/** Pages read at once. */
const BATCH = 3;

export interface FoundStatement {
  page: Page;
  depth: number;
  /** The link that led to it; null for the start page itself. */
  via: Candidate | null;
  signal: 'strong' | 'weak';
  about: About;
  aboutReason: string;
}

/** What a followed link answered: a page; a definite answer that is no page; nothing to go by. */
export type Outcome = 'page' | 'no-page' | 'unreadable';

export interface Visit {
  url: string;
  final_url: string;
  depth: number;
  link_text: string;
  /** The page the link was on. */
  linked_from: string;
  precision: number;
  status: number;
  outcome: Outcome;
  /** Why it is no page or could not be read, in English (stored data); null when it was read. */
  why: string | null;
  /** The same in the report languages, for the review text. */
  reason: ReportText | null;
  /** The link or its address names the statement's subject (promisesStatement). */
  promising: boolean;
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

/** Answers that say nothing of the page: the crawler refused, limited or timed out. */
const NOT_TELLING = new Set([401, 403, 407, 408, 429]);

/** Why an answer is no readable HTML page, and whether that is definite; null when it is one. */
export function classify(answer: Pick<ProbeResponse, 'status' | 'headers' | 'body' | 'error' | 'failure'>): Problem | null {
  const status = { sv: `status ${answer.status}`, en: `status ${answer.status}` };
  if (answer.error) return problem('unreadable', fetchFailureText(answer.failure), answer.error);
  if (answer.status === 0) return problem('unreadable', { sv: 'inget svar', en: 'no answer' });
  if (NOT_TELLING.has(answer.status) || answer.status >= 500) return problem('unreadable', status);
  if (answer.status < 200 || answer.status >= 300) return problem('no-page', status);
  const type = (answer.headers['content-type'] ?? '').toLowerCase();
  const media = type.split(';')[0].trim();
  if (type && !/html|xml/.test(type)) return problem('no-page', { sv: `inte HTML (${media})`, en: `not HTML (${media})` });
  if (!answer.body.includes('<')) return problem('no-page', { sv: 'ingen HTML', en: 'no HTML' });
  return null;
}

/** Why an answer is no page: `reason` for the review text, `why` (the fetch's own error, else the reason in English) for the stored data. */
interface Problem {
  outcome: Exclude<Outcome, 'page'>;
  why: string;
  reason: ReportText;
}

const problem = (outcome: Problem['outcome'], reason: ReportText, why = reason.en): Problem => ({ outcome, why, reason });

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
  /** Links not yet followed, by page key. */
  const queue = new Map<string, Candidate>();
  let order = 0;
  const statements: FoundStatement[] = [];
  const visits: Visit[] = [];

  const enqueue = (page: Page, depth: number) => {
    for (const link of interestingLinks(page.links, site, depth + 1, page.url)) {
      const key = twinKey(link.url);
      if (seen.has(key)) continue;
      const queued = queue.get(key);
      if (!queued) queue.set(key, { ...link, order: order++ });
      // The better link replaces the other whole: its text, address, page and depth go together.
      else if (link.precision > queued.precision) Object.assign(queued, link);
    }
  };
  /** The next links to follow, best first; a page read meanwhile (a redirect led there) is dropped. */
  const dequeue = (n: number): Candidate[] => {
    const batch: Candidate[] = [];
    for (const c of [...queue.values()].sort(byPromise)) {
      if (batch.length === n) break;
      const key = twinKey(c.url);
      queue.delete(key);
      if (!seen.has(key)) batch.push(c);
    }
    return batch;
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
  while (!ownFound() && queue.size > 0 && pagesRead < MAX_PAGES) {
    signal.throwIfAborted();
    const batch = dequeue(Math.min(BATCH, MAX_PAGES - pagesRead));
    if (batch.length === 0) break;
    for (const c of batch) seen.add(twinKey(c.url));
    pagesRead += batch.length;
    const answers = await Promise.all(batch.map((c) => probes.fetch(c.url)));
    signal.throwIfAborted();
    for (const [i, c] of batch.entries()) {
      const answer = answers[i];
      const problem = classify(answer);
      const visit: Visit = {
        url: c.url, final_url: answer.url, depth: c.depth, link_text: c.text, linked_from: c.from, precision: c.precision,
        status: answer.status, outcome: problem?.outcome ?? 'page', why: problem?.why ?? null, reason: problem?.reason ?? null, promising: promisesStatement(c.text, new URL(c.url)), statement: false,
      };
      visits.push(visit);
      if (problem) continue;
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
  return { statements, visits, pagesRead, left: queue.size };
}
