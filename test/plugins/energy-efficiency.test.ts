/**
 * Type 22, energy efficiency (plugins/energy-efficiency), on the artifacts of page loads with
 * network records of exact sizes (no browser: the plugin reads the network log only, and fetches
 * nothing).
 *
 * Expected values worked out by hand from webperf_core's formula and its 2026-06-07 table:
 * - co2(b) = (0.75 b + 0.02 × 0.25 b) × 1.805 / 2^30 × 475 = 0.755 × 1.805 × 475 / 2^30 × b
 *   = 647.318125 / 2^30 × b, so 1 MiB gives 647.318125 / 1024 = 0.6321466… g.
 * - cleaner = 100 − k for the first percentile k with co2 < P[k]; rating = 5 × cleaner / 100,
 *   5.0 from 95 up, at least 1.0.
 */
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { NOT_RATED, type NetworkRecord } from '../../core/plugin-api.js';
import energy from '../../plugins/energy-efficiency/index.js';
import { cleanerThan, PERCENTILES } from '../../plugins/energy-efficiency/carbon.js';
import { LOOPBACK_GUARD, makeArtifacts } from '../helpers/fixture-artifacts.js';
import { networkRecord } from '../helpers/infosec-tls.js';
import { rate } from '../helpers/plugin-outcomes.js';

const probes = createProbes(LOOPBACK_GUARD);
const PAGE = 'https://kommun.test/';
const KiB = 1024;
const MiB = 1024 * 1024;

/** A page whose records have these decoded and transfer sizes. */
function page(...records: [string, string, number, number][]) {
  return makeArtifacts(PAGE, {
    network: records.map(([url, type, resourceSize, transferSize]) => networkRecord(url, type, { resourceSize, transferSize })),
  });
}

/** A page of one HTML document of `bytes` decoded bytes (transfer size a third of it). */
const onePage = (bytes: number) => page([PAGE, 'Document', bytes, Math.round(bytes / 3)]);

t.test('1 MiB: an HTML page, a 600 KiB and a 400 KiB body (a third party\'s included): 0.63 g, greener than 94 %, 4.7', async (t) => {
  // 24 KiB + 600 KiB + 400 KiB = 1024 KiB = 1 MiB decoded; 6 000 + 615 000 + 410 000 = 1 031 000 bytes transferred.
  const artifacts = page(
    [PAGE, 'Document', 24 * KiB, 6_000],
    [`${PAGE}film.bin`, 'Other', 600 * KiB, 615_000],
    ['https://www.googletagmanager.com/gtag/js?id=G-TEST', 'Script', 400 * KiB, 410_000],
  );
  const { outcome, result } = await rate(energy, artifacts, probes);
  // co2 = 0.6321466… g: P5 = 0.5931 ≤ co2 < P6 = 0.6457, so k = 6, cleaner 94, rating 5 × 0.94 = 4.7.
  t.equal(outcome.rating, 4.7);
  t.same(outcome.ratings, {});
  t.same(result.findings, []);
  const data = outcome.data as any;
  t.equal(data.total_byte_weight, MiB);
  t.equal(data.transfer_size, 1_031_000);
  t.equal(data.requests, 3);
  t.ok(Math.abs(data.co2 - 647.318125 / 1024) < 1e-12, `co2 ${data.co2}`);
  t.equal(data.cleaner_than, 94);
  t.same(data.sources, [
    { url: PAGE, index: 1, size: 24 * KiB, transfer_size: 6_000 },
    { url: `${PAGE}film.bin`, index: 2, size: 600 * KiB, transfer_size: 615_000 },
    { url: 'https://www.googletagmanager.com/gtag/js?id=G-TEST', index: 3, size: 400 * KiB, transfer_size: 410_000 },
  ]);
  t.same(data.reference, {
    date: '2026-06-07',
    population: 'webperf.se',
    repository: 'https://github.com/Webperf-se/webperf_core',
    path: 'tests/energy_efficiency_carbon_percentiles.py',
    commit: 'e9056be5043b9b48f2bc5c75d1adcebdea715f7f',
    retrieved: '2026-11-27',
    last_changed_in: 'e3d34a836e43bd032ad00b45f8f874b759813831 (2026-06-08)',
  });
  t.same(data.model, {
    name: 'webperf_core (Wholegrain carbon-api-2-0)',
    kwh_per_gb: 1.805,
    bytes_per_gb: 1073741824,
    grid_g_per_kwh: 475,
    returning_visitor_share: 0.75,
    first_time_share: 0.25,
    subsequent_load_share: 0.02,
  });
  // CO2.js, SWD v4 on the 1 031 000 bytes transferred: 1.031 MB × 0.3 kWh/GB × 494 g/kWh = 0.1528 g,
  // between B's 0.145 and C's 0.209: C (the exact figure is checked in test/conformance).
  t.match(data.swd_v4, { library: '@tgwf/co2', model: 'swd', model_version: 4, method: 'perVisit', green_hosting: false, grid_intensity_g_per_kwh: 494, bytes: 'transfer_size', rating: 'C' });
  t.ok(Math.abs(data.swd_v4.co2 - 0.1527942) < 1e-9, `swd ${data.swd_v4.co2}`);
  // 1 031 000 / 1024 = 1006.84 KB.
  t.equal(
    outcome.reports.sv.overall,
    [
      'Webbsidan genererar väldigt lite koldioxid!',
      'Koldioxid per sidvisning: 0.63 gram',
      'Webbsidan är grönare än 94 % av testade webbplatser på webperf.se (Referens uppdaterad: 2026-06-07).',
      'Nätverksstorlek: 1.00 MB (avkodat innehåll; 1006.84 KB överfört)',
      'Betyg: 4.70',
    ].join('\n'),
  );
  t.equal(
    outcome.reports.en.overall,
    [
      'Webpage generates very little carbon dioxide!',
      'Carbon dioxide per pageview: 0.63 grams',
      'More green than 94 % of the websites tested by webperf.se (Reference updated: 2026-06-07).',
      'Network size: 1.00 MB (decoded content; 1006.84 KB transferred)',
      'Rating: 4.70',
    ].join('\n'),
  );
  t.same(outcome.reports.sv.sec, '');
  t.same(outcome.reports.sv.stand, '');
});

t.test('co2 equal to a percentile falls into the next bucket (strict <)', async (t) => {
  // The walk itself, at P6 and at P20: equal → k + 1.
  t.equal(cleanerThan(PERCENTILES[5]), 100 - 7);
  t.equal(cleanerThan(PERCENTILES[5] - 1e-9), 100 - 6);
  t.equal(cleanerThan(PERCENTILES[19]), 100 - 21);
  t.equal(cleanerThan(PERCENTILES[99]), 0, 'at P100 no value is above it');
  t.equal(cleanerThan(0), 99);
  // Through the plugin: 2 527 915 bytes give co2 = 647.318125 / 2^30 × 2 527 915 = 1.5239838491746922 g,
  // exactly P20 (1.5239838491746922): k = 21, cleaner 79, 5 × 0.79 = 3.95. One byte less is under
  // P20: k = 20, cleaner 80, 4.0.
  const at = await rate(energy, onePage(2_527_915), probes);
  t.equal((at.outcome.data as any).co2, PERCENTILES[19], 'co2 is exactly P20');
  t.equal((at.outcome.data as any).cleaner_than, 79);
  t.equal(at.outcome.rating, 3.95);
  const below = await rate(energy, onePage(2_527_914), probes);
  t.ok((below.outcome.data as any).co2 < PERCENTILES[19]);
  t.equal((below.outcome.data as any).cleaner_than, 80);
  t.equal(below.outcome.rating, 4);
});

t.test('the bands and ratings across page weights', async (t) => {
  // [bytes, k, cleaner, rating, first line (sv)]: co2 = 0.6321466 g per MiB.
  const cases: [number, number, number, string][] = [
    // 0.9 MiB (943 718 B): 0.5689 g < P5 = 0.5931 → k = 5, cleaner 95 → 5.0 (4.75 without the ≥ 95 rule).
    [943_718, 95, 5, 'Webbsidan genererar väldigt lite koldioxid!'],
    // 100 KiB: 0.0617 g, P1 = 0.0092 ≤ co2 < P2 = 0.1748 → cleaner 98 → 5.0.
    [100 * KiB, 98, 5, 'Webbsidan genererar väldigt lite koldioxid!'],
    // 3 MiB: 1.8964 g, P27 = 1.8655 ≤ co2 < P28 = 1.9051 → cleaner 72 → 3.6.
    [3 * MiB, 72, 3.6, 'Webbsidan genererar ganska lite koldioxid.'],
    // 4 MiB: 2.5286 g, P40 = 2.4866 ≤ co2 < P41 = 2.5395 → cleaner 59 → 2.95.
    [4 * MiB, 59, 2.95, 'Genomsnittligt när det gäller koldioxid.'],
    // 6 MiB: 3.7929 g, P62 = 3.7816 ≤ co2 < P63 = 3.8722 → cleaner 37 → 1.85.
    [6 * MiB, 37, 1.85, 'Webbsidan genererar en hel del koldioxid :/'],
    // 9 MiB: 5.6893 g, over P79 = 5.6493, under P80 = 5.8333 → cleaner 20 → 1.0.
    [9 * MiB, 20, 1, 'Webbsidan är riktigt dålig! Skapar massor av koldioxid för varje sidvisning :('],
    // 20 MiB: 12.643 g, P94 = 11.937 ≤ co2 < P95 = 13.287 → cleaner 5 → 0.25, clamped to 1.0.
    [20 * MiB, 5, 1, 'Webbsidan är riktigt dålig! Skapar massor av koldioxid för varje sidvisning :('],
  ];
  for (const [bytes, cleaner, rating, band] of cases) {
    const { outcome } = await rate(energy, onePage(bytes), probes);
    t.equal((outcome.data as any).cleaner_than, cleaner, `${bytes} B: cleaner`);
    t.equal(outcome.rating, rating, `${bytes} B: rating`);
    t.equal(outcome.reports.sv.overall.split('\n')[0], band, `${bytes} B: band`);
  }
  // Above P100 (133.6 g, about 211 MiB) no page is dirtier: cleaner 0, rating 1.0.
  const { outcome } = await rate(energy, onePage(220 * MiB), probes);
  t.equal((outcome.data as any).cleaner_than, 0);
  t.equal(outcome.rating, 1);
  t.match(outcome.reports.sv.overall, /grönare än 0 % av testade/);
  t.match(outcome.reports.sv.overall, /Nätverksstorlek: 220\.00 MB/);
});

t.test('only http(s) requests count: data: URLs are already in the resource that holds them', async (t) => {
  const artifacts = page(
    [PAGE, 'Document', MiB, 300_000],
    ['data:image/png;base64,iVBORw0KGgo=', 'Image', 8, 0],
    ['blob:https://kommun.test/5d3e', 'Other', 4_000, 0],
  );
  const { outcome } = await rate(energy, artifacts, probes);
  const data = outcome.data as any;
  t.equal(data.total_byte_weight, MiB);
  t.equal(data.requests, 1);
  t.equal(outcome.rating, 4.7);
});

t.test('nothing recorded is not rated, never 5.0', async (t) => {
  const none = await rate(energy, makeArtifacts(PAGE, { network: [] }), probes);
  t.equal(none.outcome.rating, NOT_RATED);
  t.same(none.outcome.ratings, {});
  t.equal(
    none.outcome.reports.sv.overall,
    'Sidladdningen registrerade inga nätverksanrop, så sidans storlek och koldioxid per sidvisning kunde inte bedömas.\nInte bedömt',
  );
  t.equal(
    none.outcome.reports.en.overall,
    "The page load recorded no network requests, so the page's size and carbon dioxide per page view could not be judged.\nNot rated",
  );
  t.match(none.outcome.data, { total_byte_weight: 0, co2: null, cleaner_than: null, swd_v4: null, sources: [] });

  const failed: NetworkRecord = networkRecord(PAGE, 'Document', { failed: true, status: 0 });
  const empty = await rate(energy, makeArtifacts(PAGE, { network: [failed] }), probes);
  t.equal(empty.outcome.rating, NOT_RATED);
  t.equal(
    empty.outcome.reports.en.overall,
    'The page load recorded 1 network request but no bytes received, so the carbon dioxide per page view could not be judged.\nNot rated',
  );
  t.match(empty.outcome.data, { total_byte_weight: 0, requests: 1, co2: null });
});

t.test('the vendored table: 100 ascending values, the note\'s anchors', async (t) => {
  t.equal(PERCENTILES.length, 100);
  t.ok(PERCENTILES.every((p, i) => i === 0 || p >= PERCENTILES[i - 1]));
  t.equal(PERCENTILES[4], 0.5931347745351668, 'P5');
  t.equal(PERCENTILES[9], 0.9429050784278662, 'P10');
  t.equal(PERCENTILES[49], 3.0115219786119996, 'P50');
  t.equal(PERCENTILES[78], 5.6492551858198645, 'P79');
  t.equal(PERCENTILES[99], 133.62765432748887, 'P100');
});
