/**
 * Type 9, Standard files (plugins/standard-files). The good and flawed fixture sites are each
 * gathered once in a real Chromium; the standards-* fixtures need probes only, so their artifacts
 * are the served start page (servedArtifacts). Every site is served as a real one is, on
 * https://<name>.test/ (port 443) in the test world.
 * Expected ratings are worked out here from the reference rules (webperf-reference.md): each
 * failing rule deducts 10 (error) or 1 (warning) from 100, rating = max(1, score / 100 × 5),
 * overall = mean of the categories.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import standardFiles from '../../plugins/standard-files/index.js';
import { fixtureRoot, fixtureSite, loadFixture, LOOPBACK_GUARD, makeArtifacts, servedArtifacts } from '../helpers/fixture-artifacts.js';
import { e, findingsOf, mean, rate, rating, reportLines, w, type Expected } from '../helpers/plugin-outcomes.js';

// The good fixture's security.txt has a fixed Expires date; what it deserves depends on today.
const YEAR_MS = 365 * 86_400_000;
const goodExpires = /^Expires:\s*(\S+)/m.exec(readFileSync(path.join(fixtureRoot('good'), '.well-known', 'security.txt'), 'utf8'))![1];
const goodSecurity: Expected =
  Date.parse(goodExpires) < Date.now()
    ? { 'security-txt-expired': e(1, 'infosec') }
    : Date.parse(goodExpires) - Date.now() > YEAR_MS
      ? { 'security-txt-expires-too-far': w(1, 'infosec') }
      : {};
const goodSecurityRating = rating(goodSecurity['security-txt-expired'] ? 1 : 0, goodSecurity['security-txt-expires-too-far'] ? 1 : 0);

// One gather per fixture for the whole file.
const good = await loadFixture(t, 'good');
const flawed = await loadFixture(t, 'flawed');
const goodOrigin = new URL(good.url).origin;
const flawedOrigin = new URL(flawed.url).origin;
t.strictSame([goodOrigin, flawedOrigin], ['https://good.test', 'https://flawed.test']);

t.test('type 9 Standard files', async (t) => {
  t.equal(standardFiles.meta.id, 9);
  t.same(standardFiles.meta.categories, ['webstandard', 'infosec']);

  t.test('the good fixture has every file', async (t) => {
    const { outcome, result } = await rate(standardFiles, good.artifacts, createProbes(LOOPBACK_GUARD));
    t.same(findingsOf(result), goodSecurity);
    t.same(outcome.ratings, { webstandard: 5, infosec: goodSecurityRating });
    t.equal(outcome.rating, mean(5, goodSecurityRating)); // today: (5 + 4.95) / 2 → 4.98
    t.same(outcome.data, {
      robots: { status: 200, found: true, sitemaps: [`${goodOrigin}/sitemap.xml`], allows_start_page: true },
      sitemaps: [{ url: `${goodOrigin}/sitemap.xml`, status: 200, gzipped: false, kind: 'urlset', well_formed: true, entries: 1, error: null, problem: null }],
      sitemap_pages: 1, // the one <loc>, the start page
      security_txt: { status: 200, found: true, contact: ['mailto:security@harbour-library.example'], expires: goodExpires, expired: Date.parse(goodExpires) < Date.now() },
      feeds: [{ url: `${goodOrigin}/feed.xml`, status: 200, ok: true }],
    });
    t.same(reportLines(outcome, 'sv'), ['Standarder: Betyg: 5.00', '- Inget att förbättra hittades.']);
    if (goodSecurity['security-txt-expires-too-far']) {
      t.same(reportLines(outcome, 'en', 'sec'), [
        'Integrity & Security: Rating: 4.95',
        `- security.txt is valid for more than a year ahead (Expires: ${goodExpires}); RFC 9116 recommends less than a year.`,
      ]);
    }
    t.match(outcome.reports.en.overall, /^robots\.txt: found\. Sitemap addresses: 1\. security\.txt: found\. Working feeds: 1\.\nRating: \d\.\d\d$/);
  });

  t.test('the flawed fixture answers every file with its start page (soft 404)', async (t) => {
    const { outcome, result } = await rate(standardFiles, flawed.artifacts, createProbes(LOOPBACK_GUARD));
    t.same(findingsOf(result), {
      'robots-txt-missing': e(),
      'sitemap-missing': e(),
      'feed-missing': w(),
      'security-txt-missing': w(1, 'infosec'),
    });
    const stand = rating(2, 1); // 100 − 10 × 2 − 1 → 79 → 3.95
    const sec = rating(0, 1); // 100 − 1 → 99 → 4.95
    t.same(outcome.ratings, { webstandard: stand, infosec: sec });
    t.equal(outcome.rating, mean(stand, sec)); // 4.45
    t.equal(outcome.rating, 4.45);
    const data = outcome.data as any;
    t.same(data.robots, { status: 200, found: false, sitemaps: [], allows_start_page: null });
    // Both fallback addresses answer with the start page: kept in the data, but no finding of their own.
    const softPage = { status: 200, gzipped: false, kind: null, well_formed: null, entries: null, error: 'Answered with an HTML page, not a sitemap', problem: 'not-sitemap' };
    t.same(data.sitemaps, [
      { url: `${flawedOrigin}/sitemap.xml`, ...softPage },
      { url: `${flawedOrigin}/sitemap_index.xml`, ...softPage },
    ]);
    t.equal(data.sitemap_pages, null);
    t.same(data.security_txt, { status: 200, found: false, contact: [], expires: null, expired: null });
    t.same(data.feeds, []);
    t.equal(outcome.reports.en.overall, 'robots.txt: missing. Sitemap addresses: no readable sitemap. security.txt: missing. Working feeds: 0.\nRating: 4.45');
    t.same(reportLines(outcome, 'sv'), [
      'Standarder: Betyg: 3.95',
      '- robots.txt saknas: adressen svarade 200 med text/html, inte 200 med text/plain.',
      '- Ingen webbplatskarta: robots.txt anger ingen och varken /sitemap.xml eller /sitemap_index.xml finns.',
      '- Sidan länkar inte till något RSS- eller Atom-flöde (<link rel="alternate">).',
    ]);
    t.same(reportLines(outcome, 'en', 'sec'), [
      'Integrity & Security: Rating: 4.95',
      '- security.txt is missing at /.well-known/security.txt (RFC 9116): it tells how to report security problems.',
    ]);
  });

  t.test('standards-broken: disallowed start page, bad sitemaps, a dead feed, an expired security.txt', async (t) => {
    const site = await fixtureSite('standards-broken');
    t.equal(site.url, 'https://standards-broken.test/');
    const probes = createProbes(LOOPBACK_GUARD);
    const origin = new URL(site.url).origin;
    const { outcome, result } = await rate(standardFiles, await servedArtifacts(site.url, probes, 'sv'), probes);
    t.same(findingsOf(result), {
      'robots-txt-disallows-start-page': w(),
      'sitemap-unreachable': e(),
      'sitemap-malformed': e(),
      'sitemap-empty': w(),
      'feed-broken': e(),
      'security-txt-expired': e(1, 'infosec'),
    });
    const stand = rating(3, 2); // 100 − 10 × 3 − 2 → 68 → 3.40
    const sec = rating(1, 0); // 100 − 10 → 90 → 4.50
    t.same(outcome.ratings, { webstandard: stand, infosec: sec });
    t.equal(outcome.rating, mean(stand, sec)); // 3.95
    const data = outcome.data as any;
    t.same(data.robots, {
      status: 200,
      found: true,
      sitemaps: [`${origin}/sitemap-broken.xml`, `${origin}/sitemap-empty.xml`, `${origin}/sitemap-gone.xml`],
      allows_start_page: false,
    });
    t.same(data.sitemaps, [
      // <urlset> is never closed.
      { url: `${origin}/sitemap-broken.xml`, status: 200, gzipped: false, kind: null, well_formed: false, entries: null, error: 'Not well-formed XML', problem: 'malformed' },
      { url: `${origin}/sitemap-empty.xml`, status: 200, gzipped: false, kind: 'urlset', well_formed: true, entries: 0, error: null, problem: null },
      // Unknown paths redirect to the start page: an HTML page is no sitemap.
      {
        url: `${origin}/sitemap-gone.xml`,
        status: 200,
        gzipped: false,
        kind: null,
        well_formed: null,
        entries: null,
        error: 'Answered with an HTML page, not a sitemap',
        problem: 'not-sitemap',
      },
    ]);
    // A urlset was read (the empty one), so the count is 0 rather than "no readable sitemap".
    t.equal(data.sitemap_pages, 0);
    t.same(data.security_txt, { status: 200, found: true, contact: ['mailto:security@example.org'], expires: '2020-01-01T00:00:00.000Z', expired: true });
    t.same(data.feeds, [
      { url: `${origin}/feed-missing.xml`, status: 200, ok: false },
      { url: `${origin}/calendar.atom`, status: 200, ok: true },
    ]);
    t.equal(reportLines(outcome, 'sv').length, 6);
    t.equal(reportLines(outcome, 'sv')[0], 'Standarder: Betyg: 3.40');
    t.equal(
      reportLines(outcome, 'sv')[2],
      `- En webbplatskarta som robots.txt eller ett kartindex anger går inte att hämta (adressen svarade 200 utan någon karta), t.ex. ${origin}/sitemap-gone.xml`,
    );
    t.equal(outcome.reports.en.overall, 'robots.txt: found. Sitemap addresses: 0. security.txt: found. Working feeds: 1.\nRating: 3.95');
    t.same(reportLines(outcome, 'sv', 'sec'), [
      'Integritet & säkerhet: Betyg: 4.50',
      '- security.txt har gått ut (Expires: 2020-01-01T00:00:00.000Z); uppgifterna i den ska inte längre litas på.',
    ]);
  });

  t.test('standards-lax: no robots.txt, a sitemap index only (its two sitemaps missing), a signed security.txt without Contact', async (t) => {
    const site = await fixtureSite('standards-lax');
    t.equal(site.url, 'https://standards-lax.test/');
    const probes = createProbes(LOOPBACK_GUARD);
    const origin = new URL(site.url).origin;
    const { outcome, result } = await rate(standardFiles, await servedArtifacts(site.url, probes, 'sv-SE'), probes);
    t.same(findingsOf(result), {
      'robots-txt-missing': e(),
      // The index exists, so no sitemap-missing; the two sitemaps it lists answer 404.
      'sitemap-unreachable': e(2),
      'feed-missing': w(),
      'security-txt-contact-missing': e(1, 'infosec'),
      'security-txt-expires-too-far': w(1, 'infosec'),
    });
    const stand = rating(2, 1); // 100 − 10 × 2 − 1 → 79 → 3.95
    const sec = rating(1, 1); // 100 − 10 − 1 → 89 → 4.45
    t.same(outcome.ratings, { webstandard: stand, infosec: sec });
    t.equal(outcome.rating, mean(stand, sec)); // (3.95 + 4.45) / 2 → 4.20
    t.equal(outcome.rating, 4.2);
    const data = outcome.data as any;
    t.same(data.robots, { status: 404, found: false, sitemaps: [], allows_start_page: null });
    const notFound = { status: 404, gzipped: false, kind: null, well_formed: null, entries: null, error: 'Answered 404, not 200', problem: 'unreachable' };
    t.same(data.sitemaps, [
      // The fallback addresses first, then the children of the index, in its order.
      { url: `${origin}/sitemap.xml`, ...notFound },
      { url: `${origin}/sitemap_index.xml`, status: 200, gzipped: false, kind: 'sitemapindex', well_formed: true, entries: 2, error: null, problem: null },
      { url: `${origin}/sitemap-pages.xml`, ...notFound },
      { url: `${origin}/sitemap-news.xml`, ...notFound },
    ]);
    t.equal(data.sitemap_pages, null); // only an index was read, no urlset
    t.same(data.security_txt, { status: 200, found: true, contact: [], expires: '2099-12-31T23:59:59Z', expired: false });
    t.same(reportLines(outcome, 'en'), [
      'Standards: Rating: 3.95',
      '- robots.txt is missing: the address answered 404 with text/html, not 200 with text/plain.',
      `- A sitemap listed in robots.txt or a sitemap index cannot be fetched (the address answered 404 without a sitemap), e.g. ${origin}/sitemap-pages.xml (2)`,
      '- The page links to no RSS or Atom feed (<link rel="alternate">).',
    ]);
    t.equal(outcome.reports.en.overall, 'robots.txt: missing. Sitemap addresses: no readable sitemap. security.txt: found. Working feeds: 0.\nRating: 4.20');
  });
});

t.test('files that cannot be fetched say why, in both languages', async (t) => {
  const { result } = await rate(standardFiles, makeArtifacts('https://finns-inte.test/', { mainDocument: { url: 'https://finns-inte.test/', status: 200, headers: {}, html: '<link rel="alternate" type="application/rss+xml" href="https://10.1.2.3/feed.xml">' } }), createProbes(LOOPBACK_GUARD));
  const text = (rule: string) => result.findings.find((f) => f.rule === rule)?.text;
  t.same(text('robots-txt-missing'), {
    sv: 'robots.txt saknas: adressen gick inte att hämta (namnet finns inte i DNS), inte 200 med text/plain.',
    en: 'robots.txt is missing: the address could not be fetched (the name does not resolve in DNS), not 200 with text/plain.',
  });
  t.same(text('feed-broken'), {
    sv: 'Flödet som sidan länkar till svarar inte med ett RSS- eller Atom-dokument, t.ex. https://10.1.2.3/feed.xml (gick inte att hämta: adressen är inte tillåten som testmål (en privat, lokal eller intern adress)).',
    en: 'A feed the page links to does not answer with an RSS or Atom document, e.g. https://10.1.2.3/feed.xml (could not be fetched: the address is not allowed as a test target (a private, local or internal address)).',
  });
});
