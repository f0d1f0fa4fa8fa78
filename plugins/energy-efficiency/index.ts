/**
 * Type 22: energy efficiency, as webperf.se rates it (webperf_core tests/energy_efficiency.py).
 *
 * What is judged: the bytes of the one page load. The sum over the page's network records (first
 * and third party, every http(s) request of the load) of the decoded body size
 * (NetworkRecord.resourceSize: the DevTools log's Network.dataReceived, what a HAR calls
 * content.size), the field upstream sums; the transfer size (encoded, headers included) is
 * reported beside it. data: and blob: URLs are left out: their bytes are already in the document
 * or stylesheet that holds them, or were made in the page, and never crossed the network.
 *
 * How it is rated (overall only, no category; upstream calls set_overall alone):
 * - CO2 per page view with upstream's constants (Wholegrain's old carbon-api-2-0, carbon.ts):
 *   (b × 0.75 + 0.02 × b × 0.25) × 1.805 / 2^30 × 475 g, about 0.632 g per MiB.
 * - cleaner = 100 − k for the first percentile k of webperf.se's table (2026-06-07, 100 values,
 *   carbon-percentiles.json) with co2 < P[k] (strict: co2 == P[k] is in the next bucket), 0 above
 *   them all; rating = 5 × cleaner / 100 to two decimals, 5.0 from 95 up, at least 1.0.
 * - Nothing recorded (no request, or no byte received) is NOT_RATED, never a 5.0 for an empty page.
 *
 * @tgwf/co2 (CO2.js): its models do not reproduce webperf.se's grams (SWD v4 counts 0.3 kWh per
 * decimal GB at 494 g/kWh; v3 0.81 kWh/GB), so a figure of it cannot be placed in webperf.se's
 * percentile table. The rating and the report's grams therefore use upstream's formula, comparable
 * with webperf.se; CO2.js's Sustainable Web Design v4 figure and its letter rating (A+ … F) are
 * extra data (`swd_v4`, with the options it was computed with: swd.ts).
 *
 * Deviations from upstream:
 * - The percent in "grönare än N %" is the exact integer 100 − k; upstream computes it in
 *   floating point and truncates, so it reads one less for k = 42, 43 and 71 (57, 56 and 28 %).
 *   The rating is the same.
 * - The size line says it is the decoded size and adds the transfer size (upstream's label
 *   "Nätverksstorlek" alone reads as the bytes on the wire).
 * - No HAR of a separate sitespeed.io run: the shared page load's network log is read, once.
 */
import { definePlugin, NOT_RATED } from '../../core/plugin-api.js';
import { round } from '../../core/rating.js';
import { carbonBand, carbonRating, cleanerThan, co2PerView, formatBytes, MODEL, REFERENCE_DATE, REFERENCE_SOURCE } from './carbon.js';
import { meta } from './meta.js';
import { STRINGS } from './strings.js';
import { SWD_OPTIONS, swdV4 } from './swd.js';

const REFERENCE = { date: REFERENCE_DATE, population: 'webperf.se', ...REFERENCE_SOURCE };

const CARBON_MODEL = {
  name: 'webperf_core (Wholegrain carbon-api-2-0)',
  kwh_per_gb: MODEL.KWG_PER_GB,
  bytes_per_gb: MODEL.BYTES_PER_GB,
  grid_g_per_kwh: MODEL.CARBON_PER_KWG_GRID,
  returning_visitor_share: MODEL.RETURNING_VISITOR_PERCENTAGE,
  first_time_share: MODEL.FIRST_TIME_VIEWING_PERCENTAGE,
  subsequent_load_share: MODEL.PERCENTAGE_OF_DATA_LOADED_ON_SUBSEQUENT_LOAD,
};

export default definePlugin({
  meta,
  run(artifacts) {
    const records = artifacts.network.filter((r) => /^https?:/i.test(r.url));
    const sources = records.map((r, i) => ({ url: r.url, index: i + 1, size: r.resourceSize, transfer_size: r.transferSize }));
    const totalBytes = sources.reduce((sum, s) => sum + s.size, 0);
    const transferBytes = sources.reduce((sum, s) => sum + s.transfer_size, 0);
    const base = { total_byte_weight: totalBytes, transfer_size: transferBytes, requests: records.length, reference: REFERENCE, model: CARBON_MODEL };

    if (records.length === 0 || totalBytes === 0) {
      return {
        rating: NOT_RATED,
        ratings: {},
        findings: [],
        summary: records.length === 0 ? STRINGS.noRequests : STRINGS.noBytes(records.length),
        data: { ...base, co2: null, cleaner_than: null, swd_v4: null, sources },
      };
    }

    const co2 = co2PerView(totalBytes);
    const cleaner = cleanerThan(co2);
    const swd = swdV4(transferBytes);
    return {
      rating: carbonRating(cleaner),
      ratings: {},
      findings: [],
      summary: STRINGS.summary({
        band: carbonBand(cleaner),
        grams: round(co2, 2).toFixed(2),
        cleaner,
        referenceDate: REFERENCE_DATE,
        size: formatBytes(totalBytes),
        transferred: formatBytes(transferBytes),
      }),
      data: { ...base, co2, cleaner_than: cleaner, swd_v4: swd ? { ...SWD_OPTIONS, ...swd } : null, sources },
    };
  },
});
