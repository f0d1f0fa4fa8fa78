/**
 * End to end: an order through the API, a real graphile-worker runner with a real Chromium and
 * Lighthouse testing the `good` fixture site on loopback, and the results where the read side
 * finds them. A re-test lands in the public results; a one-off test stays private.
 */
import t from 'tap';
import type { Db } from '../../core/db/database.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { startStaticSite } from '../../runners/static-site.js';
import { buildTestApi } from '../helpers/api.js';
import { fixtureRoot } from '../helpers/fixture-artifacts.js';
import { startTestRunner } from '../helpers/runner.js';

const RUN_WAIT_MS = 120_000;

async function waitForRun(db: Db, runId: number) {
  const until = Date.now() + RUN_WAIT_MS;
  for (;;) {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    if (run.status === 'done' || run.status === 'failed') return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.status} after ${RUN_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

t.test('orders become results through a real runner', async (t) => {
  const api = await buildTestApi(t, { rateLimitPerMinute: 100_000 });
  const { app, db, registry } = api;
  const site = await startStaticSite(fixtureRoot('good'));
  t.teardown(() => site.close());
  await db.insertInto('premium_levels').values({ name: 'standard', monthly_quota: 100 }).execute();
  const siteId = await createSite(db, { title: 'God kommun', url: site.url, premiumLevel: 'standard' });
  const key = (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key;
  const headers = { 'api-key': key, 'site-id': String(siteId) };

  await startTestRunner(t, { db, connectionString: api.url, registry, allowOrigins: [new URL(site.url).origin] });

  let publicRating = NaN;
  await t.test('POST /retest/ with testnums [30]: the start page is tested and the result is public', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/retest/', headers: { ...headers, testnums: '[30]' } });
    t.equal(res.statusCode, 200, res.body);
    const { order_id: orderId, run_id: runId } = res.json();
    const run = await waitForRun(db, runId);
    t.strictSame(run, { status: 'done', error: null }, 'the run is done');
    const order = await db.selectFrom('orders').select(['status', 'credits']).where('id', '=', orderId).executeTakeFirstOrThrow();
    t.strictSame(order, { status: 'done', credits: 1 }, 'the order is done');
    const results = await db.selectFrom('test_results').selectAll().where('run_id', '=', runId).execute();
    t.strictSame(results.map((r) => r.type_of_test), [30], 'only the test type ordered ran');
    const [result] = results;
    t.equal(result.private, false);
    t.equal(result.url, site.url);
    t.equal(result.error, null);
    t.ok(result.rating >= 1 && result.rating <= 5, `rating ${result.rating} in [1, 5]`);
    const latest = await db.selectFrom('latest_results').selectAll().where('site_id', '=', siteId).execute();
    t.strictSame(latest.map((l) => [l.type_of_test, l.result_id]), [[30, result.id]], 'latest_results points at it');

    // Through the read side too (GET /stats/{siteId}).
    const stats = await app.inject({ method: 'GET', url: `/stats/${siteId}`, headers });
    t.equal(stats.statusCode, 200, stats.body);
    const entry = stats.json().data.find((d: { type_of_test: number }) => d.type_of_test === 30);
    t.ok(entry, 'GET /stats/{siteId} lists the type 30 result');
    t.equal(entry.rating, result.rating);
    publicRating = result.rating;
  });

  await t.test('POST /test_once/ with one URL: the private run is done and stays private', async (t) => {
    const latestBefore = await db.selectFrom('latest_results').select(['type_of_test', 'result_id']).where('site_id', '=', siteId).orderBy('type_of_test').execute();
    const body = new FormData();
    body.append('urls', site.url);
    const form = new Request('http://x/', { method: 'POST', body });
    const res = await app.inject({
      method: 'POST',
      url: '/test_once/',
      headers: { ...headers, 'content-type': form.headers.get('content-type')! },
      payload: Buffer.from(await form.arrayBuffer()),
    });
    t.equal(res.statusCode, 200, res.body);
    const [[testId, address]] = Object.entries(res.json().results as Record<string, string>);
    t.equal(address, `http://webperf.test/private_stats/${siteId}/${testId}`);
    const run = await waitForRun(db, Number(testId));
    t.strictSame(run, { status: 'done', error: null });
    const results = await db.selectFrom('test_results').selectAll().where('run_id', '=', Number(testId)).execute();
    t.ok(results.length >= 1, 'the private run stored its results');
    t.ok(results.every((r) => r.private), 'every result of the run is private');
    const type30 = results.find((r) => r.type_of_test === 30);
    t.ok(type30 && type30.rating >= 1 && type30.rating <= 5, 'type 30 rated the page');
    const latestAfter = await db.selectFrom('latest_results').select(['type_of_test', 'result_id']).where('site_id', '=', siteId).orderBy('type_of_test').execute();
    t.strictSame(latestAfter, latestBefore, 'latest_results is untouched by the private run');
    const order = await db.selectFrom('orders').select('status').where('id', '=', res.json().order_id).executeTakeFirstOrThrow();
    t.equal(order.status, 'done');

    const priv = await app.inject({ method: 'GET', url: `/private_stats/${siteId}/${testId}`, headers });
    t.equal(priv.statusCode, 200, priv.body);
    t.ok(JSON.stringify(priv.json()).includes('"type_of_test":30'), 'GET /private_stats/{siteId}/{testId} holds the type 30 result');
    const stats = await app.inject({ method: 'GET', url: `/stats/${siteId}`, headers });
    t.strictSame(
      stats.json().data.map((d: { type_of_test: number; rating: number }) => [d.type_of_test, d.rating]),
      [[30, publicRating]],
      '/stats/{siteId} still shows only the public re-test',
    );
  });
});
