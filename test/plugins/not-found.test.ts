/**
 * Type 2, 404 (Page not Found) (plugins/not-found). The good and flawed fixture sites are each
 * gathered once in a real Chromium; the standards-* fixtures need probes only, so their artifacts
 * are the served start page (servedArtifacts). Every site is served as a real one is, on
 * https://<name>.test/ (port 443) in the test world.
 * Expected ratings are worked out here from the reference rules (webperf-reference.md): each
 * failing rule deducts 10 (error) or 1 (warning) from 100, rating = max(1, score / 100 × 5),
 * overall = mean of the categories.
 */
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import notFound from '../../plugins/not-found/index.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { fixtureSite, loadFixture, LOOPBACK_GUARD, makeArtifacts, servedArtifacts } from '../helpers/fixture-artifacts.js';
import { e, findingsOf, rate, rating, reportLines, w } from '../helpers/plugin-outcomes.js';

// One gather per fixture for the whole file.
const good = await loadFixture(t, 'good');
const flawed = await loadFixture(t, 'flawed');
const goodOrigin = new URL(good.url).origin;

t.test('type 2 404 (Page not Found)', async (t) => {
  t.equal(notFound.meta.id, 2);
  const probeUrl = /^https:\/\/good\.test\/webperf-404-check-[0-9a-f]{16}$/;

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
    const site = await fixtureSite('standards-broken');
    t.equal(site.url, 'https://standards-broken.test/');
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
    const site = await fixtureSite('standards-lax');
    t.equal(site.url, 'https://standards-lax.test/');
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

t.test('an address that cannot be fetched: not rated, saying why in both languages', async (t) => {
  const probes = createProbes(LOOPBACK_GUARD);
  const cases = [
    ['https://finns-inte.test/', 'namnet finns inte i DNS', 'the name does not resolve in DNS'],
    ['https://10.1.2.3/', 'adressen är inte tillåten som testmål (en privat, lokal eller intern adress)', 'the address is not allowed as a test target (a private, local or internal address)'],
  ];
  for (const [page, sv, en] of cases) {
    const { outcome } = await rate(notFound, makeArtifacts(page), probes);
    const url = (outcome.data as any).url as string;
    t.match(url, new RegExp(`^${page}webperf-404-check-[0-9a-f]{16}$`));
    t.equal(outcome.rating, NOT_RATED, page);
    t.equal(outcome.reports.sv.overall, `Adressen ${url} gick inte att hämta: ${sv}\nInte bedömt`);
    t.equal(outcome.reports.en.overall, `The address ${url} could not be fetched: ${en}\nNot rated`);
  }
});
