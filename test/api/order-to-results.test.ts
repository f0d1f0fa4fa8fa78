/**
 * End to end: an order through the API, a real graphile-worker runner with a real Chromium and
 * Lighthouse testing the `good` fixture site served as a real one is (https://kommun.test/ on port
 * 443, its name answered by the test world's DNS, its certificate from the suite's CA, reached
 * through the guard proxy), and the results where the read side finds them. A re-test lands in
 * the public results; a one-off test stays private.
 */
import t from 'tap';
import type { Db } from '../../core/db/database.js';
import { createKey } from '../../core/store/keys.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { lighthouseRating, meanRating } from '../../core/rating.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';
import { runEnded, startTestRunner } from '../helpers/runner.js';
import { testWorld } from '../helpers/world/index.js';

const RUN_WAIT_MS = 120_000;

const waitForRun = (db: Db, runId: number) => runEnded(db, runId, RUN_WAIT_MS);

t.test('orders become results through a real runner', async (t) => {
  const api = await buildTestApi(t, { rateLimitPerMinute: 100_000 });
  const { app, db, registry } = api;
  const site = await (await testWorld()).site('kommun.test', { root: 'good', aliases: ['www.kommun.test'] });
  t.teardown(() => site.close());
  t.equal(site.url, 'https://kommun.test/');
  await db.insertInto('premium_levels').values({ name: 'standard', monthly_quota: 100 }).execute();
  const siteId = await createSite(db, { title: 'God kommun', url: site.url, premiumLevel: 'standard' });
  const key = (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key;
  const headers = { 'api-key': key, 'site-id': String(siteId) };

  await startTestRunner(t, { db, connectionString: api.url, registry, allowOrigins: [site.origin] });

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
    // Rated from the Lighthouse run on the https page: the good fixture's accessibility and SEO
    // are perfect, it is on https (no is-on-https audit failing), and the overall rating is the
    // mean of the four category ratings stored with it.
    const data = result.json_check_data as { scores: Record<string, number>; ratings: Record<string, number>; failing_audits: { id: string }[] };
    t.strictSame([data.scores.accessibility, data.scores.seo], [1, 1], 'accessibility and SEO: 100');
    t.strictSame(data.failing_audits.filter((a) => ['is-on-https', 'redirects-http'].includes(a.id)), [], 'https is not found wanting');
    t.strictSame(data.ratings, Object.fromEntries(Object.entries(data.scores).map(([k, v]) => [k, lighthouseRating(v)])), 'each category rated from its score');
    t.equal(result.rating, meanRating(Object.values(data.ratings)), `rating ${result.rating}: the mean of the four`);
    t.equal(result.rating_a11y, 5);
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
    t.strictSame(results.map((r) => r.type_of_test).sort((a, b) => a - b), registry.select(null).map((p) => p.meta.id), 'every active test type ran on the page');
    t.strictSame(results.filter((r) => r.error !== null).map((r) => [r.type_of_test, r.error]), [], 'none failed');
    // Web analytics (101) rates the tools a page uses: the good fixture has none; every other
    // type rated the https page, JS lint (29) 5.00 as upstream does for a page without scripts.
    // DNS (32) rates a zone with name servers: none for this site's name in the world.
    t.strictSame(results.filter((r) => r.rating === NOT_RATED).map((r) => r.type_of_test).sort((a, b) => a - b), [32, 101], 'every type but DNS and web analytics rated it');
    t.equal(results.find((r) => r.type_of_test === 29)?.rating, 5, 'JS lint: no scripts, nothing to fix');
    t.ok(results.every((r) => r.private && r.url === site.url), 'every result of the run is private, of https://kommun.test/');
    const type30 = results.find((r) => r.type_of_test === 30)!;
    t.strictSame([type30.rating_a11y, (type30.json_check_data as { scores: Record<string, number> }).scores.accessibility], [5, 1], 'type 30 rated the page');
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
