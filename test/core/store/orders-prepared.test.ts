/**
 * An order is one call of the SQL function place_order, prepared once per connection (pg's named
 * statement, core/db/database.ts executePrepared): over a real PostgreSQL, the prepared call and
 * the same call inside a transaction give the same answers, and the connection holds the
 * prepared statement afterwards.
 */
import { sql } from '../../../core/db/kysely.js';
import t from 'tap';
import { createDb } from '../../../core/db/database.js';
import { placeOrder } from '../../../core/store/orders.js';
import { createTestDb } from '../../helpers/db.js';
import { seedSite } from '../../helpers/seed.js';

const { url } = await createTestDb(t);
// One connection: what it holds is what the orders used.
const db = createDb(url, { max: 1 });
t.teardown(() => db.destroy());

const retest = (siteId: number, credits: number) => ({
  siteId, keyId: null, kind: 'retest' as const, credits, payload: { url: null, test_types: [30] },
  runs: [{ siteId, url: null, private: false, testTypes: [30] }],
});

t.test('orders through the prepared statement and inside a transaction answer alike', async (t) => {
  const siteId = await seedSite(db, { title: 'Förberedd kommun', url: 'https://forberedd.example/', monthlyQuota: 3 });
  const first = await placeOrder(db, retest(siteId, 2));
  t.match(first, { siteUrl: 'https://forberedd.example/', credits: 2, available: 1 });
  t.equal(first.runIds.length, 1);
  await t.rejects(placeOrder(db, retest(siteId, 2)), { code: 'QUOTA_EXCEEDED', details: { needed: 2, available: 1 } }, 'refused: 1 credit left');
  await t.rejects(placeOrder(db, retest(2147483647, 1)), { code: 'SITE_NOT_FOUND' });
  // With a precheck the call runs in a transaction, as plain text on the transaction's connection.
  let prechecked = 0;
  const last = await placeOrder(db, { ...retest(siteId, 1), precheck: async () => void prechecked++ });
  t.match(last, { credits: 1, available: 0 });
  t.equal(prechecked, 1);
  const charged = await db.selectFrom('credit_ledger').select((eb) => eb.fn.sum<number>('credits').as('n')).where('site_id', '=', siteId).executeTakeFirstOrThrow();
  t.equal(Number(charged.n), 3, 'charged once per accepted order');
  const prepared = await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(db);
  t.strictSame(prepared.rows.map((r) => r.name), ['webperf_place_order_2'], 'the connection holds the prepared call');
});
