/**
 * The standards family: HTML Lint (28), CSS Lint (27), Standard files (9) and 404 (2).
 * The good and flawed fixture sites are each gathered once in a real Chromium; the standards-*
 * fixtures need probes only, so their artifacts are built by hand from the served start page.
 * Expected ratings are worked out here from the reference rules (webperf-reference.md): each
 * failing rule deducts 10 (error) or 1 (warning) from 100, rating = max(1, score / 100 × 5),
 * overall = mean of the categories.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin, type TestOutcome } from '../../core/pipeline.js';
import { NOT_RATED, type Artifacts, type PluginResult, type Probes, type TestPlugin } from '../../core/plugin-api.js';
import { startStaticSite } from '../../runners/static-site.js';
import cssLint from '../../plugins/css-lint/index.js';
import htmlLint from '../../plugins/html-validate/index.js';
import notFound from '../../plugins/not-found/index.js';
import standardFiles from '../../plugins/standard-files/index.js';
import { fixtureRoot, loadFixture, LOOPBACK_GUARD } from '../helpers/fixture-artifacts.js';

type Expected = Record<string, { category: string; severity: string; count: number }>;

/** Two decimals, half up, without binary surprises ((5 + 4.95) / 2 = 4.975 → 4.98). */
const twoPlaces = (x: number) => Math.round(Number((x * 100).toPrecision(12))) / 100;
/** Reference rules: 100 − 10 per failing error rule − 1 per failing warning rule → 1..5. */
function rating(errors: number, warnings: number): number {
  const score = Math.max(0, 100 - 10 * errors - warnings);
  return twoPlaces(Math.max(1, (score / 100) * 5));
}
const mean = (...ratings: number[]) => twoPlaces(ratings.reduce((a, b) => a + b, 0) / ratings.length);

/** Runs a plugin through the pipeline, keeping its raw result too (the outcome has no findings). */
async function rate(plugin: TestPlugin, artifacts: Artifacts, probes: Probes): Promise<{ outcome: TestOutcome; result: PluginResult }> {
  let result: PluginResult | undefined;
  const spy: TestPlugin = { meta: plugin.meta, run: async (a, c) => (result = await plugin.run(a, c)) };
  const outcome = await runPlugin(spy, artifacts, { probes });
  if (outcome.error) throw new Error(`type ${plugin.meta.id} failed: ${outcome.error}`);
  return { outcome, result: result! };
}

function findingsOf(result: PluginResult): Expected {
  return Object.fromEntries(result.findings.map((f) => [f.rule, { category: f.category, severity: f.severity, count: f.count ?? 1 }]));
}

const e = (count = 1, category = 'webstandard') => ({ category, severity: 'error', count });
const w = (count = 1, category = 'webstandard') => ({ category, severity: 'warning', count });

/** The standards report: a rating line, then one bullet per improvable finding (or "nothing"). */
function reportLines(outcome: TestOutcome, lang: 'sv' | 'en', field: 'stand' | 'sec' = 'stand'): string[] {
  return outcome.reports[lang][field].split('\n');
}

/** Artifacts for a probe-only case: the served start page, nothing from a browser. */
async function servedArtifacts(url: string, probes: Probes, htmlLang: string): Promise<Artifacts> {
  const page = await probes.fetch(url);
  return {
    requestedUrl: url,
    finalUrl: url,
    mainDocument: { url, status: page.status, headers: page.headers, html: page.body },
    network: [],
    cookies: [],
    renderedText: '',
    mainText: '',
    htmlLang,
    consoleErrors: [],
    axe: null,
    lighthouse: null,
    stylesheets: [],
    scripts: [],
  };
}

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

t.test('type 28 HTML Lint', async (t) => {
  t.equal(htmlLint.meta.id, 28);
  t.same(htmlLint.meta.categories, ['webstandard']);

  t.test('the good fixture is valid under html-validate:standard', async (t) => {
    const { outcome, result } = await rate(htmlLint, good.artifacts, good.probes);
    t.same(findingsOf(result), {});
    t.equal(outcome.rating, 5);
    t.same(outcome.ratings, { webstandard: 5 });
    const data = outcome.data as any;
    t.equal(data.validator, 'html-validate');
    t.equal(data.preset, 'html-validate:standard');
    t.match(data.version, /^10\./);
    t.same(data.messages, []);
    t.equal(data.errors, 0);
    t.equal(data.warnings, 0);
    t.same(reportLines(outcome, 'sv'), ['Standarder: Betyg: 5.00', '- Inget att förbättra hittades.']);
    t.same(reportLines(outcome, 'en'), ['Standards: Rating: 5.00', '- Nothing to improve was found.']);
    t.match(outcome.reports.en.overall, /^The HTML document validated with html-validate 10\.\d+\.\d+ \(standard preset\): 0 errors and 0 warnings\.\nRating: 5\.00$/);
  });

  t.test('the flawed fixture fails four rules, one place each', async (t) => {
    const { outcome, result } = await rate(htmlLint, flawed.artifacts, flawed.probes);
    t.same(findingsOf(result), {
      'element-required-attributes': e(),
      deprecated: e(),
      'element-permitted-content': e(),
      'no-dup-id': e(),
    });
    const expected = rating(4, 0); // 100 − 10 × 4 → 60 → 3.00
    t.equal(expected, 3);
    t.equal(outcome.rating, expected);
    t.same(outcome.ratings, { webstandard: expected });
    const data = outcome.data as any;
    t.same(
      data.messages.map((m: any) => [m.rule, m.severity, m.line, m.column, m.selector]),
      [
        ['element-required-attributes', 'error', 2, 2, 'html'],
        ['deprecated', 'error', 18, 2, 'html > body > div > center'],
        ['element-permitted-content', 'error', 18, 2, 'html > body > div > center'],
        ['no-dup-id', 'error', 21, 9, 'html > body > main > h1'],
      ],
    );
    t.equal(data.errors, 4);
    t.equal(data.warnings, 0);
    t.equal(outcome.reports.en.overall, `The HTML document validated with html-validate ${data.version} (standard preset): 4 errors and 0 warnings.\nRating: 3.00`);
    t.same(reportLines(outcome, 'sv'), [
      'Standarder: Betyg: 3.00',
      '- Element saknar obligatoriskt attribut (element-required-attributes). Första fallet, rad 2: <html> is missing required "lang" attribute',
      '- Föråldrat element används (deprecated). Första fallet, rad 18: <center> is deprecated: use CSS instead',
      '- Element står där det inte får förekomma (element-permitted-content). Första fallet, rad 18: <center> element is not permitted as content under <div>',
      '- Samma id används av flera element (no-dup-id). Första fallet, rad 21: Duplicate ID "top"',
    ]);
    t.same(reportLines(outcome, 'en')[0], 'Standards: Rating: 3.00');
    t.equal(reportLines(outcome, 'en')[4], '- The same id is used by several elements (no-dup-id). First case, line 21: Duplicate ID "top"');
  });

  t.test('an empty document is not rated', async (t) => {
    const artifacts = { ...good.artifacts, mainDocument: { ...good.artifacts.mainDocument, html: '' } };
    const { outcome, result } = await rate(htmlLint, artifacts, good.probes);
    t.same(result.findings, []);
    t.equal(outcome.rating, NOT_RATED);
    t.same(outcome.ratings, {});
    t.equal(outcome.reports.en.overall, 'The page served no HTML document to validate.\nNot rated');
  });
});

t.test('type 27 CSS Lint', async (t) => {
  t.equal(cssLint.meta.id, 27);

  t.test('the good fixture\'s stylesheet is valid', async (t) => {
    const { outcome, result } = await rate(cssLint, good.artifacts, good.probes);
    t.same(findingsOf(result), {});
    t.equal(outcome.rating, 5);
    t.same(outcome.ratings, { webstandard: 5 });
    const data = outcome.data as any;
    t.equal(data.linter, 'stylelint');
    t.match(data.version, /^17\./);
    t.same(data.stylesheets, [{ url: `${goodOrigin}/style.css`, messages: [] }]);
    t.same(reportLines(outcome, 'sv'), ['Standarder: Betyg: 5.00', '- Inget att förbättra hittades.']);
  });

  t.test('the flawed fixture: three invalid declarations and a duplicate selector', async (t) => {
    const { outcome, result } = await rate(cssLint, flawed.artifacts, flawed.probes);
    t.same(findingsOf(result), {
      'property-no-unknown': e(),
      'color-no-invalid-hex': e(),
      'declaration-property-value-no-unknown': e(),
      'no-duplicate-selectors': w(),
    });
    const expected = rating(3, 1); // 100 − 10 × 3 − 1 → 69 → 3.45
    t.equal(expected, 3.45);
    t.equal(outcome.rating, expected);
    t.same(outcome.ratings, { webstandard: expected });
    const data = outcome.data as any;
    t.same(data.stylesheets, [
      {
        url: `${flawedOrigin}/style.css`,
        messages: [
          { rule: 'property-no-unknown', severity: 'error', line: 12, column: 3, text: 'Unknown property "colr"' },
          { rule: 'color-no-invalid-hex', severity: 'error', line: 13, column: 28, text: 'Invalid hex color "#ggg"' },
          { rule: 'declaration-property-value-no-unknown', severity: 'error', line: 13, column: 28, text: 'Unknown value "#ggg" for property "border-bottom"' },
          { rule: 'no-duplicate-selectors', severity: 'warning', line: 20, column: 1, text: 'Duplicate selector "h1", first used at line 11' },
        ],
      },
    ]);
    t.equal(data.errors, 3);
    t.equal(data.warnings, 1);
    t.same(reportLines(outcome, 'en'), [
      'Standards: Rating: 3.45',
      `- Unknown property (property-no-unknown). First case: ${flawedOrigin}/style.css, line 12: Unknown property "colr"`,
      `- Invalid hex colour (color-no-invalid-hex). First case: ${flawedOrigin}/style.css, line 13: Invalid hex color "#ggg"`,
      `- Invalid value for the property (declaration-property-value-no-unknown). First case: ${flawedOrigin}/style.css, line 13: Unknown value "#ggg" for property "border-bottom"`,
      `- The same selector occurs several times (no-duplicate-selectors). First case: ${flawedOrigin}/style.css, line 20: Duplicate selector "h1", first used at line 11`,
    ]);
    t.equal(reportLines(outcome, 'sv')[0], 'Standarder: Betyg: 3.45');
    t.equal(outcome.reports.sv.overall, `1 stilmall validerade med stylelint ${data.version}: 3 fel och 1 varning.\nBetyg: 3.45`);
  });

  t.test('inline sheets are named in order; a sheet that cannot be parsed is a syntax error', async (t) => {
    const artifacts: Artifacts = {
      ...good.artifacts,
      stylesheets: [
        { url: '', content: 'p { color: red; ' },
        { url: `${goodOrigin}/extra.css`, content: 'a { color: blue; color: blue; }' },
        { url: '', content: 'p:hover {}\np { color: #fff; }' },
      ],
    };
    const { outcome, result } = await rate(cssLint, artifacts, good.probes);
    t.same(findingsOf(result), {
      'css-syntax-error': e(),
      'declaration-block-no-duplicate-properties': w(),
      'block-no-empty': w(),
    });
    t.equal(outcome.rating, rating(1, 2)); // 100 − 10 − 2 → 88 → 4.40
    t.same(
      (outcome.data as any).stylesheets.map((s: any) => [s.url, s.messages.map((m: any) => m.rule)]),
      [
        ['inline #1', ['css-syntax-error']],
        [`${goodOrigin}/extra.css`, ['declaration-block-no-duplicate-properties']],
        ['inline #2', ['block-no-empty']],
      ],
    );
    t.equal(reportLines(outcome, 'en')[1], '- The stylesheet has a syntax error and cannot be parsed (css-syntax-error). First case: inline #1, line 1: Unclosed block');
  });

  t.test('a page without stylesheets is not rated', async (t) => {
    const { outcome } = await rate(cssLint, { ...good.artifacts, stylesheets: [] }, good.probes);
    t.equal(outcome.rating, NOT_RATED);
    t.same(outcome.ratings, {});
  });
});

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
      sitemaps: [{ url: `${goodOrigin}/sitemap.xml`, status: 200, well_formed: true, entries: 1 }],
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
    t.same(data.sitemaps.map((s: any) => [s.url, s.status, s.well_formed]), [
      [`${flawedOrigin}/sitemap.xml`, 200, null],
      [`${flawedOrigin}/sitemap_index.xml`, 200, null],
    ]);
    t.same(data.security_txt, { status: 200, found: false, contact: [], expires: null, expired: null });
    t.same(data.feeds, []);
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
    const site = await startStaticSite(fixtureRoot('standards-broken'));
    t.teardown(() => site.close());
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
      { url: `${origin}/sitemap-broken.xml`, status: 200, well_formed: false, entries: null },
      { url: `${origin}/sitemap-empty.xml`, status: 200, well_formed: true, entries: 0 },
      // Unknown paths redirect to the start page: an HTML page is no sitemap.
      { url: `${origin}/sitemap-gone.xml`, status: 200, well_formed: null, entries: null },
    ]);
    t.same(data.security_txt, { status: 200, found: true, contact: ['mailto:security@example.org'], expires: '2020-01-01T00:00:00.000Z', expired: true });
    t.same(data.feeds, [
      { url: `${origin}/feed-missing.xml`, status: 200, ok: false },
      { url: `${origin}/calendar.atom`, status: 200, ok: true },
    ]);
    t.equal(reportLines(outcome, 'sv').length, 6);
    t.equal(reportLines(outcome, 'sv')[0], 'Standarder: Betyg: 3.40');
    t.same(reportLines(outcome, 'sv', 'sec'), [
      'Integritet & säkerhet: Betyg: 4.50',
      '- security.txt har gått ut (Expires: 2020-01-01T00:00:00.000Z); uppgifterna i den ska inte längre litas på.',
    ]);
  });

  t.test('standards-lax: no robots.txt, a sitemap index only, a signed security.txt without Contact', async (t) => {
    const site = await startStaticSite(fixtureRoot('standards-lax'));
    t.teardown(() => site.close());
    const probes = createProbes(LOOPBACK_GUARD);
    const origin = new URL(site.url).origin;
    const { outcome, result } = await rate(standardFiles, await servedArtifacts(site.url, probes, 'sv-SE'), probes);
    t.same(findingsOf(result), {
      'robots-txt-missing': e(),
      'feed-missing': w(),
      'security-txt-contact-missing': e(1, 'infosec'),
      'security-txt-expires-too-far': w(1, 'infosec'),
    });
    const both = rating(1, 1); // 100 − 10 − 1 → 89 → 4.45, in each category
    t.same(outcome.ratings, { webstandard: both, infosec: both });
    t.equal(outcome.rating, both);
    const data = outcome.data as any;
    t.same(data.robots, { status: 404, found: false, sitemaps: [], allows_start_page: null });
    t.same(data.sitemaps, [
      { url: `${origin}/sitemap.xml`, status: 404, well_formed: null, entries: null },
      { url: `${origin}/sitemap_index.xml`, status: 200, well_formed: true, entries: 2 },
    ]);
    t.same(data.security_txt, { status: 200, found: true, contact: [], expires: '2099-12-31T23:59:59Z', expired: false });
    t.equal(reportLines(outcome, 'en')[1], '- robots.txt is missing: the address answered 404 with text/html, not 200 with text/plain.');
    t.equal(outcome.reports.en.overall, 'robots.txt: missing. Sitemap addresses: 2. security.txt: found. Working feeds: 0.\nRating: 4.45');
  });
});

t.test('type 2 404 (Page not Found)', async (t) => {
  t.equal(notFound.meta.id, 2);
  const probeUrl = /^http:\/\/127\.0\.0\.1:\d+\/webperf-404-check-[0-9a-f]{16}$/;

  t.test('the good fixture answers 404 with a helpful page', async (t) => {
    const { outcome, result } = await rate(notFound, good.artifacts, good.probes);
    t.same(findingsOf(result), {});
    t.equal(outcome.rating, 5);
    t.same(outcome.ratings, { webstandard: 5 });
    const data = outcome.data as any;
    t.match(data.url, probeUrl);
    t.ok(data.url.startsWith(`${goodOrigin}/`));
    t.same({ ...data, url: '' }, {
      url: '',
      status: 404,
      final_status: 404,
      redirected_to: null,
      title: 'Page not found - Harbour Library',
      heading: 'Page not found',
      text_length: 217,
      lang: 'en',
    });
    t.same(reportLines(outcome, 'en'), ['Standards: Rating: 5.00', '- Nothing to improve was found.']);
    t.equal(outcome.reports.sv.overall, `Adressen ${data.url} svarade 404.\nBetyg: 5.00`);
  });

  t.test('the flawed fixture answers 200 with its start page, which has no lang', async (t) => {
    const { outcome, result } = await rate(notFound, flawed.artifacts, flawed.probes);
    t.same(findingsOf(result), { 'not-found-soft-404': e(), 'not-found-lang-missing': e() });
    const expected = rating(2, 0); // 100 − 10 × 2 → 80 → 4.00
    t.equal(outcome.rating, expected);
    t.same(outcome.ratings, { webstandard: expected });
    const data = outcome.data as any;
    t.match(data, { status: 200, final_status: 200, redirected_to: null, title: 'Bageriet i Exempelby', heading: 'Välkommen till Bageriet', lang: '' });
    t.ok(data.text_length >= 150);
    t.same(reportLines(outcome, 'sv'), [
      'Standarder: Betyg: 4.00',
      '- En adress som inte finns svarar 200 i stället för 404 (en mjuk 404): sökmotorer och länkkontroller tror att sidan finns.',
      '- 404-sidan anger inte sitt språk (lang på <html>).',
    ]);
  });

  t.test('standards-broken redirects unknown addresses to the start page', async (t) => {
    const site = await startStaticSite(fixtureRoot('standards-broken'));
    t.teardown(() => site.close());
    const probes = createProbes(LOOPBACK_GUARD);
    const { outcome, result } = await rate(notFound, await servedArtifacts(site.url, probes, 'sv'), probes);
    t.same(findingsOf(result), { 'not-found-redirect': e(), 'not-found-soft-404': e() });
    t.equal(outcome.rating, rating(2, 0)); // 80 → 4.00
    t.match(outcome.data, { status: 302, final_status: 200, redirected_to: site.url, lang: 'sv' });
    t.same(reportLines(outcome, 'en'), [
      'Standards: Rating: 4.00',
      '- An address that does not exist is redirected (302) to the start page instead of answering 404; visitors are not told the page is missing.',
      '- An address that does not exist answers 200 instead of 404 (a soft 404): search engines and link checkers take the page for real.',
    ]);
  });

  t.test('standards-lax answers 404 with a bare page in another language', async (t) => {
    const site = await startStaticSite(fixtureRoot('standards-lax'));
    t.teardown(() => site.close());
    const probes = createProbes(LOOPBACK_GUARD);
    const { outcome, result } = await rate(notFound, await servedArtifacts(site.url, probes, 'sv-SE'), probes);
    t.same(findingsOf(result), {
      'not-found-title-missing': e(),
      'not-found-text-short': w(),
      'not-found-lang-mismatch': w(),
    });
    t.equal(outcome.rating, rating(1, 2)); // 100 − 10 − 2 → 88 → 4.40
    t.match(outcome.data, { status: 404, final_status: 404, redirected_to: null, title: '', heading: 'Oops', text_length: 15, lang: 'en' });
    t.same(reportLines(outcome, 'sv'), [
      'Standarder: Betyg: 4.40',
      '- 404-sidan saknar titel (<title>).',
      '- 404-sidan har för lite text (15 tecken, minst 150) för att hjälpa besökaren vidare.',
      '- 404-sidan är på ett annat språk (en) än startsidan (sv-SE).',
    ]);
  });
});
