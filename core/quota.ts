/**
 * Order rules: what a re-test, a one-off test and an audit cost, a site's credit ceiling and the
 * rolling 30-day window, and what an order may hold (the testnums list, the one-off URLs).
 *
 * - Ceiling: the site's own `monthly_quota`, else its premium level's, else 0 (no premium level:
 *   nothing can be ordered). No account type is unlimited.
 * - Used: the sum of the site's credit-ledger rows created in the last 30 days
 *   (`created_at > now() - 30 days`), so credits free up continuously; there is no reset day.
 * - Available: ceiling − used, never below 0.
 */
import { sql, type Kysely } from './db/kysely.js';
import net from 'node:net';
import type { DB } from './db/schema.js';
import { WebperfError } from './errors.js';
import { siteOf } from './gather/site.js';

/** Re-test: credits per test type run. */
export const RETEST_CREDITS_PER_TEST = 1;
/** One-off test: credits per tested page. */
export const TEST_ONCE_CREDITS_PER_PAGE = 15;
/** Audit: credits per crawled page. */
export const AUDIT_CREDITS_PER_PAGE = 1;
/** Length of the rolling credit window. */
export const QUOTA_PERIOD_DAYS = 30;
/** Addresses one /test_once/ call may hold. */
export const MAX_TEST_ONCE_URLS = 10;
/** Longest address accepted in a one-off test. */
export const MAX_URL_LENGTH = 2048;

/** Credits of a re-test of these test types (each distinct type once). */
export function retestCost(testTypes: readonly number[]): number {
  return new Set(testTypes).size * RETEST_CREDITS_PER_TEST;
}

/** Credits of a one-off test of this many pages. */
export function testOnceCost(pages: number): number {
  return pages * TEST_ONCE_CREDITS_PER_PAGE;
}

/** Credits of an audit crawling this many pages. */
export function auditCost(pages: number): number {
  return pages * AUDIT_CREDITS_PER_PAGE;
}

/** A site's credits in the current rolling window. */
export interface CreditStatus {
  siteId: number;
  /** The ceiling for the period (site's own quota, else its premium level's, else 0). */
  ceiling: number;
  /** Credits used over the last 30 days. */
  used: number;
  /** ceiling − used, never below 0. */
  available: number;
}

export function availableCredits(ceiling: number, used: number): number {
  return Math.max(0, ceiling - used);
}

/**
 * The site's credit status, or null when the site does not exist. With `lock`, the site row is
 * locked FOR NO KEY UPDATE first (see placeOrder for why), so call it inside a transaction.
 * The SQL function place_order computes the same ceiling and window for the orders it places.
 */
export async function creditStatus(db: Kysely<DB>, siteId: number, options: { lock?: boolean } = {}): Promise<CreditStatus | null> {
  let q = db
    .selectFrom('sites')
    .select((eb) =>
      eb.fn
        .coalesce('sites.monthly_quota', eb.selectFrom('premium_levels').select('premium_levels.monthly_quota').whereRef('premium_levels.name', '=', 'sites.premium_level'), sql.lit(0))
        .as('ceiling'),
    )
    .where('sites.id', '=', siteId);
  if (options.lock) q = q.forNoKeyUpdate();
  const site = await q.executeTakeFirst();
  if (!site) return null;
  // Read after the lock: under READ COMMITTED each statement sees everything committed before it.
  const row = await db
    .selectFrom('credit_ledger')
    .select(sql<number>`coalesce(sum(credits), 0)::int`.as('used'))
    .where('site_id', '=', siteId)
    .where('created_at', '>', sql<Date>`now() - make_interval(days => ${QUOTA_PERIOD_DAYS})`)
    .executeTakeFirstOrThrow();
  const ceiling = Number(site.ceiling);
  const used = Number(row.used);
  return { siteId, ceiling, used, available: availableCredits(ceiling, used) };
}

/** "1 credit", "3 credits": the count and the word that fits it (English texts only). */
export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The refusal text: what the order needs and what remains. */
export function quotaExceededMessage(needed: number, available: number): string {
  return `The order needs ${plural(needed, 'credit', 'credits')}; ${plural(available, 'remains', 'remain')} in the current ${QUOTA_PERIOD_DAYS}-day period.`;
}

const TESTNUMS_FORMS = 'a list of test numbers such as [30,21], 30,21 or 30';

/**
 * The testnums header, parsed strictly. Accepted: `[30,21]`, `30,21` or `30`; spaces around the
 * numbers, commas and brackets are allowed; a number is decimal digits without sign or leading
 * zero. Duplicates are allowed and count once. Every id must be one of `runnable`. Omitted or
 * empty (blank): `defaults`. Anything else: TESTNUMS_INVALID naming the bad value. The result is
 * sorted and distinct.
 */
export function parseTestnums(raw: string | undefined, runnable: readonly number[], defaults: readonly number[]): number[] {
  if (raw === undefined || raw.trim() === '') return [...new Set(defaults)].sort((a, b) => a - b);
  const text = raw.trim();
  let inner = text;
  const opens = text.startsWith('[');
  const closes = text.endsWith(']');
  if (opens !== closes) {
    throw new WebperfError('TESTNUMS_INVALID', `The testnums header "${raw}" has an unmatched bracket: send ${TESTNUMS_FORMS}`);
  }
  if (opens) inner = text.slice(1, -1).trim();
  if (inner === '') throw new WebperfError('TESTNUMS_INVALID', `The testnums header "${raw}" holds no test number: send ${TESTNUMS_FORMS}`);
  const ids: number[] = [];
  for (const part of inner.split(',')) {
    const p = part.trim();
    if (!/^(0|[1-9][0-9]{0,8})$/.test(p)) {
      const what = p === '' ? 'an empty entry' : `"${p}" is not a test number`;
      throw new WebperfError('TESTNUMS_INVALID', `The testnums header "${raw}" is not valid (${what}): send ${TESTNUMS_FORMS}`);
    }
    ids.push(Number(p));
  }
  const unknown = [...new Set(ids.filter((id) => !runnable.includes(id)))];
  if (unknown.length) {
    const which = unknown.length === 1 ? `Test type ${unknown[0]} is` : `Test types ${unknown.join(', ')} are`;
    throw new WebperfError('TESTNUMS_INVALID', `${which} not run by this service; the test types it runs are ${runnable.join(', ')}`);
  }
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * The urls field of a one-off test, parsed strictly against the site's start page.
 *
 * - Split at every comma (a comma inside an address must be sent as %2C); spaces around entries
 *   are dropped; an empty entry is an error. 1 to 10 entries as sent.
 * - Each entry: an absolute http or https URL of at most 2048 characters, without user name or
 *   password.
 * - Own domain: the host equals the start page's host, or has the same registrable domain
 *   (siteOf: the apex and every subdomain of it). An IP-address start page allows only that
 *   address.
 * - Port: the scheme's default port, or the start page's own port.
 * - Normalised with the WHATWG URL parser; the #fragment is dropped (the server never sees it);
 *   duplicates after normalisation are removed (tested and charged once), first order kept.
 *
 * The target guard is not consulted here: it runs when the runner loads each page.
 */
export function parseOrderUrls(raw: string | undefined, startPage: string): string[] {
  if (raw === undefined || raw.trim() === '') {
    throw new WebperfError('URLS_INVALID', `The urls field is required: send 1 to ${MAX_TEST_ONCE_URLS} comma-separated addresses on the site's own domain`);
  }
  const start = new URL(startPage);
  const startHost = start.hostname.toLowerCase();
  const domain = siteOf(startHost);
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.length > MAX_TEST_ONCE_URLS) {
    throw new WebperfError('URLS_INVALID', `The urls field holds ${entries.length} addresses; at most ${MAX_TEST_ONCE_URLS} are allowed per call`);
  }
  const out: string[] = [];
  entries.forEach((entry, i) => {
    const where = `address ${i + 1}`;
    if (entry === '') throw new WebperfError('URLS_INVALID', `The urls field is not valid: ${where} is empty`);
    if (entry.length > MAX_URL_LENGTH) {
      throw new WebperfError('URLS_INVALID', `The urls field is not valid: ${where} is longer than ${MAX_URL_LENGTH} characters`);
    }
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new WebperfError('URLS_INVALID', `"${entry}" is not an absolute URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new WebperfError('URLS_INVALID', `"${entry}" is not an http or https address`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new WebperfError('URLS_INVALID', `"${entry}" carries a user name or password; send the address without credentials`);
    }
    const host = url.hostname.toLowerCase();
    const sameHost = host === startHost;
    if (!sameHost && (net.isIP(host.replace(/^\[|\]$/g, '')) !== 0 || siteOf(host) !== domain)) {
      throw new WebperfError('URLS_INVALID', `"${entry}" is not on the site's own domain (${domain})`);
    }
    if (url.port !== '' && url.port !== start.port) {
      throw new WebperfError('URLS_INVALID', `"${entry}" uses port ${url.port}; only the default port${start.port ? ` or the start page's port ${start.port}` : ''} may be used`);
    }
    url.hash = '';
    if (!out.includes(url.href)) out.push(url.href);
  });
  return out;
}
