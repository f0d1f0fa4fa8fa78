/**
 * The judgements of the HTTP & Network plugin other than CSP: HTTPS redirect, HSTS, TLS,
 * HTTP/2, the other security headers and mixed content. Each is a pure function of what the
 * gather step and the probes saw, so each can be tested on its own.
 */
import type { NetworkRecord, ProbeResponse, TlsProbe } from '../../core/plugin-api.js';
import { check, type Check, type Judgement, type Modifier } from './check.js';
import { STRINGS } from './strings.js';

export const ONE_YEAR_S = 31_536_000;
/** The Observatory's HSTS threshold: shorter than six months costs points. */
const SIX_MONTHS_S = 15_768_000;

// ── HTTP → HTTPS redirect ───────────────────────────────────────────────────────────────────────

export type RedirectOutcome = 'to-https' | 'no-http' | 'missing' | 'not-to-https' | 'off-host';

export interface RedirectResult {
  url: string;
  status: number;
  location: string | null;
  outcome: RedirectOutcome;
  error: string | null;
}

/**
 * Judges the answer to http://host/ (not followed). `pageHost` is the tested host; an unreachable
 * HTTP port on an HTTPS site needs no redirect (the Observatory's redirection-not-needed-no-http).
 */
export function judgeRedirect(probeUrl: string, res: ProbeResponse, pageHost: string): { result: RedirectResult } & Judgement {
  const location = res.headers.location ? new URL(res.headers.location, probeUrl).href : null;
  const base = { url: probeUrl, status: res.status, location, error: res.error ?? null };
  if (res.error || res.status === 0) {
    return { result: { ...base, outcome: 'no-http' }, checks: [], modifiers: [{ test: 'redirection-not-needed-no-http', modifier: 0 }] };
  }
  if ([301, 302, 303, 307, 308].includes(res.status) && location) {
    const target = new URL(location);
    if (target.protocol !== 'https:') {
      return {
        result: { ...base, outcome: 'not-to-https' },
        checks: [check('http-redirect-not-https', 'infosec', 'error', STRINGS.httpRedirectNotHttps(probeUrl, location), { location })],
        modifiers: [{ test: 'redirection-not-to-https', modifier: -20 }],
      };
    }
    if (target.hostname.toLowerCase() !== pageHost.toLowerCase()) {
      return {
        result: { ...base, outcome: 'off-host' },
        checks: [check('http-redirect-off-host', 'infosec', 'warning', STRINGS.httpRedirectOffHost(probeUrl, location), { location })],
        modifiers: [{ test: 'redirection-off-host-from-http', modifier: -5 }],
      };
    }
    return { result: { ...base, outcome: 'to-https' }, checks: [], modifiers: [{ test: 'redirection-to-https', modifier: 0 }] };
  }
  return {
    result: { ...base, outcome: 'missing' },
    checks: [check('http-not-redirected', 'infosec', 'error', STRINGS.httpNotRedirected(probeUrl, res.status), { status: res.status })],
    modifiers: [{ test: 'redirection-missing', modifier: -20 }],
  };
}

// ── HSTS ────────────────────────────────────────────────────────────────────────────────────────

export interface HstsInfo {
  header: string;
  max_age: number | null;
  include_subdomains: boolean;
  preload: boolean;
}

export function parseHsts(header: string): HstsInfo {
  // Several headers arrive joined; browsers use the first.
  const first = header.split(/,|\n/)[0];
  let maxAge: number | null = null;
  let includeSubdomains = false;
  let preload = false;
  for (const part of first.split(';')) {
    const [rawName, ...rest] = part.trim().split('=');
    const name = rawName.trim().toLowerCase();
    const value = rest.join('=').trim().replace(/^"|"$/g, '');
    if (name === 'max-age' && maxAge === null && /^\d+$/.test(value)) maxAge = Number(value);
    else if (name === 'includesubdomains') includeSubdomains = true;
    else if (name === 'preload') preload = true;
  }
  return { header, max_age: maxAge, include_subdomains: includeSubdomains, preload };
}

/** Judges the Strict-Transport-Security header of an HTTPS response (undefined: not sent). */
export function judgeHsts(header: string | undefined): { hsts: HstsInfo | null } & Judgement {
  if (header === undefined || header.trim() === '') {
    return {
      hsts: null,
      checks: [check('hsts-missing', 'infosec', 'error', STRINGS.hstsMissing)],
      modifiers: [{ test: 'hsts-not-implemented', modifier: -20 }],
    };
  }
  const hsts = parseHsts(header);
  if (hsts.max_age === null) {
    return {
      hsts,
      checks: [check('hsts-invalid', 'infosec', 'error', STRINGS.hstsInvalid(header), { header })],
      modifiers: [{ test: 'hsts-header-invalid', modifier: -20 }],
    };
  }
  if (hsts.max_age === 0) {
    return {
      hsts,
      checks: [check('hsts-missing', 'infosec', 'error', STRINGS.hstsZero, { max_age: 0 })],
      modifiers: [{ test: 'hsts-not-implemented', modifier: -20 }],
    };
  }
  const checks: Check[] = [];
  if (hsts.max_age < ONE_YEAR_S) {
    checks.push(check('hsts-short-max-age', 'infosec', 'warning', STRINGS.hstsShort(hsts.max_age), { max_age: hsts.max_age }));
  }
  if (!hsts.include_subdomains) checks.push(check('hsts-no-include-subdomains', 'infosec', 'warning', STRINGS.hstsNoSubdomains));
  if (!hsts.preload) checks.push(check('hsts-no-preload', 'infosec', 'info', STRINGS.hstsNoPreload));
  const modifiers: Modifier[] = hsts.max_age < SIX_MONTHS_S
    ? [{ test: 'hsts-implemented-max-age-less-than-six-months', modifier: -10 }]
    : [{ test: 'hsts-implemented-max-age-at-least-six-months', modifier: 0 }];
  return { hsts, checks, modifiers };
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
  return { checks, modifiers: [] };
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
    modifiers: [],
  };
}

// ── Other security headers ──────────────────────────────────────────────────────────────────────

const REFERRER_VALUES = new Set([
  'no-referrer', 'no-referrer-when-downgrade', 'origin', 'origin-when-cross-origin', 'same-origin',
  'strict-origin', 'strict-origin-when-cross-origin', 'unsafe-url',
]);
const REFERRER_PRIVATE = new Set(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin']);
const REFERRER_UNSAFE = new Set(['origin', 'origin-when-cross-origin', 'unsafe-url']);

/** The policy a browser applies: the last valid token of the (comma-separated) header. */
export function effectiveReferrerPolicy(header: string): string | null {
  const valid = header.split(',').map((t) => t.trim().toLowerCase()).filter((t) => REFERRER_VALUES.has(t));
  return valid.length ? valid[valid.length - 1] : null;
}

/**
 * X-Content-Type-Options, Referrer-Policy, Permissions-Policy and framing protection (CSP
 * frame-ancestors from the CSP judgement, else X-Frame-Options).
 */
export function judgeHeaders(headers: Record<string, string>, frameAncestors: string[] | null): Judgement {
  const checks: Check[] = [];
  const modifiers: Modifier[] = [];

  const xcto = headers['x-content-type-options'];
  if (xcto === undefined) {
    checks.push(check('x-content-type-options-missing', 'infosec', 'warning', STRINGS.xctoMissing));
    modifiers.push({ test: 'x-content-type-options-not-implemented', modifier: -5 });
  } else if (xcto.split(',')[0].trim().toLowerCase() !== 'nosniff') {
    checks.push(check('x-content-type-options-invalid', 'infosec', 'warning', STRINGS.xctoInvalid(xcto), { value: xcto }));
    modifiers.push({ test: 'x-content-type-options-header-invalid', modifier: -5 });
  } else {
    modifiers.push({ test: 'x-content-type-options-nosniff', modifier: 0 });
  }

  const referrer = headers['referrer-policy'];
  if (referrer === undefined) {
    checks.push(check('referrer-policy-missing', 'infosec', 'warning', STRINGS.referrerMissing));
    modifiers.push({ test: 'referrer-policy-not-implemented', modifier: 0 });
  } else {
    const policy = effectiveReferrerPolicy(referrer);
    if (policy === null) {
      checks.push(check('referrer-policy-invalid', 'infosec', 'warning', STRINGS.referrerInvalid(referrer), { value: referrer }));
      modifiers.push({ test: 'referrer-policy-header-invalid', modifier: -5 });
    } else if (REFERRER_PRIVATE.has(policy)) {
      modifiers.push({ test: 'referrer-policy-private', modifier: 5 });
    } else {
      checks.push(check('referrer-policy-unsafe', 'infosec', 'warning', STRINGS.referrerUnsafe(policy), { value: policy }));
      modifiers.push(REFERRER_UNSAFE.has(policy)
        ? { test: 'referrer-policy-unsafe', modifier: -5 }
        // no-referrer-when-downgrade: neither private nor unsafe to the Observatory; a finding here.
        : { test: 'referrer-policy-no-referrer-when-downgrade', modifier: 0 });
    }
  }

  if (headers['permissions-policy'] === undefined) {
    checks.push(check('permissions-policy-missing', 'infosec', 'warning', STRINGS.permissionsMissing, {
      feature_policy: headers['feature-policy'] ?? null,
    }));
  }

  const xfo = headers['x-frame-options'];
  const xfoValue = xfo?.split(',')[0].trim().toUpperCase();
  if (frameAncestors) {
    modifiers.push({ test: 'x-frame-options-implemented-via-csp', modifier: 5 });
  } else if (xfoValue === 'DENY' || xfoValue === 'SAMEORIGIN') {
    modifiers.push({ test: 'x-frame-options-sameorigin-or-deny', modifier: 0 });
  } else {
    checks.push(check('framing-unprotected', 'infosec', 'error', STRINGS.framingUnprotected(xfo), { x_frame_options: xfo ?? null }));
    modifiers.push({ test: xfo ? 'x-frame-options-header-invalid' : 'x-frame-options-not-implemented', modifier: -20 });
  }
  return { checks, modifiers };
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
  return { active, passive, checks, modifiers: [] };
}
