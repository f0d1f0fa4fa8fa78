/**
 * Storing a run's results: exactly once, nothing from an aborted attempt, failed only when no
 * attempt is left, and analytics detections from the analytics plugin's results only.
 */
import t from 'tap';
import { ANALYTICS_TYPE_OF_TEST } from '../../../core/analytics.js';
import { markRun, saveRunResults } from '../../../core/store/runs.js';
import { executeRun } from '../../../core/engine.js';
import { PluginRegistry } from '../../../core/registry.js';
import { LOOPBACK_GUARD } from '../../helpers/fixture-artifacts.js';
import { createTestDb } from '../../helpers/db.js';
import { outcome, seedSite } from '../../helpers/seed.js';
import type { Db } from '../../../core/db/database.js';

async function openRun(db: Db, siteId: number, withOrder = false) {
  const order = withOrder
    ? await db.insertInto('orders').values({ site_id: siteId, kind: 'retest', credits: 1, status: 'running' }).returning('id').executeTakeFirstOrThrow()
    : null;
  const run = await db
    .insertInto('test_runs')
    .values({ site_id: siteId, url: 'https://a.example/', status: 'running', order_id: order?.id ?? null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { runId: Number(run.id), orderId: order ? Number(order.id) : null };
}

const count = async (db: Db, table: 'test_results' | 'monthly_scores' | 'analytics_detections') =>
  Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

t.test('a second attempt of a stored run stores nothing; an aborted attempt stores nothing', async (t) => {
  const { db } = await createTestDb(t);
  const siteId = await seedSite(db, { title: 'a', url: 'https://a.example/' });
  const { runId, orderId } = await openRun(db, siteId, true);

  const aborted = AbortSignal.abort(new Error('late'));
  await t.rejects(saveRunResults(db, runId, [outcome(30, 4, { pagespeed: 4 })], new Date(), aborted), { message: 'late' });
  t.equal(await count(db, 'test_results'), 0, 'the aborted attempt stored nothing');

  const both = await Promise.all([
    saveRunResults(db, runId, [outcome(30, 4, { pagespeed: 4 })]),
    saveRunResults(db, runId, [outcome(30, 3, { pagespeed: 3 })]),
  ]);
  t.same(both.map((ids) => ids.length).sort(), [0, 1], 'two attempts at once: one stores, the other finds the run done');
  t.equal(await count(db, 'test_results'), 1);
  const monthly = await db.selectFrom('monthly_scores').select(['type_of_score', 'score_count']).orderBy('type_of_score').execute();
  t.same(monthly, [{ type_of_score: 'kat-perf', score_count: 1 }, { type_of_score: 'kat-total', score_count: 1 }], 'monthly scores counted once');
  t.same(await saveRunResults(db, runId, [outcome(30, 2, { pagespeed: 2 })]), [], 'a later attempt stores nothing');
  t.equal((await db.selectFrom('orders').select('status').where('id', '=', orderId!).executeTakeFirstOrThrow()).status, 'done');

  await markRun(db, runId, 'failed', 'a late failure');
  const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
  t.same(run, { status: 'done', error: null }, 'a late failing attempt does not undo a stored run');
  t.equal((await db.selectFrom('orders').select('status').where('id', '=', orderId!).executeTakeFirstOrThrow()).status, 'done');
});

t.test('a run and its order fail only when no attempt is left', async (t) => {
  const { db } = await createTestDb(t);
  const siteId = await seedSite(db, { title: 'a', url: 'https://a.example/' });
  const { runId, orderId } = await openRun(db, siteId, true);
  await markRun(db, runId, 'queued', 'first attempt failed');
  t.same(await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow(), { status: 'queued', error: 'first attempt failed' });
  t.equal((await db.selectFrom('orders').select('status').where('id', '=', orderId!).executeTakeFirstOrThrow()).status, 'running', 'the order waits for the retry');
  await markRun(db, runId, 'failed', 'last attempt failed');
  t.same(await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow(), { status: 'failed', error: 'last attempt failed' });
  t.equal((await db.selectFrom('orders').select('status').where('id', '=', orderId!).executeTakeFirstOrThrow()).status, 'failed');
});

t.test('only the analytics plugin\'s results feed the analytics detections', async (t) => {
  const { db } = await createTestDb(t);
  const siteId = await seedSite(db, { title: 'a', url: 'https://a.example/' });
  const { runId } = await openRun(db, siteId);
  await saveRunResults(db, runId, [
    outcome(ANALYTICS_TYPE_OF_TEST, 3, { infosec: 3 }, { tools: ['Matomo'] }),
    outcome(30, 4, { pagespeed: 4 }, { tools: ['Not an analytics tool'] }),
  ]);
  const detections = await db.selectFrom('analytics_detections').select(['tool', 'run_id']).execute();
  t.same(detections.map((d) => ({ ...d, run_id: Number(d.run_id) })), [{ tool: 'Matomo', run_id: runId }]);
  t.equal(ANALYTICS_TYPE_OF_TEST, 101);
});

t.test("a run's results go in as one statement per table, however many test types it has; the monthly sums stay exact", async (t) => {
  const { db } = await createTestDb(t);
  const siteId = await seedSite(db, { title: 'a', url: 'https://a.example/' });
  /** The statements a storing sends, counted by a kysely plugin on the database it is given. */
  const counted = () => {
    let statements = 0;
    const counting = db.withPlugin({
      transformQuery: (args) => {
        statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    return { db: counting, statements: () => statements };
  };
  const date = new Date('2026-11-10T12:00:00Z');
  const one = counted();
  await saveRunResults(one.db, (await openRun(db, siteId)).runId, [outcome(ANALYTICS_TYPE_OF_TEST, 4, { pagespeed: 4 }, { tools: ['Matomo'] })], date);
  const many = counted();
  const types = [
    outcome(ANALYTICS_TYPE_OF_TEST, 3.5, { infosec: 3.5 }, { tools: ['Matomo', 'Google Analytics'] }),
    outcome(30, 4.25, { pagespeed: 4.25, a11y: 4.5 }),
    outcome(21, 2.75, { infosec: 2.75, webstandard: 3 }),
    outcome(24, 1.1, { infosec: 1.1 }),
    outcome(31, 4.42, { infosec: 4.42 }),
  ];
  const ids = await saveRunResults(many.db, (await openRun(db, siteId)).runId, types, date);
  t.equal(many.statements(), one.statements(), `${types.length} test types cost the statements of one (${one.statements()})`);
  const stored = await db.selectFrom('test_results').select(['id', 'type_of_test', 'rating']).where('id', 'in', ids).execute();
  t.strictSame(ids.map((id) => stored.find((r) => r.id === id)?.type_of_test), types.map((o) => o.typeOfTest), 'the ids in the outcomes\' order');
  const monthly = await db.selectFrom('monthly_scores').select(['type_of_score', 'score_sum', 'score_count']).where('site_id', '=', siteId).orderBy('type_of_score').execute();
  t.strictSame(monthly.map((m) => [m.type_of_score, String(m.score_sum), Number(m.score_count)]), [
    ['kat-a11y', '4.5', 1],
    ['kat-infosec', '11.77', 4], // 3.5 + 2.75 + 1.1 + 4.42, exactly
    ['kat-perf', '8.25', 2], // 4 from the first run, 4.25
    ['kat-total', '20.02', 6], // 4 + 3.5 + 4.25 + 2.75 + 1.1 + 4.42
    ['kat-webstandard', '3', 1],
  ]);
  t.equal(await count(db, 'analytics_detections'), 3, "the first run's tool and both of the second's, one row each");
  const latest = await db.selectFrom('latest_results').select(['type_of_test', 'result_id']).where('site_id', '=', siteId).orderBy('type_of_test').execute();
  t.strictSame(latest.map((l) => [l.type_of_test, l.result_id]), [...types].sort((a, b) => a.typeOfTest - b.typeOfTest).map((o) => [o.typeOfTest, ids[types.indexOf(o)]]), 'each type\'s latest result is this run\'s');
});

t.test('a type the runner could not run (a program missing): stored with the run, not the latest result, its re-test credit given back', async (t) => {
  const { db } = await createTestDb(t);
  const siteId = await seedSite(db, { title: 'a', url: 'https://a.example/' });
  // An earlier run rated type 32 on a runner that had Zonemaster.
  const first = await openRun(db, siteId);
  const [earlier] = await saveRunResults(db, first.runId, [outcome(32, 3.5, { infosec: 5 })], new Date(Date.now() - 60_000));
  const { runId, orderId } = await openRun(db, siteId, true);
  await db.updateTable('orders').set({ credits: 2 }).where('id', '=', orderId!).execute();
  await db.insertInto('credit_ledger').values({ site_id: siteId, order_id: orderId!, credits: 2 }).execute();
  const missing = { ...outcome(32, -1), error: 'not available on this runner: zonemaster-cli is missing (zonemaster-cli is not on the PATH)', unavailable: 'zonemaster-cli' };
  const ids = await saveRunResults(db, runId, [outcome(24, 4, { infosec: 4 }), missing]);
  t.equal(ids.length, 2, 'both outcomes stored with the run');
  const latest = await db.selectFrom('latest_results').select(['type_of_test', 'result_id']).where('site_id', '=', siteId).orderBy('type_of_test').execute();
  t.same(latest.map((l) => [l.type_of_test, Number(l.result_id)]), [[24, Number(ids[0])], [32, Number(earlier)]], "type 32's latest result is still the rated one");
  const ledger = await db.selectFrom('credit_ledger').select('credits').where('order_id', '=', orderId!).orderBy('id').execute();
  t.same(ledger.map((l) => l.credits), [2, -1], 'the order cost 2; the type not run is given back');
  t.same(await saveRunResults(db, runId, [missing]), [], 'stored once, given back once');
  t.same((await db.selectFrom('credit_ledger').select('credits').where('order_id', '=', orderId!).execute()).length, 2);
  // A one-off test is priced per page: nothing given back.
  const once = await db.insertInto('orders').values({ site_id: siteId, kind: 'test_once', credits: 15, status: 'running' }).returning('id').executeTakeFirstOrThrow();
  const onceRun = await db.insertInto('test_runs').values({ site_id: siteId, url: 'https://a.example/x', status: 'running', private: true, order_id: once.id }).returning('id').executeTakeFirstOrThrow();
  await saveRunResults(db, Number(onceRun.id), [missing]);
  t.same((await db.selectFrom('credit_ledger').select('credits').where('order_id', '=', once.id).execute()).length, 0);
});

t.test("a category's averages: written after the run's save has committed, never holding it up; a later attempt writes them when the first could not", async (t) => {
  const { db } = await createTestDb(t);
  const siteId = await seedSite(db, { title: 'a', url: 'https://a.example/', categories: ['Kommun'] });
  const other = await seedSite(db, { title: 'b', url: 'https://b.example/', categories: ['Kommun'] });
  const category = await db.selectFrom('categories').select('id').where('title', '=', 'Kommun').executeTakeFirstOrThrow();
  const averages = async () => (await db.selectFrom('category_scores').select(['pagespeed']).where('category_id', '=', category.id).executeTakeFirst())?.pagespeed ?? null;
  const first = await openRun(db, other);
  await saveRunResults(db, first.runId, [outcome(30, 2, { pagespeed: 2 })]);
  t.equal(Number(await averages()), 2, 'one site: its score');

  // Another transaction holds the category's row (as another run's averages being written): the
  // save commits without waiting for it; its averages wait, and are written once the row is free.
  const { runId } = await openRun(db, siteId);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = db.transaction().execute(async (trx) => {
    await trx.selectFrom('category_scores').select('category_id').where('category_id', '=', category.id).forUpdate().execute();
    locked();
    await held;
  });
  await isLocked;
  const saving = saveRunResults(db, runId, [outcome(30, 4, { pagespeed: 4 })]);
  let stored = false;
  for (let i = 0; i < 200 && !stored; i++) {
    stored = (await db.selectFrom('test_runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow()).status === 'done';
    if (!stored) await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(stored, 'the run is stored while the category row is held');
  t.equal(await count(db, 'test_results'), 2, 'its result with it');
  t.equal(Number(await averages()), 2, 'the averages not yet');
  release();
  await holder;
  t.equal((await saving).length, 1, 'the save returns once the averages are written');
  t.equal(Number(await averages()), 3, 'two sites: their mean');

  // Averages the first attempt could not write (here: overwritten since): the job's next attempt
  // (executeRun, as the runner's task calls it), which finds the run stored, writes them without
  // testing the page again (no browser).
  await db.updateTable('category_scores').set({ pagespeed: 1 }).where('category_id', '=', category.id).execute();
  t.strictSame(await executeRun(db, runId, { browser: null, guard: LOOPBACK_GUARD, registry: new PluginRegistry() }), [], 'nothing stored twice');
  t.equal(Number(await averages()), 3, 'the averages written again');
});
