/**
 * Conformance: plugin 22's grams against webperf_core's formula worked by hand, its rating
 * against the note's table of anchors (webperf_core-tests-next.md §1, from webperf.se's 2026-06-07
 * percentiles), and its CO2.js figure against @tgwf/co2 called directly with the options the
 * plugin states (its ES module build; the plugin loads the CommonJS one).
 *
 * webperf_core (tests/energy_efficiency.py):
 *   adjusted = b × 0.75 + 0.02 × b × 0.25 = 0.755 b
 *   energy   = adjusted × 1.805 / 1073741824   (kWh; the "GB" is 2^30 bytes)
 *   co2      = energy × 475                    (g)
 *   so co2 = 0.755 × 1.805 × 475 / 2^30 × b = 647.318125 / 2^30 × b, i.e. 647.318125 / 1024 g per MiB.
 * Sustainable Web Design v4 (CO2.js, per visit, not green, global grid 494 g/kWh):
 *   kWh/GB (decimal GB) = operational 0.055 + 0.059 + 0.080 + embodied 0.012 + 0.013 + 0.081 = 0.300
 *   co2 = b / 10^9 × 0.300 × 494 = 1.482e-7 g per byte.
 */
import t, { type Test } from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import energy from '../../plugins/energy-efficiency/index.js';
import { LOOPBACK_GUARD, makeArtifacts } from '../helpers/fixture-artifacts.js';
import { networkRecord } from '../helpers/infosec-tls.js';

const probes = createProbes(LOOPBACK_GUARD);
const PAGE = 'https://kommun.test/';
const MiB = 1024 * 1024;

async function measure(t: Test, decoded: number, transferred: number) {
  const artifacts = makeArtifacts(PAGE, { network: [networkRecord(PAGE, 'Document', { resourceSize: decoded, transferSize: transferred })] });
  const outcome = await runPlugin(energy, artifacts, { probes });
  t.equal(outcome.error, null);
  return { rating: outcome.rating, data: outcome.data as any };
}

const close = (a: number, b: number, relative = 1e-12) => Math.abs(a - b) <= relative * Math.max(Math.abs(a), Math.abs(b));

t.test('webperf_core\'s grams, worked by hand, and the note\'s rating anchors', async (t) => {
  // [bytes, grams by hand, cleaner, rating] — cleaner and rating from the note's table.
  const cases: [number, number, number, number][] = [
    // 1 byte: 647.318125 / 1073741824 = 6.0286198…e-7 g; under P1 (0.0092): cleaner 99 → 5.0.
    [1, 647.318125 / 1073741824, 99, 5],
    // 1 MiB: 647.318125 / 1024 = 0.6321466064453125 g → 94 → 4.7.
    [MiB, 0.6321466064453125, 94, 4.7],
    // 1.5 MiB: 1.5 × 0.6321466064453125 = 0.94821990966796875 g → 89 → 4.45.
    [1.5 * MiB, 0.94821990966796875, 89, 4.45],
    // 2 MiB: 2 × 0.6321466064453125 = 1.264293212890625 g → 84 → 4.2.
    [2 * MiB, 1.264293212890625, 84, 4.2],
    // 5 MiB: 5 × 0.6321466064453125 = 3.1607330322265625 g → 47 → 2.35.
    [5 * MiB, 3.1607330322265625, 47, 2.35],
    // 8 MiB: 8 × 0.6321466064453125 = 5.0571728515625 g → 25 → 1.25.
    [8 * MiB, 5.0571728515625, 25, 1.25],
  ];
  for (const [bytes, grams, cleaner, rating] of cases) {
    const { data, rating: rated } = await measure(t, bytes, bytes);
    t.ok(close(data.co2, grams), `${bytes} B: ${data.co2} g, by hand ${grams} g`);
    t.equal(data.cleaner_than, cleaner, `${bytes} B: cleaner`);
    t.equal(rated, rating, `${bytes} B: rating`);
  }
});

t.test('the CO2.js figure is @tgwf/co2\'s own, with the stated options', async (t) => {
  const { co2: Co2 } = await import('@tgwf/co2' as string);
  const swd = new Co2({ model: 'swd', version: 4, rating: true });
  // [transfer bytes, grams by hand, letter (SWD v4: A+ ≤ 0.040, A ≤ 0.079, B ≤ 0.145, C ≤ 0.209, D ≤ 0.278, E ≤ 0.359, F)]
  const cases: [number, number, string][] = [
    // 200 000 B: 2e5 × 1.482e-7 = 0.02964 g → A+.
    [200_000, 0.02964, 'A+'],
    // 1 MiB: 1 048 576 × 1.482e-7 = 0.1553989632 g → C.
    [MiB, 0.1553989632, 'C'],
    // 3 000 000 B: 0.4446 g → F.
    [3_000_000, 0.4446, 'F'],
  ];
  for (const [bytes, grams, letter] of cases) {
    const { data } = await measure(t, 4 * MiB, bytes);
    const direct = swd.perVisit(bytes, false) as { total: number; rating: string };
    t.same(data.swd_v4, {
      library: '@tgwf/co2',
      library_version: '0.19.0',
      model: 'swd',
      model_version: 4,
      method: 'perVisit',
      green_hosting: false,
      grid_intensity_g_per_kwh: 494,
      bytes: 'transfer_size',
      co2: direct.total,
      rating: direct.rating,
    }, `${bytes} B: the library's figure`);
    t.ok(close(direct.total, grams), `${bytes} B: ${direct.total} g, by hand ${grams} g`);
    t.equal(direct.rating, letter);
    // The rating stays webperf.se's: 4 MiB decoded is 2.95 whatever CO2.js says.
    t.equal(data.cleaner_than, 59);
  }
});
