/**
 * Type 31: Privacy (Integritet), as webperf_core's tests/privacy.py rates it, from the one page
 * load every type shares (no second visit, no ten-second wait as upstream's webbkoll-backend
 * makes). Six sections (sections.ts), each starting at 5, losing its deductions, floored at 1;
 * infosec and overall are their mean (two decimals), banded with upstream's texts:
 *
 *   HTTPS            final URL not https → 1; −min(0.5·n, 4) for n insecure requests; −1 for TLS 1.0/1.1/SSL
 *   Referrer-Policy  no-referrer, same-origin, strict-origin → 5; none → 3; any other policy → 2
 *   Cookies          third-party −(2.5 + min(0.25·n, 1.5)); > 365 days, no Secure (https only), no
 *                    HttpOnly, SameSite not Lax/Strict: −min(0.25·n, 1) each
 *   Third parties    −min(0.15·hosts, 2); hosts under a listed tracking domain −(2 + min(0.25·n, 1))
 *   Headers          https without HSTS −1.5, else max-age < 15768000 −0.5, no includeSubDomains −0.5,
 *                    no preload −0.25; X-Content-Type-Options not nosniff −0.5; neither
 *                    X-Frame-Options nor CSP frame-ancestors −0.5
 *   SRI              third-party <script src> and <link rel=stylesheet> without integrity −min(0.5·n, 4)
 *   band: 5, ≥ 4, ≥ 3, ≥ 2, below
 *
 * Where this departs from upstream, and why:
 * - First party is the page's registrable domain by the public suffix list (tldts, its private
 *   section included; core/gather/site.ts), not upstream's "the host name and its last two and
 *   three labels". Upstream's rule makes every *.github.io site first party to every other (the
 *   last two labels of user.github.io are github.io), and every *.co.uk host to every other; the
 *   list is what browsers use for the same decision (cookies' SameSite, storage partitioning), so
 *   its verdict is what a visitor's browser acts on. www.kommun.se and x.kommun.se are one site
 *   either way.
 * - Referrer-Policy: the header's last token that is a policy, not its last token (browsers skip
 *   unknown ones: "no-referrer, made-up" is no-referrer); a valid `<meta name=referrer>` of the
 *   rendered page overrides the header, as browsers apply it (upstream reads the meta only when
 *   no header is sent); the meta's legacy keywords (never, always...) are mapped as HTML maps them.
 * - Mixed content is what Chromium refused as such in the load (a script, a stylesheet, a frame
 *   over http) plus requests sent over http. Images and media that Chromium upgraded to https
 *   left nothing insecure and are not counted (upstream's backend counts only blocked or warned
 *   mixed content too). The navigation's own redirect from http to https is not counted.
 * - Cookies are judged on what the site tried to set: third-party cookies that Chromium refused to
 *   store (it blocks them) are read from their Set-Cookie lines, as type 23 does; upstream's jar
 *   alone would never see them. Lifetimes are counted from the run's time (context.now).
 * - Headers: X-Frame-Options counts only as DENY or SAMEORIGIN (browsers ignore other values;
 *   upstream accepts any), frame-ancestors only as a directive of the CSP header (not a substring
 *   of it), HSTS only with a readable max-age, from the first header as browsers read it.
 * - SRI: an integrity attribute counts when it holds a sha256/384/512 hash, as browsers check it
 *   (upstream: any integrity attribute); the rendered DOM's elements, resolved by the browser.
 * - Third-party hosts are those the page's requests reached (not those Chromium refused itself).
 * - localStorage, which upstream records but does not rate, is not read.
 */
import { definePlugin, type Finding } from '../../core/plugin-api.js';
import { meanRating } from '../../core/rating.js';
import { siteOf, webHostOf } from '../../core/gather/site.js';
import { loadTrackerList } from '../../core/trackers.js';
import { meta } from './meta.js';
import { cookiesSection, headersSection, httpsSection, referrerSection, sriSection, thirdPartiesSection, type SectionResult } from './sections.js';
import { STRINGS, band, type Section } from './strings.js';

export default definePlugin({
  meta,
  run(artifacts, context) {
    const pageHost = webHostOf(artifacts.finalUrl || artifacts.mainDocument.url) ?? '';
    const trackers = loadTrackerList();
    const results: SectionResult[] = [
      httpsSection(artifacts),
      referrerSection(artifacts),
      cookiesSection(artifacts, pageHost, context.now),
      thirdPartiesSection(artifacts, pageHost, trackers.domains),
      headersSection(artifacts),
      sriSection(artifacts, pageHost),
    ];
    const sections = Object.fromEntries(results.map((r) => [r.section, r.rating])) as Record<Section, number>;
    const rating = meanRating(results.map((r) => r.rating));
    const findings: Finding[] = results.flatMap((r) =>
      r.deductions.map((d) => ({
        rule: d.rule,
        category: 'infosec' as const,
        severity: d.points >= 1 ? ('error' as const) : ('warning' as const),
        text: d.text,
        ...(d.count !== undefined ? { count: d.count } : {}),
      })),
    );
    return {
      rating,
      ratings: { infosec: rating },
      findings,
      summary: STRINGS.summary(rating, sections),
      data: {
        url: artifacts.finalUrl,
        site: siteOf(pageHost),
        band: band(rating).en,
        sections: Object.fromEntries(results.map((r) => [r.section, {
          rating: r.rating,
          deductions: r.deductions.map((d) => ({ rule: d.rule, points: d.points, ...(d.count !== undefined ? { count: d.count } : {}) })),
          ...r.data,
        }])),
        tracker_list: { source_url: trackers.meta.source_url, date: trackers.meta.date, domains: trackers.domains.size },
      },
    };
  },
});
