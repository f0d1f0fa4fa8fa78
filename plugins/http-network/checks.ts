/**
 * The judgements of the HTTP & Network plugin other than CSP: HTTPS redirect, HSTS, TLS,
 * HTTP/2, the other security headers and mixed content. Each is a pure function of what the
 * gather step and the probes saw, so each can be tested on its own. Where the MDN HTTP
 * Observatory is the yardstick, the finding is read from its result (observatory.ts), with our
 * own stricter findings beside it (named in index.ts).
 */
import type { NetworkRecord, TlsProbe } from '../../core/plugin-api.js';
import { check, type Check, type Judgement } from './check.js';
import { hstsResult, referrerPolicyOf, type Headers, type PageAnswer } from './observatory.js';
import { STRINGS } from './strings.js';

export const ONE_YEAR_S = 31_536_000;

// ── HTTP → HTTPS redirect ───────────────────────────────────────────────────────────────────────

/** One answer on the http:// route. */
export interface RouteHop {
  url: string;
  status: number;
  location: string | null;
}

/** The http://<requested host>/ session as probed, hop by hop (stored as json_check_data.redirect). */
export interface RedirectSession {
  /** http://<requested host>/ */
  url: string;
  /** Every answer, the last one included. */
  chain: RouteHop[];
  /** Why the route stopped without a last answer (the first hop: nothing answers on http), else null. */
  error: string | null;
  /** The URL that gave no answer, when one did not. */
  failed_url: string | null;
  /** Origins on the route whose certificate is not trusted. */
  untrusted: string[];
  /** The Observatory's redirection result. */
  result: string;
}

/**
 * The findings for the Observatory's redirection result. `pageCertTrusted`: the page's own
 * certificate is trusted (an untrusted one is reported once, by judgeTls).
 */
export function judgeRedirect(session: RedirectSession, pageCertTrusted: boolean): Check[] {
  const { url, chain } = session;
  const last = chain[chain.length - 1];
  switch (session.result) {
    case 'redirection-missing':
      return [check('http-not-redirected', 'infosec', 'error', STRINGS.httpNotRedirected(url, last.status), { status: last.status })];
    case 'redirection-not-to-https':
      return [check('http-redirect-not-https', 'infosec', 'error', STRINGS.httpRedirectNotHttps(url, last.url), { location: last.url })];
    case 'redirection-not-to-https-on-initial-redirection':
      return [check('http-redirect-first-not-https', 'infosec', 'warning', STRINGS.httpRedirectFirstNotHttps(url, chain[1].url), { location: chain[1].url })];
    case 'redirection-off-host-from-http':
      return [check('http-redirect-off-host', 'infosec', 'warning', STRINGS.httpRedirectOffHost(url, chain[1].url), { location: chain[1].url })];
    case 'redirection-invalid-cert':
      return pageCertTrusted
        ? [check('tls-cert-untrusted', 'infosec', 'critical', STRINGS.tlsRouteUntrusted(url, session.untrusted), { origins: session.untrusted })]
        : [];
    case 'redirection-not-needed-no-http':
      // Something answered, but a later hop did not: visitors typing the address get an error.
      return chain.length > 0
        ? [check('http-redirect-broken', 'infosec', 'error', STRINGS.httpRedirectBroken(url, session.failed_url ?? '', session.error ?? ''), {
          failed_url: session.failed_url, error: session.error,
        })]
        : [];
    default:
      return [];
  }
}

// ── HSTS ────────────────────────────────────────────────────────────────────────────────────────

export interface HstsInfo {
  header: string;
  max_age: number | null;
  include_subdomains: boolean;
  preload: boolean;
}

/** The header as browsers read it: the first of repeated headers (RFC 6797 8.1), quoted numbers allowed. */
export function parseHsts(header: string): HstsInfo {
  const first = header.split(',')[0];
  let maxAge: number | null = null;
  let includeSubdomains = false;
  let preload = false;
  for (const part of first.split(';')) {
    const [rawName, ...rest] = part.trim().split('=');
    const name = rawName.trim().toLowerCase();
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1');
    if (name === 'max-age' && maxAge === null && /^\d+$/.test(value)) maxAge = Number(value);
    else if (name === 'includesubdomains') includeSubdomains = true;
    else if (name === 'preload') preload = true;
  }
  return { header, max_age: maxAge, include_subdomains: includeSubdomains, preload };
}

/**
 * Judges the Strict-Transport-Security header of an HTTPS answer (undefined: not sent): invalid
 * where the Observatory cannot read it, and as browsers apply it otherwise.
 */
export function judgeHsts(header: string | undefined): { hsts: HstsInfo | null; checks: Check[] } {
  if (header === undefined) {
    return { hsts: null, checks: [check('hsts-missing', 'infosec', 'error', STRINGS.hstsMissing)] };
  }
  const hsts = parseHsts(header);
  const checks: Check[] = [];
  // The header read alone, as if the certificate were fine: the certificate is judged by judgeTls.
  if (hstsResult({ headers: { 'strict-transport-security': header }, verified: true }) === 'hsts-header-invalid') {
    const repeated = header.includes(',');
    checks.push(check('hsts-invalid', 'infosec', 'error', repeated ? STRINGS.hstsRepeated(header) : STRINGS.hstsInvalid(header), { header, repeated }));
  } else if (hsts.max_age === null) {
    // The Observatory reads a number that is not one as six months or more; browsers ignore the header.
    checks.push(check('hsts-invalid', 'infosec', 'error', STRINGS.hstsInvalid(header), { header, repeated: false }));
  }
  if (hsts.max_age === 0) {
    checks.push(check('hsts-missing', 'infosec', 'error', STRINGS.hstsZero, { max_age: 0 }));
  } else if (hsts.max_age !== null) {
    if (hsts.max_age < ONE_YEAR_S) {
      checks.push(check('hsts-short-max-age', 'infosec', 'warning', STRINGS.hstsShort(hsts.max_age), { max_age: hsts.max_age }));
    }
    if (!hsts.include_subdomains) checks.push(check('hsts-no-include-subdomains', 'infosec', 'warning', STRINGS.hstsNoSubdomains));
    if (!hsts.preload) checks.push(check('hsts-no-preload', 'infosec', 'info', STRINGS.hstsNoPreload));
  }
  return { hsts, checks };
}

// ── TLS ─────────────────────────────────────────────────────────────────────────────────────────

const OLD_TLS = ['SSLv3', 'TLSv1', 'TLSv1.1'];

/** Judges what the TLS probe saw: versions offered and the certificate. */
export function judgeTls(tls: TlsProbe): Judgement {
  const checks: Check[] = [];
  const old = tls.versions.filter((v) => OLD_TLS.includes(v));
  if (old.length > 0) checks.push(check('tls-old-versions', 'infosec', 'error', STRINGS.tlsOldVersions(old), { versions: old }));
  const cert = tls.certificate;
  if (cert) {
    const expired = cert.daysToExpiry < 0;
    // An expired certificate is also untrusted; report the cause once.
    if (!cert.trusted && !(expired && cert.verifyError === 'CERT_HAS_EXPIRED')) {
      const error = cert.verifyError ?? 'unknown';
      checks.push(check('tls-cert-untrusted', 'infosec', 'critical', STRINGS.tlsUntrusted(error), { verify_error: error, issuer: cert.issuer }));
    }
    const date = cert.validTo.slice(0, 10);
    if (expired) {
      checks.push(check('tls-cert-expired', 'infosec', 'critical', STRINGS.tlsExpired(cert.daysToExpiry, date), { days_to_expiry: cert.daysToExpiry }));
    } else if (cert.daysToExpiry < 30) {
      const severity = cert.daysToExpiry < 14 ? 'error' : 'warning';
      checks.push(check('tls-cert-expiring', 'infosec', severity, STRINGS.tlsExpiring(cert.daysToExpiry, date), { days_to_expiry: cert.daysToExpiry }));
    }
  }
  return { checks };
}

// ── HTTP/2 ──────────────────────────────────────────────────────────────────────────────────────

/** The main document's record in the network log. */
export function documentRecord(network: readonly NetworkRecord[], url: string): NetworkRecord | undefined {
  return network.find((r) => r.resourceType === 'Document' && r.url === url)
    ?? network.find((r) => r.resourceType === 'Document' && r.status >= 200 && r.status < 300);
}

const isHttp2 = (protocol: string | null | undefined) => /^(h2|h3|http\/2|http\/3)/i.test(protocol ?? '');

export function judgeHttp2(documentProtocol: string, alpn: string | null, https: boolean): { http2: boolean } & Judgement {
  const http2 = isHttp2(documentProtocol) || isHttp2(alpn);
  const shown = documentProtocol || alpn || '';
  return {
    http2,
    checks: http2 ? [] : [check('http2-missing', 'webstandard', 'warning', STRINGS.http2Missing(shown, https), { protocol: shown, alpn })],
  };
}

// ── Other security headers ──────────────────────────────────────────────────────────────────────

/** The Observatory's results these findings are read from. */
export interface HeaderResults {
  xContentTypeOptions: string;
  referrerPolicy: string;
  xFrameOptions: string;
}

/**
 * X-Content-Type-Options, Referrer-Policy, Permissions-Policy and framing protection (CSP
 * frame-ancestors of a header policy, as browsers apply it, else X-Frame-Options).
 */
export function judgeHeaders(page: PageAnswer, results: HeaderResults, frameAncestors: string[] | null): Judgement {
  const checks: Check[] = [];
  const headers: Headers = page.headers;

  const xcto = headers['x-content-type-options'];
  if (results.xContentTypeOptions === 'x-content-type-options-not-implemented') {
    checks.push(check('x-content-type-options-missing', 'infosec', 'warning', STRINGS.xctoMissing));
  } else if (results.xContentTypeOptions === 'x-content-type-options-header-invalid') {
    // A repeated header reads "nosniff, nosniff": browsers take the first value, the Observatory the whole.
    const text = xcto.includes(',') ? STRINGS.xctoRepeated(xcto) : STRINGS.xctoInvalid(xcto);
    checks.push(check('x-content-type-options-invalid', 'infosec', 'warning', text, { value: xcto }));
  }

  const policy = referrerPolicyOf(page);
  const sent = [headers['referrer-policy'], page.metaReferrer].filter((v) => v != null).join(', ');
  if (results.referrerPolicy === 'referrer-policy-not-implemented') {
    checks.push(check('referrer-policy-missing', 'infosec', 'warning', STRINGS.referrerMissing));
  } else if (results.referrerPolicy === 'referrer-policy-header-invalid') {
    checks.push(check('referrer-policy-invalid', 'infosec', 'warning', STRINGS.referrerInvalid(sent), { value: sent }));
  } else if (results.referrerPolicy === 'referrer-policy-unsafe') {
    checks.push(check('referrer-policy-unsafe', 'infosec', 'warning', STRINGS.referrerUnsafe(policy!), { value: policy }));
  }

  if (headers['permissions-policy'] === undefined) {
    checks.push(check('permissions-policy-missing', 'infosec', 'warning', STRINGS.permissionsMissing, {
      feature_policy: headers['feature-policy'] ?? null,
    }));
  }

  const xfo = headers['x-frame-options'];
  const xfoValues = (xfo ?? '').split(',').map((v) => v.trim().toLowerCase());
  // Browsers block framing when every value is DENY or SAMEORIGIN, repeated or mixed (HTML's rules).
  const xfoProtects = xfo !== undefined && xfoValues.every((v) => v === 'deny' || v === 'sameorigin');
  if (results.xFrameOptions === 'x-frame-options-header-invalid' && xfoProtects) {
    checks.push(check('x-frame-options-invalid', 'infosec', 'error', STRINGS.xfoRepeated(xfo), { value: xfo }));
  } else if (!frameAncestors && !xfoProtects) {
    checks.push(check('framing-unprotected', 'infosec', 'error', STRINGS.framingUnprotected(xfo), { x_frame_options: xfo ?? null }));
  }
  return { checks };
}

// ── Mixed content ───────────────────────────────────────────────────────────────────────────────

const PASSIVE_TYPES = new Set(['Image', 'Media']);

/** http:// subresources of an HTTPS page; the main document's own redirect hops are left out. */
export function judgeMixedContent(network: readonly NetworkRecord[]): { active: string[]; passive: string[] } & Judgement {
  const insecure = network.filter((r) => r.url.startsWith('http://') && !(r.resourceType === 'Document' && r.status >= 300 && r.status < 400));
  const active = [...new Set(insecure.filter((r) => !PASSIVE_TYPES.has(r.resourceType)).map((r) => r.url))];
  const passive = [...new Set(insecure.filter((r) => PASSIVE_TYPES.has(r.resourceType)).map((r) => r.url))];
  const checks: Check[] = [];
  if (active.length) checks.push(check('mixed-content-active', 'infosec', 'error', STRINGS.mixedActive(active), { urls: active }, active.length));
  if (passive.length) checks.push(check('mixed-content-passive', 'infosec', 'warning', STRINGS.mixedPassive(passive), { urls: passive }, passive.length));
  return { active, passive, checks };
}
