/**
 * Type 21: HTTP & Network. Rates infosec (HTTPS, redirect, HSTS, TLS, security headers, mixed
 * content) and webstandard (HTTP/2), issue-based (core/rating.ts): each failing rule deducts
 * 25 (critical), 10 (error) or 1 (warning) once.
 *
 * Yardstick: the MDN HTTP Observatory's tests and score modifiers. Severities map to them so:
 *   Observatory −25 / −20  → error    (csp-missing, csp-invalid, csp-unsafe-inline, csp-script-broad-source,
 *                                      csp-script-src-missing, csp-object-src-unsafe, active csp-insecure-scheme,
 *                                      hsts-missing, hsts-invalid, http-not-redirected, http-redirect-not-https,
 *                                      framing-unprotected)
 *   Observatory −10 / −5   → warning  (csp-unsafe-eval, passive csp-insecure-scheme, hsts-short-max-age below
 *                                      six months, http-redirect-off-host, x-content-type-options-missing/-invalid,
 *                                      referrer-policy-unsafe/-invalid)
 *   Observatory 0 / bonus  → no finding, except where we are stricter than the Observatory:
 *     warning: hsts-short-max-age from six months up to a year, hsts-no-include-subdomains,
 *              referrer-policy-missing, referrer-policy-unsafe for no-referrer-when-downgrade,
 *              csp-object-src-not-none (object-src restricted but not 'none'), csp-base-uri-missing;
 *     info:    hsts-no-preload (the Observatory's +5 needs the preload list, which we cannot read).
 *   Escalated to critical, because browsers refuse or expose the whole site:
 *     https-missing (the Observatory's hsts-not-implemented-no-https, −20) and tls-cert-untrusted
 *     (hsts-invalid-cert / redirection-invalid-cert, −20 each).
 *   Not in the HTTP Observatory (our own severities): tls-old-versions (error), tls-cert-expired
 *   (critical), tls-cert-expiring (error under 14 days, warning under 30), http2-missing (warning,
 *   webstandard), permissions-policy-missing (warning), mixed-content-active (error),
 *   mixed-content-passive (warning).
 * json_check_data.observatory_like_score is 100 plus the modifiers of the tests implemented here
 * (CSP, HSTS, redirection, Referrer-Policy, X-Content-Type-Options, X-Frame-Options), penalties
 * first and bonuses only from 90 up, as the Observatory counts. Cookies (judged by type 23),
 * CORS, CORP and SRI are not part of it.
 *
 * An HTTPS page: TLS is probed on its own port and http://host/ (port 80) for the redirect.
 * An HTTP page: its own origin is probed for a redirect and port 443 for TLS; when TLS answers,
 * HSTS is judged on https://host/.
 */
import { meta } from './meta.js';
import { definePlugin, type Finding } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { check, observatoryScore, type Check, type Modifier } from './check.js';
import {
  documentRecord, judgeHeaders, judgeHsts, judgeHttp2, judgeMixedContent, judgeRedirect, judgeTls, type HstsInfo,
} from './checks.js';
import { judgeCsp, metaCsp } from './csp.js';
import { STRINGS } from './strings.js';


/** Response headers kept in json_check_data. */
const SEEN_HEADERS = [
  'strict-transport-security', 'content-security-policy', 'content-security-policy-report-only',
  'x-content-type-options', 'referrer-policy', 'permissions-policy', 'feature-policy', 'x-frame-options',
];

export default definePlugin({
  meta,
  async run(artifacts, { probes }) {
    const page = new URL(artifacts.finalUrl || artifacts.mainDocument.url);
    const https = page.protocol === 'https:';
    const bareHost = page.hostname.replace(/^\[|\]$/g, '');
    const httpsPort = https && page.port ? Number(page.port) : 443;
    const httpsOrigin = `https://${page.hostname}${httpsPort === 443 ? '' : `:${httpsPort}`}`;
    const httpUrl = https ? `http://${page.hostname}/` : `${page.origin}/`;

    const [tls, httpAnswer] = await Promise.all([
      probes.tls(bareHost, httpsPort),
      probes.fetch(httpUrl, { followRedirects: false, maxBytes: 65_536 }),
    ]);
    const tlsOk = tls.versions.length > 0;
    const headers = artifacts.mainDocument.headers;

    const checks: Check[] = [];
    const modifiers: Modifier[] = [];
    const take = (j: { checks: Check[]; modifiers: Modifier[] }) => {
      checks.push(...j.checks);
      modifiers.push(...j.modifiers);
    };

    // HTTPS, redirect, HSTS
    const redirect = judgeRedirect(httpUrl, httpAnswer, page.hostname);
    let hsts: HstsInfo | null = null;
    let hstsHeader: string | undefined;
    if (!tlsOk && !https) {
      checks.push(check('https-missing', 'infosec', 'critical', STRINGS.httpsMissing(bareHost, httpsPort), { port: httpsPort, error: tls.error ?? null }));
      modifiers.push({ test: 'hsts-not-implemented-no-https', modifier: -20 }, { test: 'redirection-missing', modifier: -20 });
    } else {
      take(redirect);
      hstsHeader = https ? headers['strict-transport-security'] : (await probes.fetch(`${httpsOrigin}/`, { maxBytes: 65_536 })).headers['strict-transport-security'];
      const judged = judgeHsts(hstsHeader);
      hsts = judged.hsts;
      checks.push(...judged.checks);
      if (tls.certificate && !tls.certificate.trusted) {
        modifiers.push({ test: 'hsts-invalid-cert', modifier: -20 });
        if (redirect.result.outcome === 'to-https') modifiers.push({ test: 'redirection-invalid-cert', modifier: -20 });
      } else {
        modifiers.push(...judged.modifiers);
      }
    }
    take(judgeTls(tls));

    // HTTP/2
    const doc = documentRecord(artifacts.network, artifacts.mainDocument.url);
    const http2 = judgeHttp2(doc?.protocol ?? '', tls.alpn, https);
    take(http2);

    // Security headers
    const csp = judgeCsp({
      header: headers['content-security-policy'],
      reportOnly: headers['content-security-policy-report-only'],
      meta: metaCsp(artifacts.mainDocument.html),
      https,
    });
    checks.push(...csp.checks);
    modifiers.push(csp.modifier);
    take(judgeHeaders(headers, csp.frameAncestors));

    // Mixed content
    const mixed = https ? judgeMixedContent(artifacts.network) : null;
    if (mixed) take(mixed);

    const findings: Finding[] = checks.map(({ details: _details, ...finding }) => finding);
    const { rating, ratings } = issueRatings(findings, ['infosec', 'webstandard']);
    const score = observatoryScore(modifiers);
    const protocol = doc?.protocol || (http2.http2 ? 'h2' : '');

    return {
      rating,
      ratings,
      findings,
      summary: STRINGS.summary({ https, versions: tls.versions, protocol, score }),
      data: {
        url: page.href,
        https,
        findings: checks.map((c) => ({ rule: c.rule, category: c.category, severity: c.severity, details: c.details })),
        headers: Object.fromEntries(SEEN_HEADERS.map((h) => [h, headers[h] ?? null])),
        redirect: redirect.result,
        tls: { host: bareHost, port: httpsPort, versions: tls.versions, alpn: tls.alpn, error: tls.error ?? null },
        certificate: tls.certificate
          ? {
              subject: tls.certificate.subject,
              issuer: tls.certificate.issuer,
              valid_from: tls.certificate.validFrom,
              valid_to: tls.certificate.validTo,
              days_to_expiry: tls.certificate.daysToExpiry,
              trusted: tls.certificate.trusted,
              verify_error: tls.certificate.verifyError,
            }
          : null,
        protocol: { document: doc?.protocol ?? null, alpn: tls.alpn, http2: http2.http2 },
        hsts,
        csp: { source: csp.source, policies: csp.policies, frame_ancestors: csp.frameAncestors },
        mixed_content: mixed ? { active: mixed.active, passive: mixed.passive } : null,
        observatory_like_score: score,
        observatory_modifiers: modifiers,
      },
    };
  },
});
