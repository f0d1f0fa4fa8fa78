/**
 * Type 2: 404 (Page not Found). Asks the site for an address that cannot exist
 * (/webperf-404-check-<random hex>) by probe, not by a second browser load. First without
 * following redirects: a redirect is a finding (an error when it lands on the start page), then
 * the redirects are followed to judge the page finally shown. The answer must be 404 (410 Gone
 * is accepted too); 2xx is a soft 404. The page must have a title, a heading, at least
 * MIN_TEXT characters of visible text and a lang attribute, in the start page's language.
 * json_check_data: `status` is the first answer (before redirects), `final_status` the last.
 */
import { randomBytes } from 'node:crypto';
import { meta } from './meta.js';
import { definePlugin, NOT_RATED, type Finding, type Severity, type ReportText } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { primaryLang, readPage } from './page.js';
import { STRINGS } from './strings.js';


/** Visible characters a helpful not-found page has at least. */
export const MIN_TEXT = 150;
const NOT_FOUND_STATUSES = new Set([404, 410]);

/** URL without fragment and trailing slash, for comparing pages. */
function sameUrl(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const url = new URL(u);
      url.hash = '';
      return url.href.replace(/\/+$/, '');
    } catch {
      return u;
    }
  };
  return norm(a) === norm(b);
}

export default definePlugin({
  meta,
  async run(artifacts, { probes }) {
    const startUrl = artifacts.finalUrl || artifacts.requestedUrl;
    const origin = new URL(startUrl).origin;
    const url = `${origin}/webperf-404-check-${randomBytes(8).toString('hex')}`;

    const first = await probes.fetch(url, { followRedirects: false });
    if (first.error) {
      return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.unreachable(url, first.failure), data: { url, error: first.error } };
    }
    const findings: Finding[] = [];
    const add = (rule: string, severity: Severity, text: ReportText) => findings.push({ rule, category: 'webstandard', severity, text });

    let final = first;
    let redirectedTo: string | null = null;
    if (first.status >= 300 && first.status < 400 && first.headers.location) {
      final = await probes.fetch(url, { followRedirects: true });
      if (final.error) {
        return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.unreachable(final.url, final.failure), data: { url, status: first.status, error: final.error } };
      }
      redirectedTo = final.url;
      const toStart = [startUrl, artifacts.requestedUrl, `${origin}/`].some((u) => u && sameUrl(final.url, u));
      if (toStart) add('not-found-redirect', 'error', STRINGS.redirectToStart(first.status));
      else add('not-found-redirect', 'warning', STRINGS.redirect(first.status, final.url));
    }

    if (final.status >= 200 && final.status < 300) add('not-found-soft-404', 'error', STRINGS.soft404(final.status));
    else if (!NOT_FOUND_STATUSES.has(final.status)) add('not-found-status', 'error', STRINGS.wrongStatus(final.status));

    const page = readPage(final.body);
    if (!page.title) add('not-found-title-missing', 'error', STRINGS.titleMissing);
    if (!page.heading) add('not-found-heading-missing', 'warning', STRINGS.headingMissing);
    if (page.textLength < MIN_TEXT) add('not-found-text-short', 'warning', STRINGS.textShort(page.textLength, MIN_TEXT));
    if (!page.lang) add('not-found-lang-missing', 'error', STRINGS.langMissing);
    else if (artifacts.htmlLang && primaryLang(page.lang) !== primaryLang(artifacts.htmlLang)) {
      add('not-found-lang-mismatch', 'warning', STRINGS.langMismatch(page.lang, artifacts.htmlLang));
    }

    return {
      ...issueRatings(findings, ['webstandard']),
      findings,
      summary: STRINGS.summary(url, first.status, final.status),
      data: {
        url,
        status: first.status,
        final_status: final.status,
        redirected_to: redirectedTo,
        title: page.title,
        heading: page.heading,
        text_length: page.textLength,
        lang: page.lang,
      },
    };
  },
});
