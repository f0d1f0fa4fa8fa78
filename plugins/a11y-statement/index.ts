/**
 * Type 26: Accessibility statement (Tillgänglighetsredogörelse). Finds the website's statement
 * from the start page as a person would, and judges it against what DIGG requires (lagen
 * 2018:1937, MDFFS 2019:2 and DIGG's guidance). Swedish cues only, as upstream
 * (Webperf-se/plugin-accessibility-statement; "calibrated only for swedish").
 *
 * Finding it (crawl.ts, links.ts, charset.ts): the start page is the served HTML of the page load
 * (mainDocument, not a rendered DOM); links are read with parse5, resolved with
 * `new URL(href, page)` (and <base>), and followed when they are on the same site (the same host
 * or its www twin, on the same port) and their text promises the statement (upstream's precision
 * table: "Tillgänglighetsredogörelse" 0.55 … "Om X" 0.2; footer links first among equals). The
 * queue spans every page read, best first, so depth 2 works (start → "Om webbplatsen" →
 * statement), up to 15 pages, the start page included, through `context.probes.fetch`; a page
 * is read once however many links or redirects lead to it, and decoded in the charset it is
 * served in (header, BOM or <meta>). A page is a statement when its h1 or title names
 * "tillgänglighetsredogörelse", or names "tillgänglighet" and the page has a legal signal (a
 * compliance phrase, a DIGG link, a 12 § claim).
 *
 * Judging it (judge.ts, rules.ts, dates.ts, digg.ts), each rule an a11y finding:
 *   no-a11y-statement                         critical  showstopper: a11y = 0, rating 1.0
 *   compatible-word-partly / -not             error     "delvis" / "inte" förenlig (text joined across markup)
 *   no-compatible-word                        error     no "helt/delvis/inte förenlig" (nor "uppfyller … kraven")
 *   no-inaccessible-content-list              error     partly or not compliant, and no list of what is not accessible
 *   no-feedback-function                      error     no form, link, e-mail or phone to report shortcomings
 *   no-notification-function-link             error     no link to DIGG's notification function
 *   has-old-notification-function-link        warning   only an old …/anmal-bristande-tillganglighet address
 *   has-canonical-notification-function-link  info      DIGG's long address (no deduction, as upstream)
 *   has-unreasonably-burdensome-accommodation warning   a 12 § claim with a reason; error without one
 *   no-evaluation-method                      error     no evaluation method named
 *   no-assessment-date / no-updated-date      error     no date of the assessment / of the last update
 *   {assessment,updated}-date-older-than-Nyears         N = 1 warning; 2, 3, 4, 5 (5 or more) error
 *   statement-not-linked-from-start-page      warning   reached at depth > 1
 *   statement-about-other-service             warning   only another service's statement (e-service, app) was found
 *   link-not-a-page                           warning   a followed link answered 404, 410 (another 4xx) or a non-HTML document
 *   no-network                                warning   a page on the way could not be read (see below)
 * Rating (family B, core/rating.ts): a11y = 100 − 25 per critical, 10 per error, 1 per warning
 * rule (each rule once); rating = max(1, a11y/100 × 5); overall = a11y.
 *
 * Not rated, never 5.0, when it cannot judge: the start page unreadable (no answer, an error
 * status, not HTML, empty) → NOT_RATED. No statement found while a page could not be read
 * (no answer, a network error or timeout, 401, 403, 407, 408, 429, 5xx) whose link text names
 * "tillgänglighet" (an e-service's or app's link too) or "om webbplats", or whose address names
 * "tillgänglighet" → NOT_RATED, since the statement may well be that page or behind it (a site
 * blocking the crawler, upstream #936); data.unreadable_pages says which (`promising`). The cue is
 * the raw text and address, not the ranked precision. A definite answer is not a statement: a
 * statement link answering 404 or 410, or serving a PDF, gives 1.0 as any missing statement,
 * with link-not-a-page naming the link, the page it was on and what it answered
 * (data.not_pages). No statement found and only less promising pages ("Om oss") unreadable →
 * 1.0, with no-network beside it.
 *
 * Bounded work (html.ts, sentences.ts): the tree is walked without recursion; the text judged is
 * at most 200,000 characters per page (MAX_TEXT; data.text_cut gives the page's length when the
 * statement was cut); sentence bounds and date keywords are found by binary search; no pattern
 * backtracks over a long word (the e-mail address and the compliance subject start where a word
 * starts).
 *
 * Where it deviates from upstream, and why:
 * - Links: upstream drops the port, drops relative links without a leading '/' and refuses
 *   protocol-relative ones and http↔https; here every href is resolved as a URL and compared by
 *   host (www twin allowed) and port. Link text may hold å, ä, ö ("Om företaget"); a link without
 *   text is judged by its address; a link naming an e-service ranks 0.1 lower.
 * - #912: upstream stops at the first statement, which can be an e-service's. Here a statement
 *   about another service (its h1 or title, the subject of its compliance sentence, what it says
 *   it applies to, or the link that led to it names an e-service, an app, "Mina sidor") does not
 *   end the walk; the website's own is chosen when found (data.statement_choice says which and
 *   data.other_statements lists the others), else the other one is judged with a warning.
 * - Pages: upstream reads each page in the browser; here the served bytes are decoded by their
 *   charset as a browser would, and 404/410 or a document are told apart from a page that could
 *   not be read (upstream: both no-network, in the 'technical' category).
 * - Text: block elements are joined with a space (textContent runs "förenlig</p><p>Vi" together);
 *   style, template and noscript are left out besides upstream's script, nav, form, input,
 *   button and a. Hidden content (`hidden`, aria-hidden: a collapsed accordion) is read, as
 *   upstream's textContent reads it. Links are read from the whole body for the DIGG link and the
 *   feedback function. The text judged is cut at 200,000 characters (upstream: none).
 * - DIGG link: addresses are normalised (scheme, www, trailing slash) instead of exact strings.
 * - Dates: the assessment date and the last update date are found and judged separately (each
 *   date goes with the nearest keyword of its sentence, at most 100 characters away; "publicerades"
 *   dates are neither), each kind keeps its latest date that is not in the future. Upstream
 *   merges them and its `.pop()` after a weight-descending sort keeps the lowest-weight date.
 *   Dates are Swedish days: a date is future until its midnight in Europe/Stockholm, and ages are
 *   365-day years from it to the day of context.now in Sweden (upstream: the local clock).
 *   Keywords besides upstream's: test(ad|at|ade|er|ning…), utvärder, självskattning, revider,
 *   ändrad, publicer, lanser.
 * - 12 §: a claim with a reason is a warning, one without an error (upstream: always an error);
 *   "vi åberopar inte 12 §" is no claim; the claim's own words ("oskäligt") are no reason.
 * - New rules from DIGG's requirements upstream does not check: the list of inaccessible content,
 *   the feedback function, the start-page link (upstream's TODO), the assessment date.
 * - no-network and link-not-a-page: upstream puts no-network in a 'technical' category averaged
 *   into overall only, which makes overall differ from a11y (#926/#927) and would lift a missing
 *   statement's 1.0 to 2.98. Here both are a11y warnings like the others (a broken link on the
 *   way to the statement is one a visitor meets too), and overall = a11y.
 * - Resolved variants of the rules are not listed as findings; data holds what was found.
 */
import { definePlugin, NOT_RATED, type Finding } from '../../core/plugin-api.js';
import { issueScore, scoreToRating } from '../../core/rating.js';
import { classify, findStatement, MAX_PAGES, type FoundStatement, type Visit } from './crawl.js';
import { readPage } from './html.js';
import { judgeStatement } from './judge.js';
import { meta } from './meta.js';
import { STRINGS } from './strings.js';

const a11y = (rule: string, severity: Finding['severity'], text: Finding['text'], count?: number): Finding => ({ rule, category: 'a11y', severity, text, ...(count ? { count } : {}) });

function statementData(s: FoundStatement) {
  return {
    url: s.page.url,
    depth: s.depth,
    link_text: s.via?.text ?? null,
    linked_from: s.via?.from ?? null,
    signal: s.signal,
    about: s.about,
    about_reason: s.aboutReason,
    title: s.page.title,
    h1: s.page.h1[0] ?? null,
  };
}

const failed = (v: Visit) => ({ url: v.url, status: v.status, why: v.why, link_text: v.link_text, linked_from: v.linked_from });

export default definePlugin({
  meta,
  async run(artifacts, { probes, signal, now }) {
    const doc = artifacts.mainDocument;
    const startUrl = doc.url || artifacts.finalUrl || artifacts.requestedUrl;
    const startProblem = classify({ status: doc.status, headers: doc.headers, body: doc.html });
    if (startProblem) {
      return {
        rating: NOT_RATED,
        ratings: {},
        findings: [],
        summary: STRINGS.summaryStartUnreadable(startUrl, startProblem.reason),
        data: { start_url: startUrl, start_page: { status: doc.status, unreadable: startProblem.why }, statement: null },
      };
    }

    const start = readPage(doc.html, startUrl);
    const crawl = await findStatement(start, [artifacts.requestedUrl, artifacts.finalUrl].filter(Boolean), probes, signal);
    const chosen = crawl.statements.find((s) => s.about === 'website') ?? crawl.statements[0] ?? null;
    const unreadable = crawl.visits.filter((v) => v.outcome === 'unreadable');
    const notPages = crawl.visits.filter((v) => v.outcome === 'no-page');
    const findings: Finding[] = [];
    if (unreadable.length) findings.push(a11y('no-network', 'warning', STRINGS.noNetwork(unreadable.map((v) => ({ url: v.url, why: v.reason! }))), unreadable.length));
    if (notPages.length) findings.push(a11y('link-not-a-page', 'warning', STRINGS.linkNotAPage(notPages.map((v) => ({ text: v.link_text, url: v.url, from: v.linked_from, why: v.reason! }))), notPages.length));
    const common = {
      start_url: startUrl,
      pages_read: crawl.pagesRead,
      max_pages: MAX_PAGES,
      links_left: crawl.left,
      visited: crawl.visits.map((v) => ({ url: v.url, final_url: v.final_url, depth: v.depth, link_text: v.link_text, precision: v.precision, status: v.status, statement: v.statement })),
      unreadable_pages: unreadable.map((v) => ({ ...failed(v), promising: v.promising })),
      not_pages: notPages.map(failed),
    };

    if (!chosen) {
      const likely = unreadable.filter((v) => v.promising);
      if (likely.length) {
        return {
          rating: NOT_RATED,
          ratings: {},
          findings,
          summary: STRINGS.summaryCandidatesUnreadable(likely.map((v) => v.url)),
          data: { ...common, statement: null, statement_choice: null, other_statements: [] },
        };
      }
      findings.unshift(a11y('no-a11y-statement', 'critical', STRINGS.noStatement(crawl.pagesRead - 1)));
      // The showstopper: no statement, no score (upstream's checkNoAccessibilityStatement).
      const rating = scoreToRating(0);
      return {
        rating,
        ratings: { a11y: rating },
        findings,
        summary: STRINGS.summaryNotFound(crawl.pagesRead - 1),
        data: { ...common, statement: null, statement_choice: null, other_statements: [] },
      };
    }

    const judged = judgeStatement(chosen.page, now);
    if (chosen.depth > 1) {
      findings.push(a11y('statement-not-linked-from-start-page', 'warning', STRINGS.notLinkedFromStartPage(chosen.depth, chosen.via!.text, chosen.via!.from)));
    }
    if (chosen.about !== 'website') findings.push(a11y('statement-about-other-service', 'warning', STRINGS.aboutOtherService(chosen.page.url)));
    findings.push(...judged.findings);
    const rating = scoreToRating(issueScore(findings));
    const compliance = judged.data.compliance as { level: 'full' | 'partial' | 'not' } | null;
    return {
      rating,
      ratings: { a11y: rating },
      findings,
      summary: STRINGS.summaryFound(chosen.page.url, chosen.depth, compliance?.level ?? null),
      data: {
        ...common,
        statement: statementData(chosen),
        statement_choice: chosen.about === 'website' ? 'about-the-website' : 'only-other-service-found',
        other_statements: crawl.statements.filter((s) => s !== chosen).map((s) => ({ url: s.page.url, depth: s.depth, about: s.about, about_reason: s.aboutReason })),
        ...judged.data,
      },
    };
  },
});
