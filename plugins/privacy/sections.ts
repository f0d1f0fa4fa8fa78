/**
 * The six sections of type 31, each judged from the one page load's artifacts: starts at 5,
 * loses what its deductions say, floored at 1 (webperf_core's tests/privacy.py, point for point;
 * where this departs from it, index.ts's header says so and why).
 */
import { cookieKey, refusedThirdPartyCookies } from '../../core/gather/set-cookie.js';
import { cookieHost, sameSite, thirdPartyHosts, webHostOf } from '../../core/gather/site.js';
import type { Artifacts, ReportText } from '../../core/plugin-api.js';
import { round } from '../../core/rating.js';
import { listedTrackers } from '../../core/trackers.js';
import { STRINGS, type Section } from './strings.js';

/** One deduction of a section: its rule id, the points it takes and what the report says. */
export interface Deduction {
  rule: string;
  points: number;
  text: ReportText;
  count?: number;
}

export interface SectionResult {
  section: Section;
  rating: number;
  deductions: Deduction[];
  data: Record<string, unknown>;
}

function sectionOf(section: Section, deductions: Deduction[], data: Record<string, unknown>): SectionResult {
  const rating = round(Math.max(1, 5 - deductions.reduce((sum, d) => sum + d.points, 0)), 2);
  return { section, rating, deductions, data };
}

// ── HTTPS ───────────────────────────────────────────────────────────────────────────────────────

/** TLS versions upstream deducts for, as Chromium and as upstream's backend name them. */
const OLD_TLS = new Set(['TLS 1.0', 'TLS 1.1', 'TLS 1', 'SSL 3.0', 'SSL 2.0', 'SSLv3', 'SSLv2']);

export function httpsSection(a: Artifacts): SectionResult {
  const usesHttps = a.finalUrl.startsWith('https://');
  const main = a.network.find((r) => r.resourceType === 'Document' && r.url === a.mainDocument.url);
  const tls = main?.tlsProtocol ?? '';
  const insecure = new Set<string>();
  for (const r of a.network) {
    // Refused by Chromium as mixed content: the page asked for it over http.
    if (r.blockedReason === 'mixed-content' || r.mixedContent) insecure.add(r.url);
    // Sent in the clear, save the navigation's own redirects to https (the address asked for).
    else if (r.url.startsWith('http://') && !r.blockedReason && !(r.resourceType === 'Document' && r.status >= 300 && r.status < 400)) insecure.add(r.url);
  }
  const deductions: Deduction[] = [];
  if (!usesHttps) deductions.push({ rule: 'no-https', points: 4, text: STRINGS.noHttps });
  else {
    if (insecure.size > 0) deductions.push({ rule: 'mixed-content', points: Math.min(0.5 * insecure.size, 4), text: STRINGS.mixedContent(insecure.size), count: insecure.size });
    if (OLD_TLS.has(tls)) deductions.push({ rule: 'old-tls', points: 1, text: STRINGS.oldTls(tls) });
  }
  return sectionOf('https', deductions, { uses_https: usesHttps, insecure_requests: [...insecure].sort(), tls_protocol: tls || null });
}

// ── Referrer-Policy ─────────────────────────────────────────────────────────────────────────────

/** The policies of the Referrer Policy spec; any other token is ignored by browsers. */
const POLICIES = new Set(['no-referrer', 'no-referrer-when-downgrade', 'same-origin', 'origin', 'strict-origin', 'origin-when-cross-origin', 'strict-origin-when-cross-origin', 'unsafe-url']);
/** `<meta name=referrer>`'s legacy keywords, as HTML maps them. */
const LEGACY_META: Record<string, string> = { never: 'no-referrer', default: 'strict-origin-when-cross-origin', always: 'unsafe-url', 'origin-when-crossorigin': 'origin-when-cross-origin' };
const PROTECTIVE = new Set(['no-referrer', 'same-origin', 'strict-origin']);

/** The header's policy: its last token that is a policy (Referrer Policy §8.1); several headers are one list. */
export function headerPolicy(value: string | undefined): string | null {
  const tokens = (value ?? '').split(/[,\n]/).map((t) => t.trim().toLowerCase());
  return tokens.filter((t) => POLICIES.has(t)).at(-1) ?? null;
}

/** The metas' policy: the last one whose content is a policy or a legacy keyword (each sets it anew as it is inserted). */
export function metaPolicy(contents: readonly string[]): string | null {
  let policy: string | null = null;
  for (const raw of contents) {
    const value = raw.trim().toLowerCase();
    const mapped = LEGACY_META[value] ?? value;
    if (POLICIES.has(mapped)) policy = mapped;
  }
  return policy;
}

export function referrerSection(a: Artifacts): SectionResult {
  const header = a.mainDocument.headers['referrer-policy'];
  const fromHeader = headerPolicy(header);
  const fromMeta = metaPolicy(a.referrerMetas);
  // A valid <meta name=referrer> sets the document's policy over the header's, as browsers apply it.
  const policy = fromMeta ?? fromHeader;
  const deductions: Deduction[] = [];
  if (policy === null) deductions.push({ rule: 'referrer-policy-missing', points: 2, text: STRINGS.referrerMissing });
  else if (!PROTECTIVE.has(policy)) deductions.push({ rule: 'referrer-policy-leaky', points: 3, text: STRINGS.referrerLeaky(policy) });
  return sectionOf('referrer_policy', deductions, {
    policy,
    source: fromMeta ? 'meta' : fromHeader ? 'header' : null,
    header: header ?? null,
    metas: [...a.referrerMetas],
  });
}

// ── Cookies ─────────────────────────────────────────────────────────────────────────────────────

const YEAR_S = 365 * 86_400;

/** One cookie as the cookies section judged it (json_check_data). */
export interface JudgedCookie {
  name: string;
  domain: string;
  first_party: boolean;
  secure: boolean;
  http_only: boolean;
  same_site: string | null;
  /** Seconds it lives from the run (the browser's, else what the site asked); null for a session cookie. */
  lifetime_s: number | null;
  /** In the browser's jar; false for a third-party cookie the browser refused, judged from its Set-Cookie. */
  stored: boolean;
}

export function cookiesSection(a: Artifacts, pageHost: string, now: Date): SectionResult {
  const usesHttps = a.finalUrl.startsWith('https://');
  const nowS = now.getTime() / 1000;
  const stored = new Set<string>();
  const cookies: JudgedCookie[] = a.cookies.map((c) => {
    stored.add(cookieKey(c.name, cookieHost(c.domain)));
    return {
      name: c.name,
      domain: cookieHost(c.domain),
      first_party: sameSite(cookieHost(c.domain), pageHost),
      secure: c.secure,
      http_only: c.httpOnly,
      same_site: c.sameSite || null,
      lifetime_s: c.expires === -1 ? null : Math.round(c.expires - nowS),
      stored: true,
    };
  });
  // Third-party cookies Chromium refused to store are still cookies the site has others set.
  for (const d of refusedThirdPartyCookies(a.network, stored, pageHost)) {
    cookies.push({ name: d.name, domain: d.domain, first_party: false, secure: d.secure, http_only: d.httpOnly, same_site: d.sameSite || null, lifetime_s: d.lifetimeSeconds, stored: false });
  }
  const thirdParty = cookies.filter((c) => !c.first_party);
  const longLived = cookies.filter((c) => c.lifetime_s !== null && c.lifetime_s > YEAR_S);
  const notSecure = usesHttps ? cookies.filter((c) => !c.secure) : [];
  const notHttpOnly = cookies.filter((c) => !c.http_only);
  const weakSameSite = cookies.filter((c) => c.same_site !== 'Lax' && c.same_site !== 'Strict');
  const quarter = (list: readonly unknown[]) => Math.min(0.25 * list.length, 1);
  const deductions: Deduction[] = [];
  const add = (rule: string, list: readonly JudgedCookie[], points: number, text: (n: number) => ReportText) => {
    if (list.length > 0) deductions.push({ rule, points, text: text(list.length), count: list.length });
  };
  add('third-party-cookies', thirdParty, 2.5 + Math.min(0.25 * thirdParty.length, 1.5), STRINGS.thirdPartyCookies);
  add('cookies-long-lived', longLived, quarter(longLived), STRINGS.longLived);
  add('cookies-not-secure', notSecure, quarter(notSecure), STRINGS.notSecure);
  add('cookies-not-httponly', notHttpOnly, quarter(notHttpOnly), STRINGS.notHttpOnly);
  add('cookies-weak-samesite', weakSameSite, quarter(weakSameSite), STRINGS.weakSameSite);
  const namesOf = (list: readonly JudgedCookie[]) => list.map((c) => `${c.name} (${c.domain})`).sort();
  return sectionOf('cookies', deductions, {
    cookies: [...cookies].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.domain < y.domain ? -1 : 1)),
    third_party: namesOf(thirdParty),
    long_lived: namesOf(longLived),
    not_secure: namesOf(notSecure),
    not_http_only: namesOf(notHttpOnly),
    weak_same_site: namesOf(weakSameSite),
  });
}

// ── Third parties ───────────────────────────────────────────────────────────────────────────────

export function thirdPartiesSection(a: Artifacts, pageHost: string, trackerList: ReadonlySet<string>): SectionResult {
  // A request Chromium refused itself (mixed content) never reached the host.
  const reached = a.network.filter((r) => !r.blockedReason).map((r) => r.url);
  const thirdParty = thirdPartyHosts(reached, pageHost).map((h) => h.host).sort();
  const trackers = listedTrackers(thirdParty, trackerList);
  const deductions: Deduction[] = [];
  if (thirdParty.length > 0) deductions.push({ rule: 'third-party-hosts', points: Math.min(0.15 * thirdParty.length, 2), text: STRINGS.thirdPartyHosts(thirdParty), count: thirdParty.length });
  if (trackers.length > 0) deductions.push({ rule: 'known-trackers', points: 2 + Math.min(0.25 * trackers.length, 1), text: STRINGS.trackers(trackers.map((t) => t.host)), count: trackers.length });
  return sectionOf('third_parties', deductions, { hosts: thirdParty, trackers });
}

// ── Headers ─────────────────────────────────────────────────────────────────────────────────────

const HSTS_MIN_MAX_AGE = 15_768_000; // six months, upstream's bound

/** Strict-Transport-Security's directives (RFC 6797 §6.1); a browser heeds the first header only. */
export function parseHsts(value: string): { maxAge: number | null; includeSubDomains: boolean; preload: boolean } {
  const first = value.split('\n')[0];
  let maxAge: number | null = null;
  let includeSubDomains = false;
  let preload = false;
  for (const part of first.split(';')) {
    const [rawName, ...rest] = part.split('=');
    const name = rawName.trim().toLowerCase();
    const v = rest.join('=').trim().replace(/^"(.*)"$/, '$1');
    if (name === 'max-age' && /^\d+$/.test(v)) maxAge = Number(v);
    else if (name === 'includesubdomains') includeSubDomains = true;
    else if (name === 'preload') preload = true;
  }
  return { maxAge, includeSubDomains, preload };
}

/** Whether a Content-Security-Policy header (several joined by newlines or commas) has a frame-ancestors directive. */
export function cspHasFrameAncestors(value: string | undefined): boolean {
  return (value ?? '').split(/[,\n]/).some((policy) => policy.split(';').some((d) => d.trim().split(/\s+/)[0].toLowerCase() === 'frame-ancestors'));
}

export function headersSection(a: Artifacts): SectionResult {
  const h = a.mainDocument.headers;
  const usesHttps = a.finalUrl.startsWith('https://');
  const deductions: Deduction[] = [];
  const hstsHeader = h['strict-transport-security'];
  const hsts = hstsHeader === undefined ? null : parseHsts(hstsHeader);
  if (usesHttps) {
    // A max-age that cannot be read is no HSTS to a browser.
    if (!hsts || hsts.maxAge === null) deductions.push({ rule: 'hsts-missing', points: 1.5, text: STRINGS.hstsMissing });
    else {
      if (hsts.maxAge < HSTS_MIN_MAX_AGE) deductions.push({ rule: 'hsts-short', points: 0.5, text: STRINGS.hstsShort(hsts.maxAge) });
      if (!hsts.includeSubDomains) deductions.push({ rule: 'hsts-no-subdomains', points: 0.5, text: STRINGS.hstsNoSubdomains });
      if (!hsts.preload) deductions.push({ rule: 'hsts-no-preload', points: 0.25, text: STRINGS.hstsNoPreload });
    }
  }
  const firstToken = (v: string | undefined) => (v ?? '').split(/[,\n]/)[0].trim().toLowerCase();
  const xcto = firstToken(h['x-content-type-options']);
  if (xcto !== 'nosniff') deductions.push({ rule: 'xcto-missing', points: 0.5, text: STRINGS.xctoMissing });
  const xfo = firstToken(h['x-frame-options']);
  const framing = xfo === 'deny' || xfo === 'sameorigin' || cspHasFrameAncestors(h['content-security-policy']);
  if (!framing) deductions.push({ rule: 'frame-protection-missing', points: 0.5, text: STRINGS.framingMissing });
  return sectionOf('headers', deductions, {
    strict_transport_security: hstsHeader ?? null,
    hsts_judged: usesHttps,
    x_content_type_options: h['x-content-type-options'] ?? null,
    x_frame_options: h['x-frame-options'] ?? null,
    frame_ancestors: cspHasFrameAncestors(h['content-security-policy']),
  });
}

// ── Subresource Integrity ───────────────────────────────────────────────────────────────────────

/** Integrity metadata a browser checks: at least one sha256/384/512 hash in base64 (SRI §3.3.3). */
const HASH = /^sha(?:256|384|512)-[A-Za-z0-9+/_-]+={0,2}(?:\?.*)?$/;

export function hasIntegrity(value: string | null): boolean {
  return value !== null && value.trim().split(/\s+/).some((token) => HASH.test(token));
}

export function sriSection(a: Artifacts, pageHost: string): SectionResult {
  const thirdParty = a.subresourceLinks.filter((l) => {
    const host = webHostOf(l.url);
    return host !== null && !sameSite(host, pageHost);
  });
  const without = thirdParty.filter((l) => !hasIntegrity(l.integrity));
  const deductions: Deduction[] = [];
  if (without.length > 0) deductions.push({ rule: 'sri-missing', points: Math.min(0.5 * without.length, 4), text: STRINGS.sriMissing(without.length), count: without.length });
  return sectionOf('sri', deductions, {
    third_party: thirdParty.length,
    without_integrity: without.map((l) => `${l.kind} ${l.url}`),
  });
}
