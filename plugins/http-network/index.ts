/**
 * Type 21: HTTP & Network. Rates infosec (HTTPS, redirect, HSTS, TLS, security headers, mixed
 * content) and webstandard (HTTP/2), issue-based (core/rating.ts): each failing rule deducts
 * 25 (critical), 10 (error) or 1 (warning) once.
 *
 * Yardstick: the MDN HTTP Observatory 1.4.8, for the six of its tests implemented here (CSP,
 * redirection, Referrer-Policy, HSTS, X-Content-Type-Options, X-Frame-Options). observatory.ts
 * gives each test's result as its analyser would on the same answers, and
 * json_check_data.observatory_like_score is its score over these six: 100 plus every modifier,
 * but only 100 plus the penalties when those alone leave less than 90; never below 0. Cookies
 * (judged by type 23), CORS, CORP and SRI are not part of it. test/conformance/observatory.test.ts
 * runs the Observatory's own analysers on the answers this plugin judged.
 *
 * What is judged, as the Observatory would for the host asked for (artifacts.requestedUrl):
 * - redirection: http://<requested host>/ (port 80), each redirect followed by hand (route.ts);
 *   e.g. http://kommun.test/ → https://www.kommun.test/ is redirection-off-host-from-http.
 * - HSTS: the tested page's answer when it is HTTPS; for an HTTP page, https://<requested host>/
 *   followed to its last answer.
 * - CSP, Referrer-Policy, X-Content-Type-Options, X-Frame-Options: the tested page's headers and
 *   its <meta> equivalents (meta-tags.ts).
 * A header sent more than once is read as the Observatory reads it, the values joined by ", "
 * (observatoryHeaders, the one place where Chromium's "\n" joins become that): HSTS twice is
 * hsts-header-invalid, "nosniff, NoSniff" is x-content-type-options-header-invalid.
 *
 * Findings map to the Observatory's results: a −25/−20 result is an error finding, −10/−5 a
 * warning, 0 or a bonus none, except for the named finding exceptions below (FINDING_EXCEPTIONS).
 *   csp-missing/-invalid (csp-not-implemented[-but-reporting-enabled], csp-header-invalid),
 *   csp-unsafe-inline/-script-broad-source/-script-src-missing/-object-src-unsafe
 *   (csp-implemented-with-unsafe-inline), csp-insecure-scheme (error when active, warning when
 *   passive), csp-unsafe-eval (warning); http-not-redirected (redirection-missing),
 *   http-redirect-not-https (redirection-not-to-https), http-redirect-first-not-https
 *   (…-on-initial-redirection, warning), http-redirect-off-host (warning); hsts-missing,
 *   hsts-invalid (hsts-not-implemented, hsts-header-invalid), hsts-short-max-age (warning below
 *   15552000 s, the Observatory's SIX_MONTHS); x-content-type-options-missing/-invalid,
 *   referrer-policy-unsafe/-invalid (warnings; no-referrer-when-downgrade is unsafe);
 *   framing-unprotected and x-frame-options-invalid (errors).
 *   Not in the HTTP Observatory (our own severities): tls-old-versions (error), tls-cert-expired
 *   (critical), tls-cert-expiring (error under 14 days, warning under 30), http2-missing (warning,
 *   webstandard), permissions-policy-missing (warning), mixed-content-active (error),
 *   mixed-content-passive (warning), hsts-no-preload (info).
 *
 * Score exceptions (OBSERVATORY_EXCEPTIONS), where our result knowingly differs:
 * - preload-list: the HSTS preload list is not consulted (the Observatory downloads Chromium's; we
 *   have no copy), so hsts-preloaded (+5) and redirection-all-redirects-preloaded (0) are never
 *   given: a preloaded host gets the result its header and route earn.
 * - tested-page: the header tests read the page that was tested (Chromium's answer at the end of
 *   the requested address's redirects, any path), where the Observatory fetches / of the host
 *   again, and for an HTTP page whose host also answers HTTPS it reads the HTTPS answer. The same
 *   answer whenever the address tested is the site's start page and it redirects to HTTPS. For an
 *   HTTPS page, hsts-invalid-cert is the page's own certificate.
 * - meta-tags: <meta> elements are read by a tokeniser, not by jsdom: the same elements count,
 *   but of HTML's named character references only a few common ones are decoded.
 * - redirect-without-location: a redirect status without a Location ends the route there; the
 *   Observatory follows it to "undefined" resolved against the URL.
 *
 * Finding exceptions (FINDING_EXCEPTIONS), where our finding's severity is not the mapped one:
 * - escalated-to-critical: https-missing (hsts-not-implemented-no-https, −20) and
 *   tls-cert-untrusted (hsts-invalid-cert, redirection-invalid-cert, −20) are critical: browsers
 *   refuse or expose the whole site.
 * - hsts-one-year: hsts-short-max-age (warning) from six months up to a year (Observatory 0).
 * - hsts-include-subdomains: hsts-no-include-subdomains (warning; Observatory 0).
 * - hsts-max-age-zero: max-age=0 turns HSTS off, hsts-missing (error); the Observatory scores it as
 *   under six months (−10).
 * - hsts-max-age-unreadable: a max-age that is not digits is hsts-invalid (error), browsers ignore
 *   the header; the Observatory's parseInt reads "300abc" as 300 and a quoted or non-numeric
 *   value as NaN, which counts as six months or more (0). A quoted number is read as browsers do.
 * - referrer-policy-missing: a warning (Observatory 0).
 * - csp-object-src-none: csp-object-src-not-none (warning) when object-src is restricted but not
 *   'none' (Observatory: no penalty).
 * - csp-base-uri: csp-base-uri-missing (warning; Observatory: no penalty).
 * - csp-browser-view: the CSP findings judge each policy as browsers enforce it, where the
 *   Observatory merges them: a repeated CSP header is two policies (it reads "a, b" as one), a
 *   header and a <meta> policy are each enforced (a weakness counts when every policy has it),
 *   'unsafe-eval' matters in script-src only (it also counts style-src), data: is ignored under
 *   'strict-dynamic' with a nonce (it counts it as unsafe-inline), and a policy of unknown
 *   directives only is csp-invalid.
 * - x-frame-options-allow-from: ALLOW-FROM is framing-unprotected (error): browsers ignore it
 *   (Observatory x-frame-options-allow-from-origin, 0).
 * - frame-ancestors-not-protecting: frame-ancestors only in a <meta> policy (browsers ignore it
 *   there) or allowing any source is framing-unprotected (error) unless X-Frame-Options protects
 *   (Observatory x-frame-options-implemented-via-csp, +5).
 * - frame-ancestors-unread: a CSP the Observatory cannot read (csp-header-invalid) hides its
 *   frame-ancestors from its X-Frame-Options test (x-frame-options-not-implemented, −20);
 *   browsers apply them all the same, so there is no framing finding: csp-invalid (error) says
 *   what to fix.
 * - redirect-broken: http://<host>/ answers but a later hop of its route does not:
 *   http-redirect-broken (error); the Observatory, with no last answer, gives
 *   redirection-not-needed-no-http (0).
 */
import { meta } from './meta.js';
import { definePlugin, type Finding } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { check, type Check } from './check.js';
import {
  documentRecord, judgeHeaders, judgeHsts, judgeHttp2, judgeMixedContent, judgeRedirect, judgeTls, type HstsInfo, type RedirectSession,
} from './checks.js';
import { judgeCsp } from './csp.js';
import { readMetaTags } from './meta-tags.js';
import {
  isHtmlType, observatoryHeaders, observatoryResults, observatoryScore, type ObservatoryTest, type ObservatoryView,
} from './observatory.js';
import { followRoute } from './route.js';
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
    // The Observatory scans a host: the one asked for, whatever the page redirected to.
    const host = new URL(artifacts.requestedUrl || page.href).hostname;
    const headers = observatoryHeaders(artifacts.mainDocument.headers);

    const [tls, httpRoute, httpsRoute] = await Promise.all([
      probes.tls(bareHost, httpsPort),
      followRoute(probes, `http://${host}/`),
      https ? null : followRoute(probes, `https://${host}/`),
    ]);
    const pageCertTrusted = tls.certificate ? tls.certificate.trusted : true;
    const metaTags = isHtmlType(headers['content-type']) ? readMetaTags(artifacts.mainDocument.html) : { csp: [], referrer: null };

    const httpsAnswer = httpsRoute?.error === null ? httpsRoute.hops[httpsRoute.hops.length - 1] : null;
    const view: ObservatoryView = {
      http: httpRoute.error === null ? { route: httpRoute.hops, verified: httpRoute.untrusted.length === 0 } : null,
      https: https ? { headers, verified: pageCertTrusted }
        : httpsAnswer ? { headers: httpsAnswer.headers, verified: httpsRoute!.untrusted.length === 0 } : null,
      page: { https, headers, metaCsp: metaTags.csp, metaReferrer: metaTags.referrer },
    };
    const observatory = observatoryResults(view);
    const resultOf = (test: ObservatoryTest) => observatory.results.find((r) => r.test === test)!.result;

    const checks: Check[] = [];

    // HTTPS, redirect, HSTS
    const redirect: RedirectSession = {
      url: httpRoute.start,
      chain: httpRoute.hops.map(({ url, status, location }) => ({ url, status, location })),
      error: httpRoute.error,
      failed_url: httpRoute.failedUrl,
      untrusted: httpRoute.untrusted,
      result: resultOf('redirection'),
    };
    checks.push(...judgeRedirect(redirect, pageCertTrusted));
    let hsts: HstsInfo | null = null;
    if (view.https === null) {
      const shownHost = host.replace(/^\[|\]$/g, '');
      checks.push(check('https-missing', 'infosec', 'critical', STRINGS.httpsMissing(shownHost, 443), { port: 443, error: httpsRoute?.error ?? null }));
    } else {
      const judged = judgeHsts(view.https.headers['strict-transport-security']);
      hsts = judged.hsts;
      checks.push(...judged.checks);
    }
    checks.push(...judgeTls(tls).checks);

    // HTTP/2
    const doc = documentRecord(artifacts.network, artifacts.mainDocument.url);
    const http2 = judgeHttp2(doc?.protocol ?? '', tls.alpn, https);
    checks.push(...http2.checks);

    // Security headers
    const csp = judgeCsp({
      header: headers['content-security-policy'],
      reportOnly: headers['content-security-policy-report-only'],
      meta: metaTags.csp,
      https,
      observatoryInvalid: observatory.csp.invalid,
    });
    checks.push(...csp.checks);
    checks.push(...judgeHeaders(view.page, {
      xContentTypeOptions: resultOf('x-content-type-options'),
      referrerPolicy: resultOf('referrer-policy'),
      xFrameOptions: resultOf('x-frame-options'),
    }, csp.frameAncestors).checks);

    // Mixed content
    const mixed = https ? judgeMixedContent(artifacts.network) : null;
    if (mixed) checks.push(...mixed.checks);

    const findings: Finding[] = checks.map(({ details: _details, ...finding }) => finding);
    const { rating, ratings } = issueRatings(findings, ['infosec', 'webstandard']);
    const score = observatoryScore(observatory.results);
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
        redirect,
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
        observatory_modifiers: observatory.results,
      },
    };
  },
});
