/**
 * The MDN HTTP Observatory's (1.4.8) view of a site, for the six of its tests type 21 implements:
 * what its retriever would hold (the http:// session with its redirect route, the https://
 * answer, the page with its <meta> equivalents) and the result each test gives, scored from its
 * score table. Written from the Observatory's analysers, not copied; the conformance test
 * (test/conformance/observatory.test.ts) runs those analysers on the same answers.
 *
 * Our own findings (checks.ts, csp.ts) are read from these results where the Observatory is the
 * yardstick; where we knowingly differ, the difference is named in index.ts and in
 * OBSERVATORY_EXCEPTIONS below.
 */
import { observatoryCsp, type ObservatoryCsp } from './observatory-csp.js';

/** Response headers: lower-case names, one string per name. */
export type Headers = Record<string, string>;

/** One answer on a redirect route: the URL asked and its status. */
export interface Hop {
  url: string;
  status: number;
}

/** The http://<host>/ session: every answer on its route, the last one included. */
export interface HttpSession {
  route: Hop[];
  /** Every certificate on the route was trusted (the Observatory's `verified`). */
  verified: boolean;
}

/** The answer HSTS is read from. */
export interface HttpsAnswer {
  headers: Headers;
  verified: boolean;
}

/** The page the header tests read, as the Observatory's `auto` response. */
export interface PageAnswer {
  /** Its scheme is https (the Observatory's session URL; judges http: sources in CSP). */
  https: boolean;
  headers: Headers;
  /** <meta http-equiv="Content-Security-Policy"> contents; empty unless the page is HTML. */
  metaCsp: string[];
  /** <meta name="referrer"> content (the last one), null when none or not HTML. */
  metaReferrer: string | null;
}

export interface ObservatoryView {
  /** null: http://<host>/ gave no answer (refused, or a hop on its route failed). */
  http: HttpSession | null;
  /** null: https did not answer. */
  https: HttpsAnswer | null;
  page: PageAnswer;
}

/** The Observatory's tests type 21 implements, in the order its scanner runs them. */
export const OBSERVATORY_TESTS = [
  'content-security-policy', 'redirection', 'referrer-policy', 'strict-transport-security',
  'x-content-type-options', 'x-frame-options',
] as const;
export type ObservatoryTest = (typeof OBSERVATORY_TESTS)[number];

/** One test's result and its score modifier. */
export interface ObservatoryResult {
  test: ObservatoryTest;
  result: string;
  modifier: number;
}

/**
 * Where our score knowingly differs from the Observatory's (the reasons are in index.ts's
 * header comment); the conformance test names a case for each.
 */
export const OBSERVATORY_EXCEPTIONS = ['preload-list', 'tested-page', 'meta-tags', 'redirect-without-location'] as const;

/**
 * Where our findings knowingly differ from the severity the Observatory's modifier maps to
 * (reasons in index.ts's header comment).
 */
export const FINDING_EXCEPTIONS = [
  'escalated-to-critical', 'hsts-one-year', 'hsts-include-subdomains', 'hsts-max-age-zero', 'hsts-max-age-unreadable',
  'referrer-policy-missing', 'csp-object-src-none', 'csp-base-uri', 'csp-browser-view', 'x-frame-options-allow-from',
  'frame-ancestors-not-protecting', 'frame-ancestors-unread', 'redirect-broken',
] as const;

/** Score modifiers of the results these tests give (the Observatory's score table). */
const MODIFIERS: Record<string, number> = {
  'csp-implemented-with-no-unsafe-default-src-none': 10,
  'csp-implemented-with-no-unsafe': 5,
  'csp-implemented-with-unsafe-inline-in-style-src-only': 0,
  'csp-implemented-with-insecure-scheme-in-passive-content-only': -10,
  'csp-implemented-with-unsafe-eval': -10,
  'csp-implemented-with-unsafe-inline': -20,
  'csp-implemented-with-insecure-scheme': -20,
  'csp-header-invalid': -25,
  'csp-not-implemented': -25,
  'csp-not-implemented-but-reporting-enabled': -25,
  'csp-implemented-but-duplicate-directives': 0,
  'redirection-all-redirects-preloaded': 0,
  'redirection-to-https': 0,
  'redirection-not-needed-no-http': 0,
  'redirection-off-host-from-http': -5,
  'redirection-not-to-https-on-initial-redirection': -10,
  'redirection-not-to-https': -20,
  'redirection-missing': -20,
  'redirection-invalid-cert': -20,
  'referrer-policy-private': 5,
  'referrer-policy-not-implemented': 0,
  'referrer-policy-unsafe': -5,
  'referrer-policy-header-invalid': -5,
  'hsts-preloaded': 5,
  'hsts-implemented-max-age-at-least-six-months': 0,
  'hsts-implemented-max-age-less-than-six-months': -10,
  'hsts-not-implemented': -20,
  'hsts-header-invalid': -20,
  'hsts-not-implemented-no-https': -20,
  'hsts-invalid-cert': -20,
  'x-content-type-options-nosniff': 0,
  'x-content-type-options-not-implemented': -5,
  'x-content-type-options-header-invalid': -5,
  'x-frame-options-implemented-via-csp': 5,
  'x-frame-options-sameorigin-or-deny': 0,
  'x-frame-options-allow-from-origin': 0,
  'x-frame-options-not-implemented': -20,
  'x-frame-options-header-invalid': -20,
};

/** Below this (penalties only), bonuses do not count. */
const EXTRA_CREDIT_FROM = 90;

// ── Headers as the Observatory sees them ─────────────────────────────────────────────────────────

/** Header names of which Node keeps only the first when a response repeats them. */
const FIRST_ONLY = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent',
]);

/**
 * Headers as the Observatory (axios on Node) sees them. Chromium records a repeated header as
 * its values joined by "\n", Node joins them by ", " (or keeps the first, for the names above);
 * this is the one place both become Node's form, which every judgement of type 21 then reads: a
 * header sent twice is judged as "a, b".
 */
export function observatoryHeaders(headers: Readonly<Record<string, string>>): Headers {
  const out: Headers = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    const values = value.split('\n').map((v) => v.replace(/^[ \t]+|[ \t]+$/g, ''));
    out[name] = FIRST_ONLY.has(name) ? values[0] : values.join(', ');
  }
  return out;
}

/** The page's media type lets the Observatory read its <meta> equivalents (an exact match, as it does). */
export function isHtmlType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0];
  return type === 'text/html' || type === 'application/xhtml+xml';
}

// ── The tests ───────────────────────────────────────────────────────────────────────────────────

/** The Observatory's six-month floor: 15552000 s, not 15768000 (its "white lie" for a common value). */
export const SIX_MONTHS_S = 15_552_000;

/** Strict-Transport-Security, as the Observatory reads it (the preload list aside). */
export function hstsResult(https: HttpsAnswer | null): string {
  if (!https) return 'hsts-not-implemented-no-https';
  if (!https.verified) return 'hsts-invalid-cert';
  const header = https.headers['strict-transport-security'];
  if (header === undefined) return 'hsts-not-implemented';
  const value = header.slice(0, 1024);
  // A header sent twice arrives as "a, b": invalid to the Observatory.
  if (value.includes(',')) return 'hsts-header-invalid';
  let maxAge: number | null = null;
  for (const part of value.split(';').map((p) => p.trim().toLowerCase())) {
    if (part.startsWith('max-age=')) maxAge = parseInt(part.slice(8, 128), 10);
  }
  if (maxAge === null) return 'hsts-header-invalid';
  // NaN is not below the floor: an unreadable number counts as six months or more.
  return maxAge < SIX_MONTHS_S ? 'hsts-implemented-max-age-less-than-six-months' : 'hsts-implemented-max-age-at-least-six-months';
}

/** Redirection, from the http:// session's route (the preload list aside). */
export function redirectionResult(http: HttpSession | null): string {
  if (!http || http.route.length === 0) return 'redirection-not-needed-no-http';
  if (!http.verified) return 'redirection-invalid-cert';
  const route = http.route.map((hop) => new URL(hop.url));
  if (route.length === 1) return 'redirection-missing';
  if (route[route.length - 1].protocol !== 'https:') return 'redirection-not-to-https';
  if (route[1].protocol === 'http:') return 'redirection-not-to-https-on-initial-redirection';
  if (route[0].protocol === 'http:' && route[1].protocol === 'https:' && route[0].hostname !== route[1].hostname) {
    return 'redirection-off-host-from-http';
  }
  return 'redirection-to-https';
}

const REFERRER_PRIVATE = new Set(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin']);
const REFERRER_UNSAFE = new Set(['origin', 'origin-when-cross-origin', 'unsafe-url', 'no-referrer-when-downgrade']);

/** The policy that counts: the last valid token of the header and the <meta name="referrer">, joined. */
export function referrerPolicyOf(page: PageAnswer): string | null {
  const sent = [page.headers['referrer-policy'], page.metaReferrer ?? undefined].filter((v): v is string => v !== undefined);
  if (sent.length === 0) return null;
  const valid = sent.join(', ').split(',').map((t) => t.trim().toLowerCase())
    .filter((t) => REFERRER_PRIVATE.has(t) || REFERRER_UNSAFE.has(t));
  return valid.length ? valid[valid.length - 1] : '';
}

export function referrerResult(page: PageAnswer): string {
  const policy = referrerPolicyOf(page);
  if (policy === null) return 'referrer-policy-not-implemented';
  if (REFERRER_PRIVATE.has(policy)) return 'referrer-policy-private';
  if (REFERRER_UNSAFE.has(policy)) return 'referrer-policy-unsafe';
  return 'referrer-policy-header-invalid';
}

export function xContentTypeOptionsResult(headers: Headers): string {
  const value = headers['x-content-type-options'];
  // An empty header is no header to the Observatory.
  if (!value) return 'x-content-type-options-not-implemented';
  return value.slice(0, 256).trim().toLowerCase() === 'nosniff' ? 'x-content-type-options-nosniff' : 'x-content-type-options-header-invalid';
}

/** X-Frame-Options; any frame-ancestors in the CSP the Observatory read (meta included, any value) wins. */
export function xFrameOptionsResult(headers: Headers, csp: ObservatoryCsp): string {
  if (csp.directives?.has('frame-ancestors')) return 'x-frame-options-implemented-via-csp';
  const value = headers['x-frame-options'];
  if (!value) return 'x-frame-options-not-implemented';
  const xfo = value.slice(0, 1024).trim().toLowerCase();
  if (xfo === 'deny' || xfo === 'sameorigin') return 'x-frame-options-sameorigin-or-deny';
  if (xfo.startsWith('allow-from')) return 'x-frame-options-allow-from-origin';
  return 'x-frame-options-header-invalid';
}

/** The six results, each with its modifier, and the CSP as the Observatory read it. */
export function observatoryResults(view: ObservatoryView): { results: ObservatoryResult[]; csp: ObservatoryCsp } {
  const { page } = view;
  const csp = observatoryCsp({
    https: page.https,
    header: page.headers['content-security-policy'],
    reportOnly: page.headers['content-security-policy-report-only'],
    meta: page.metaCsp,
  });
  const named: Record<ObservatoryTest, string> = {
    'content-security-policy': csp.result,
    redirection: redirectionResult(view.http),
    'referrer-policy': referrerResult(page),
    'strict-transport-security': hstsResult(view.https),
    'x-content-type-options': xContentTypeOptionsResult(page.headers),
    'x-frame-options': xFrameOptionsResult(page.headers, csp),
  };
  return { results: OBSERVATORY_TESTS.map((test) => ({ test, result: named[test], modifier: MODIFIERS[named[test]] })), csp };
}

/** The modifier of a result of these tests. */
export function modifierOf(result: string): number {
  const modifier = MODIFIERS[result];
  if (modifier === undefined) throw new Error(`Not a result of the tests type 21 implements: ${result}`);
  return modifier;
}

/**
 * The Observatory's sum: 100 plus every modifier, but only 100 plus the penalties when those
 * alone leave less than 90; never below 0.
 */
export function observatoryScore(results: readonly { modifier: number }[]): number {
  const penalties = results.filter((r) => r.modifier < 0).reduce((sum, r) => sum + r.modifier, 0);
  const bonuses = results.filter((r) => r.modifier > 0).reduce((sum, r) => sum + r.modifier, 0);
  const base = 100 + penalties;
  return Math.max(0, base >= EXTRA_CREDIT_FROM ? base + bonuses : base);
}
