/**
 * CI-sized chaos load run (chaos/scenarios/load-orders.ts at scale): 10 sites, each with its own
 * key and 10 credits, race 150 orders (re-tests of 1 credit, one-off tests of 15) over 16
 * concurrent loopback connections to the listening API on a real PostgreSQL. Every site ends with
 * exactly its ceiling spent (there are more 1-credit orders than credits), no credit past it,
 * every accepted order booked once, every other answer a 400 QUOTA_EXCEEDED. No timing asserted.
 */
import t from 'tap';
import type { AddressInfo } from 'node:net';
import { creditStatus } from '../../core/quota.js';
import { arrangeOrderSites, raceOrders } from '../../chaos/load.js';
import { buildTestApi } from '../helpers/api.js';

t.test('150 racing orders of 10 keys for 10 × 10 credits: zero overspend, zero errors', async (t) => {
  const { app, db } = await buildTestApi(t, { rateLimitPerMinute: 100_000_000 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const sites = await arrangeOrderSites(db, 10, 10);
  const r = await raceOrders({ base, db, sites, orders: 150, connections: 16, signal: AbortSignal.timeout(120_000) });
  t.same(r.firstErrors, []);
  t.equal(r.errors, 0, 'every answer a 200 or a 400 QUOTA_EXCEEDED');
  t.equal(r.orders, 150);
  t.equal(r.accepted + r.refused, 150);
  t.equal(r.overspend, 0, 'no credit charged past a ceiling');
  t.equal(r.orphans, 0, 'each accepted order has its order row, ledger row and run; nothing else was written');
  t.equal(r.wronglyRefused, 0);
  for (const s of sites) {
    t.strictSame(await creditStatus(db, s.siteId), { siteId: s.siteId, ceiling: 10, used: 10, available: 0 }, `site ${s.siteId} spent exactly its ceiling`);
  }
  t.equal(Number((await db.selectFrom('orders').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), r.accepted);
});
