/**
 * Load: 200 concurrent readers of the results endpoints (/stats/{id}, /stats_per_month/{id},
 * /private_stats/{id}, /item/{id}, /stats/, /0.1/stats/{id}) of 100 sites, 20,000 reads or 60 s
 * whichever ends first, while
 * results are stored one site after another (saveRunResults, as a runner does) and re-test orders
 * are placed over HTTP. Goal: no errors; the readers' p99 is recorded.
 *
 *   npm run chaos -- load-readers
 */
import type { ChaosScenario } from '../scenario.js';
import { arrangeOrderSites, readWhileWriting, startLoadService } from '../load.js';

const scenario: ChaosScenario = {
  name: 'load-readers',
  budgetMs: 180_000,
  async run({ signal, log }) {
    const service = await startLoadService({ signal, log });
    try {
      const sites = await arrangeOrderSites(service.db, 100, 1_000_000);
      await readWhileWriting({ base: service.base, db: service.db, sites, readers: 200, reads: 2_000, durationMs: 15_000, signal });
      const r = await readWhileWriting({ base: service.base, db: service.db, sites, readers: 200, reads: 20_000, durationMs: 60_000, signal });
      log(`${r.reads} reads at ${Math.round(r.readsPerSecond)}/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ${r.errors} errors; meanwhile ${r.resultsStored} results stored, ${r.ordersPlaced} orders placed, ${r.writeErrors} write errors`);
      for (const e of r.firstErrors) log(`error: ${e}`);
      const what = `200 concurrent readers, ${r.reads.toLocaleString('en')} reads, while ${r.resultsStored} results and ${r.ordersPlaced} orders were written`;
      return [
        { area: 'load', scenario: what, figure: 'p99 ms (p50)', value: `${r.p99Ms.toFixed(1)} (${r.p50Ms.toFixed(1)}), ${Math.round(r.readsPerSecond).toLocaleString('en')} reads/s`, dataLost: 0, ok: true },
        { area: 'load', scenario: what, figure: 'errors (reads; writes)', value: `${r.errors}; ${r.writeErrors}`, dataLost: r.writeErrors, ok: r.errors === 0 && r.writeErrors === 0 },
      ];
    } finally {
      await service.stop();
    }
  },
};

export default scenario;
