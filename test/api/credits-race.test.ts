/**
 * Racing orders for the last credits, over real concurrent HTTP requests to a listening API on a
 * real PostgreSQL: the accepted orders never spend more than remained, each accepted order has its
 * ledger row, run and job, and each refused one is a 400 QUOTA_EXCEEDED that wrote nothing.
 */
import t from 'tap';
import { sql } from '../../core/db/kysely.js';
import type { AddressInfo } from 'node:net';
import type { Db } from '../../core/db/database.js';
import { creditStatus } from '../../core/quota.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

const CEILING = 100;
const ALREADY_USED = 37;
const AVAILABLE = CEILING - ALREADY_USED;

async function arrange(tt: { teardown(fn: () => unknown): void }) {
  const api = await buildTestApi(tt, { rateLimitPerMinute: 100_000 });
  const siteId = await createSite(api.db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/', monthlyQuota: CEILING });
  await api.db.insertInto('credit_ledger').values({ site_id: siteId, credits: ALREADY_USED }).execute();
  const key = (await createKey(api.db, { kind: 'standard', siteIds: [siteId] })).key;
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  return { ...api, siteId, key, base };
}

interface Outcome {
  cost: number;
  status: number;
  body: any;
}

function retest(base: string, key: string, siteId: number): Promise<Outcome> {
  return fetch(`${base}/retest/`, { method: 'POST', headers: { 'api-key': key, 'site-id': String(siteId), testnums: '[30]' } })
    .then(async (r) => ({ cost: 1, status: r.status, body: await r.json() }));
}

function testOnce(base: string, key: string, siteId: number, i: number): Promise<Outcome> {
  const body = new FormData();
  body.append('urls', `https://www.exempel.se/sida-${i}`);
  return fetch(`${base}/test_once/`, { method: 'POST', headers: { 'api-key': key, 'site-id': String(siteId) }, body })
    .then(async (r) => ({ cost: 15, status: r.status, body: await r.json() }));
}

/** Every accepted order has exactly its ledger row, its run(s) and one run_tests job per run. */
async function assertBookkeeping(tt: { equal: typeof t.equal; strictSame: typeof t.strictSame }, db: Db, accepted: Outcome[]) {
  const orders = await db.selectFrom('orders').select(['id', 'credits', 'kind']).orderBy('id').execute();
  tt.equal(orders.length, accepted.length, 'one order row per accepted order');
  tt.strictSame(orders.map((o) => o.id).sort((a, b) => a - b), accepted.map((a) => a.body.order_id).sort((a, b) => a - b), 'the order ids answered are the rows written');
  const ledger = await db.selectFrom('credit_ledger').select(['order_id', 'credits']).where('order_id', 'is not', null).execute();
  tt.strictSame(
    ledger.map((l) => [l.order_id, l.credits]).sort((a, b) => a[0]! - b[0]!),
    orders.map((o) => [o.id, o.credits]),
    'one ledger row per order, with the order\'s credits',
  );
  const runs = await db.selectFrom('test_runs').select(['id', 'order_id']).orderBy('id').execute();
  tt.equal(runs.length, accepted.length, 'one run per accepted order (re-tests and one-URL one-off tests)');
  tt.strictSame(runs.map((r) => r.order_id).sort((a, b) => a! - b!), orders.map((o) => o.id), 'each run belongs to an accepted order');
  const jobs = await sql<{ run_id: number }>`
    select (p.payload->>'runId')::bigint as run_id from graphile_worker.jobs v
    join graphile_worker._private_jobs p on p.id = v.id where v.task_identifier = 'run_tests' order by 1`.execute(db);
  tt.strictSame(jobs.rows.map((j) => Number(j.run_id)), runs.map((r) => r.id), 'one run_tests job per run');
}

t.test(`100 concurrent orders (70 × 1 credit, 30 × 15 credits) for the last ${AVAILABLE} credits`, async (t) => {
  const w = await arrange(t);
  t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: CEILING, used: ALREADY_USED, available: AVAILABLE });
  const calls: Promise<Outcome>[] = [];
  for (let i = 0; i < 100; i++) calls.push(i % 10 < 3 ? testOnce(w.base, w.key, w.siteId, i) : retest(w.base, w.key, w.siteId));
  const outcomes = await Promise.all(calls);

  const accepted = outcomes.filter((o) => o.status === 200);
  const refused = outcomes.filter((o) => o.status !== 200);
  const demanded = outcomes.reduce((s, o) => s + o.cost, 0);
  const spent = accepted.reduce((s, o) => s + o.cost, 0);
  t.equal(demanded, 520);
  // Exactly, not at most: a 1-credit order is refused only when nothing remains, and there are
  // more 1-credit orders (70) than credits (63), so the window always ends full.
  t.equal(spent, Math.min(demanded, AVAILABLE), `accepted orders spend exactly ${AVAILABLE} credits`);
  t.ok(accepted.every((o) => o.body.credits === o.cost), 'each accepted order was charged its cost');
  for (const o of refused) {
    t.equal(o.status, 400);
    t.equal(o.body.error, 'QUOTA_EXCEEDED');
    const m = /^The order needs (\d+) credits?; (\d+) remains? in the current 30-day period\.$/.exec(o.body.message);
    t.ok(m, o.body.message);
    if (m) {
      t.equal(Number(m[1]), o.cost);
      t.ok(Number(m[2]) < o.cost && Number(m[2]) >= 0, `refused only when it did not fit: ${o.body.message}`);
    }
  }
  t.equal(accepted.length + refused.length, 100, 'every call answered 200 or 400 (no 5xx)');
  // The "available" each accepted order reports is distinct: they were applied one after another.
  const after = accepted.map((o) => o.body.available);
  t.equal(new Set(after).size, after.length, 'no two accepted orders saw the same remaining credits');
  t.ok(after.every((a) => a >= 0));
  t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: CEILING, used: CEILING, available: 0 });
  await assertBookkeeping(t, w.db, accepted);
});

t.test('40 concurrent 15-credit orders for 63 credits: exactly 4 pass, 3 credits stay', async (t) => {
  const w = await arrange(t);
  const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => testOnce(w.base, w.key, w.siteId, i)));
  const accepted = outcomes.filter((o) => o.status === 200);
  t.equal(accepted.length, 4);
  t.equal(accepted.reduce((s, o) => s + o.cost, 0), 60);
  t.ok(outcomes.filter((o) => o.status !== 200).every((o) => o.status === 400 && o.body.error === 'QUOTA_EXCEEDED'));
  t.strictSame(
    outcomes.filter((o) => o.status !== 200).map((o) => o.body.message).filter((m, i, all) => all.indexOf(m) === i),
    ['The order needs 15 credits; 3 remain in the current 30-day period.'],
    'every refusal saw the final state or a state it could not fit in',
  );
  t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: CEILING, used: 97, available: 3 });
  await assertBookkeeping(t, w.db, accepted);
});

t.test('control: the site-row lock is what serialises (check-then-write without it oversells)', async (t) => {
  const w = await arrange(t);
  // The order transaction's shape, with a pause between the check and the write so that racing
  // transactions interleave. Without the lock all of them read 63 available and all write.
  const naive = (lock: boolean) =>
    w.db.transaction().execute(async (trx) => {
      const status = await creditStatus(trx, w.siteId, { lock });
      await sql`select pg_sleep(0.05)`.execute(trx);
      if (status!.available < 15) return false;
      await trx.insertInto('credit_ledger').values({ site_id: w.siteId, credits: 15 }).execute();
      return true;
    });
  const unlocked = (await Promise.all(Array.from({ length: 10 }, () => naive(false)))).filter(Boolean).length;
  t.ok(unlocked > 4, `without the lock ${unlocked} of 10 pass: more than the 4 that fit`);
  await w.db.deleteFrom('credit_ledger').where('credits', '=', 15).execute();
  const locked = (await Promise.all(Array.from({ length: 10 }, () => naive(true)))).filter(Boolean).length;
  t.equal(locked, 4, 'with the lock exactly 4 pass');
  t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: CEILING, used: 97, available: 3 });
});
