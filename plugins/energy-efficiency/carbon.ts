/**
 * webperf.se's carbon model (webperf_core tests/energy_efficiency.py, built from Wholegrain's old
 * "carbon-api-2-0") and its percentile walk, kept operation for operation so that the grams and
 * the rating match webperf.se's for the same byte count. The percentile table is webperf.se's
 * own, vendored in carbon-percentiles.json (source, date and licence there and in README.md).
 */
import table from './carbon-percentiles.json' with { type: 'json' };

/** The constants of the model, as webperf_core names them. */
export const MODEL = {
  /** kWh per "GB"; the GB is 2^30 bytes in webperf_core's code. */
  KWG_PER_GB: 1.805,
  BYTES_PER_GB: 1073741824,
  /** Grams of CO2 per kWh of the grid. */
  CARBON_PER_KWG_GRID: 475,
  RETURNING_VISITOR_PERCENTAGE: 0.75,
  FIRST_TIME_VIEWING_PERCENTAGE: 0.25,
  PERCENTAGE_OF_DATA_LOADED_ON_SUBSEQUENT_LOAD: 0.02,
} as const;

/** The date webperf.se generated the percentile table. */
export const REFERENCE_DATE: string = table.generated;
/** Where the table comes from. */
export const REFERENCE_SOURCE = table.source;
/** Grams of CO2 at percentiles 1..100 (index 0 is percentile 1), ascending. */
export const PERCENTILES: readonly number[] = table.percentiles;

if (PERCENTILES.length !== 100 || PERCENTILES.some((p, i) => i > 0 && p < PERCENTILES[i - 1])) {
  throw new Error('carbon-percentiles.json must hold 100 ascending values');
}

/**
 * Grams of CO2 per page view for `bytes` (webperf_core's convert_2_co2). The weighting gives the
 * returning visitors' share (0.75) the full byte count and the first-time visitors' share (0.25)
 * 2 % of it, the reverse of what the names suggest; the percentile table was computed with this
 * formula, so it is kept as it is for the rating to stay comparable.
 */
export function co2PerView(bytes: number): number {
  const m = MODEL;
  const adjusted = bytes * m.RETURNING_VISITOR_PERCENTAGE + m.PERCENTAGE_OF_DATA_LOADED_ON_SUBSEQUENT_LOAD * bytes * m.FIRST_TIME_VIEWING_PERCENTAGE;
  const energy = adjusted * (m.KWG_PER_GB / m.BYTES_PER_GB);
  return energy * m.CARBON_PER_KWG_GRID;
}

/**
 * Percent (0..99, an integer) of the pages in the table that emit more than `co2`: with k the
 * first percentile whose value is strictly above co2, 100 − k; 0 when none is. A co2 equal to
 * P[k] is therefore in the next bucket (100 − (k + 1)), as upstream's strict `<` has it.
 * Upstream computes (100 − k) / 100 × 100 in floating point and truncates it for its text
 * (k = 42 reads "57 %"); the integer here is exact.
 */
export function cleanerThan(co2: number): number {
  const k = PERCENTILES.findIndex((p) => co2 < p);
  return k === -1 ? 0 : 100 - (k + 1);
}

/** Rating from the percent cleaner: 5 × cleaner / 100 to two decimals, 5.0 from 95 up, at least 1.0. */
export function carbonRating(cleaner: number): number {
  if (cleaner >= 95) return 5;
  return Math.max(1, Math.round(5 * cleaner) / 100);
}

/** The band of upstream's first review line. */
export type CarbonBand = 'very-good' | 'good' | 'ok' | 'bad' | 'very-bad';

export function carbonBand(cleaner: number): CarbonBand {
  if (cleaner >= 90) return 'very-good';
  if (cleaner >= 70) return 'good';
  if (cleaner >= 50) return 'ok';
  if (cleaner >= 30) return 'bad';
  return 'very-bad';
}

/** Upstream's format_bytes: 1024-based, KB below 1 MB, two decimals. */
export function formatBytes(size: number): { value: string; unit: 'KB' | 'MB' | 'GB' | 'TB' } {
  const units = [['TB', 1024 ** 4], ['GB', 1024 ** 3], ['MB', 1024 ** 2]] as const;
  for (const [unit, factor] of units) {
    if (size / factor >= 1) return { value: (size / factor).toFixed(2), unit };
  }
  return { value: (size / 1024).toFixed(2), unit: 'KB' };
}
