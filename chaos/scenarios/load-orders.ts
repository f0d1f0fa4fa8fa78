/**
 * Load: credit-checked orders. 200 sites, each with its own key and 10 credits, and 6,000 orders
 * (re-tests of 1 credit, one-off tests of 15) raced over 64 keep-alive connections (at most 90 s) to the real API
 * on loopback: the orders per second it accepts or refuses, and the books afterwards. Goal: at
 * least 1,000 orders/s, no credit charged past a ceiling, every accepted order booked exactly once,
 * no answer but 200 or 400 QUOTA_EXCEEDED. Also the CPU each party (API process, PostgreSQL, this
 * load generator) spent per order, which bounds the rate when the cores are saturated.
 *
 *   npm run chaos -- load-orders
 */
import os from 'node:os';
import type { ChaosScenario } from '../scenario.js';
import { arrangeOrderSites, raceOrders, startLoadService } from '../load.js';

export const ORDERS_GOAL_PER_SECOND = 1000;

const scenario: ChaosScenario = {
  name: 'load-orders',
  budgetMs: 300_000,
  async run({ signal, log }) {
    const service = await startLoadService({ signal, log });
    try {
      const sites = await arrangeOrderSites(service.db, 200, 10);
      // Warm-up (JIT, connections, plans) on sites of their own, then the measured race.
      const warm = await arrangeOrderSites(service.db, 20, 100);
      await raceOrders({ base: service.base, db: service.db, sites: warm, orders: 1_000, connections: 64, durationMs: 20_000, signal });
      const cpu0 = { ...(await service.cpu()), load: process.cpuUsage() };
      let cpu1 = cpu0;
      // Read as the race ends, before the books are checked (their queries cost PostgreSQL ~0.1 ms
      // per order of the race, counted to the orders until 2026-11-25).
      const atRaceEnd = async () => {
        cpu1 = { ...(await service.cpu()), load: process.cpuUsage(cpu0.load) };
      };
      const r = await raceOrders({ base: service.base, db: service.db, sites, orders: 6_000, connections: 64, durationMs: 90_000, signal, atRaceEnd });
      // CPU per order of each party on the shared cores: what bounds the rate when they are saturated.
      const perOrder = (a: number | null, b: number | null) => (a === null || b === null ? 'n/a' : (((b - a) * 1000) / r.orders).toFixed(2));
      const cpu = `${perOrder(cpu0.api, cpu1.api)}; ${perOrder(cpu0.postgres, cpu1.postgres)}; ${perOrder(0, (cpu1.load.user + cpu1.load.system) / 1e6)}`;
      log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (${os.cpus().length} cores); CPU ms per order (API; PostgreSQL; load generator): ${cpu}`);
      log(`${r.orders} orders in ${r.seconds.toFixed(1)} s: ${r.accepted} accepted, ${r.refused} refused, ${r.errors} errors; overspend ${r.overspend}, orphans ${r.orphans}, wrongly refused ${r.wronglyRefused}`);
      for (const e of r.firstErrors) log(`error: ${e}`);
      const books = r.overspend + r.orphans + r.wronglyRefused;
      const what = `${r.orders.toLocaleString('en')} orders from 200 keys racing for 200 × 10 credits, 64 connections`;
      return [
        { area: 'load', scenario: what, figure: `orders/s (goal ≥ ${ORDERS_GOAL_PER_SECOND})`, value: `${Math.round(r.ordersPerSecond).toLocaleString('en')} (${r.accepted} accepted, ${r.refused} refused)`, dataLost: books, ok: r.ordersPerSecond >= ORDERS_GOAL_PER_SECOND && r.errors === 0 && books === 0 },
        { area: 'load', scenario: what, figure: 'p99 ms per order', value: r.p99Ms.toFixed(1), dataLost: 0, ok: true },
        { area: 'load', scenario: what, figure: 'CPU ms per order: API; PostgreSQL; load generator', value: cpu, dataLost: 0, ok: true },
        { area: 'load', scenario: what, figure: 'credits overspent; errors', value: `${r.overspend}; ${r.errors}`, dataLost: r.overspend, ok: r.overspend === 0 && r.errors === 0 },
      ];
    } finally {
      await service.stop();
    }
  },
};

export default scenario;
