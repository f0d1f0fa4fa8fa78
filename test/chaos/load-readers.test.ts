/**
 * CI-sized chaos load run (chaos/scenarios/load-readers.ts at scale): 30 concurrent readers of the
 * results endpoints of 10 sites, 200 reads over loopback to the listening API, while results are
 * stored (saveRunResults, as a runner does) and re-test orders placed. Every read answers 200; no
 * write fails; what was written is there afterwards. No timing asserted.
 */
import t from 'tap';
import type { AddressInfo } from 'node:net';
import { arrangeOrderSites, readWhileWriting, readerPaths } from '../../chaos/load.js';
import { buildTestApi } from '../helpers/api.js';

t.test('30 concurrent readers, 200 reads, while results and orders are written: no errors', async (t) => {
  const { app, db } = await buildTestApi(t, { rateLimitPerMinute: 100_000_000 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const sites = await arrangeOrderSites(db, 10, 1_000_000);
  const r = await readWhileWriting({ base, db, sites, readers: 30, reads: 200, minWrites: 5, signal: AbortSignal.timeout(120_000) });
  t.same(r.firstErrors, []);
  t.equal(r.reads, 200);
  t.equal(r.errors, 0, 'every read answered 200');
  t.equal(r.writeErrors, 0);
  t.ok(r.resultsStored >= 5 && r.ordersPlaced >= 5, `written meanwhile: ${r.resultsStored} results, ${r.ordersPlaced} orders`);
  t.equal(Number((await db.selectFrom('test_results').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 2 * r.resultsStored, 'every stored result is there (two per run)');
  t.equal(Number((await db.selectFrom('orders').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), r.ordersPlaced, 'every order accepted (credits to spare)');
  // A reader sees what was written: the latest results of a written site.
  const site = sites[0];
  const res = await app.inject({ url: readerPaths(site.siteId)[0], headers: { 'api-key': site.key } });
  t.equal(res.statusCode, 200);
  t.same(res.json().data.map((d: { type_of_test: number }) => d.type_of_test), [30, 101]);
});
