/**
 * `npm run bench`: every benchmark, each measured side by side with its baseline in one run.
 *   1. the pipeline: bare Lighthouse vs our full pipeline vs the naive one-load-per-test way, on
 *      plain http and on https port 443 under a name (through the guard proxy's tunnel);
 *   2. the results API: requests per second and p99 of the results endpoints vs a bare route;
 *   3. the audit: 20 pages of a fixture site vs 20 bare Lighthouse runs vs Unlighthouse;
 *   4. the bulk site import: a 4,000-row file through `webperf sites import` vs the CLI's fixed cost;
 *   5. Lighthouse's configuration as each page load resolves it: the audits' metadata built each
 *      time (Lighthouse's way) vs kept once per process;
 *   6. a run's save with and without its findings kept (issue 31; bench/store.ts);
 *   7. only when named (`npm run bench -- scale [options]`, minutes per step): K simulated runners
 *      against one PostgreSQL, K stepping through 25 to 400 (bench/scale.ts; its options follow
 *      the name, e.g. `-- scale --steps 25,50 --step-seconds 30`).
 * Figures are ratios measured in the same run on the same machine; absolute times vary.
 */
import { benchPipeline } from './pipeline.js';
import { benchApi } from './api.js';
import { benchWebanalytics } from './webanalytics.js';
import { benchAudit } from './audit.js';
import { benchSiteImport } from './site-import.js';
import { benchLighthouseConfig } from './lighthouse-config.js';
import { benchScale, parseScaleArgs } from './scale.js';
import { benchStore } from './store.js';

const args = process.argv.slice(2);
// Names are the arguments before the first option; the options are the scale bench's.
const firstOption = args.findIndex((a) => a.startsWith('--'));
const only = firstOption < 0 ? args : args.slice(0, firstOption);
const want = (name: string) => only.length === 0 || only.includes(name);

console.log(`# webperf benchmarks, ${new Date().toISOString()}, node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
if (want('pipeline')) {
  console.log('\n## Pipeline (issues: foundation, plugins)');
  console.log(await benchPipeline(3));
}
if (want('api')) {
  console.log('\n## Results API (issue: premium API) and the dashboard pages (issue 11)');
  const out = await benchApi({});
  if (typeof out === 'string') console.log(out);
}
if (want('store')) {
  console.log('\n## A run\'s save with its findings kept (issue 31)');
  console.log(await benchStore());
}
if (want('webanalytics')) {
  console.log('\n## Agency analytics CSV (issue 10)');
  console.log(await benchWebanalytics());
}
if (want('audit')) {
  console.log('\n## Audit (issue 9)');
  console.log(await benchAudit());
}
if (want('site-import')) {
  console.log('\n## Bulk site import (issue 22)');
  console.log(await benchSiteImport());
}
if (want('lighthouse-config')) {
  console.log('\n## Lighthouse configuration per page load (issue 28)');
  console.log(await benchLighthouseConfig());
}
if (only.includes('scale')) {
  console.log('\n## Scale-out: runners against one PostgreSQL (issue 30)');
  console.log(await benchScale(parseScaleArgs(firstOption < 0 ? [] : args.slice(firstOption))));
}
process.exit(0);
