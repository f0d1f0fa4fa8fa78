/**
 * The Green Web Foundation's CO2.js (@tgwf/co2, Apache-2.0, offline) with the Sustainable Web
 * Design model v4: an extra figure beside webperf.se's, never the rating (its constants differ,
 * so its grams cannot be read against webperf.se's percentile table).
 * Options, all stated in the result: model 'swd' version 4, perVisit with the library's defaults
 * (every view a first view, no return-visit share), green hosting false (the library's check asks
 * the Green Web Foundation's API online, which a test run never does), the model's global grid
 * intensity (494 g/kWh), and the bytes that crossed the network (transfer size), which is what
 * the model's kWh per GB are per. The package ships no type declarations: the surface used is
 * typed here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Co2Constructor {
  new (options: { model: 'swd'; version: 4; rating: true }): {
    /** 0 (a number) below one byte. */
    perVisit(bytes: number, green: boolean): { total: number; rating: string } | number;
  };
}

const requireCjs = createRequire(import.meta.url);
const { co2: Co2 } = requireCjs('@tgwf/co2') as { co2: Co2Constructor };
// The package's exports map hides package.json: read it beside the resolved entry point
// (dist/cjs/index-node.js).
const packageJson = path.join(path.dirname(requireCjs.resolve('@tgwf/co2')), '..', '..', 'package.json');
export const CO2JS_VERSION: string = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;

/** The options the figure is computed with, as stored in json_check_data. */
export const SWD_OPTIONS = {
  library: '@tgwf/co2',
  library_version: CO2JS_VERSION,
  model: 'swd',
  model_version: 4,
  method: 'perVisit',
  green_hosting: false,
  grid_intensity_g_per_kwh: 494,
  bytes: 'transfer_size',
} as const;

const estimator = new Co2({ model: 'swd', version: 4, rating: true });

/** Grams of CO2 per visit for `transferBytes` and the model's letter rating (A+ … F); null without bytes. */
export function swdV4(transferBytes: number): { co2: number; rating: string } | null {
  const out = estimator.perVisit(transferBytes, false);
  return typeof out === 'number' ? null : { co2: out.total, rating: out.rating };
}
