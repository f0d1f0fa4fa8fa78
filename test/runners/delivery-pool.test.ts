/**
 * Webhook deliveries never block or slow the test runner (issue #10): a runner sends deliveries
 * in a graphile-worker pool of their own, so receivers that hang (each attempt waits out its 10 s
 * timeout) hold delivery workers only. A real runner (test concurrency 1, as by default), an
 * https receiver that never answers (https://hooks.receiver.test/ in the test world), and a real
 * test run of a fixture site (https://kommun.test/) in Chromium, on the world's guard.
 */
import t from 'tap';
import { loadPlugins } from '../../core/registry.js';
import { queueRun } from '../../core/store/runs.js';
import { setWebhook } from '../../core/store/webhooks.js';
import { WEBHOOK_TIMEOUT_MS } from '../../core/webhooks/send.js';
import { DELIVERY_CONCURRENCY, startWorker } from '../../runners/worker.js';
import { createTestDb } from '../helpers/db.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { outcome, seedRun, seedSite } from '../helpers/seed.js';
import { startWorld } from '../helpers/world/index.js';

async function until(what: string, ms: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('deliveries hanging at their receiver hold only delivery workers: a test job starts and finishes meanwhile', async (t) => {
  const { db, url } = await createTestDb(t);
  const world = await startWorld(t);
  const site = await world.site('kommun.test', { root: 'good' });
  const siteId = await seedSite(db, { title: 'Kommun', url: site.url });

  // A receiver that reads each delivery and never answers.
  let open = 0;
  let mostOpen = 0;
  const posts: string[] = [];
  const receiver = await world.site('hooks.receiver.test', {
    handler: (req) => {
      posts.push(`${req.method} ${req.url}`);
      open++;
      mostOpen = Math.max(mostOpen, open);
      req.socket.once('close', () => open--);
      req.resume();
    },
  });
  const origin = receiver.origin;
  await setWebhook(db, { siteId, url: `${origin}/hook`, threshold: null, itemUri: `http://webperf.test/item/${siteId}`, apiVersion: '0.1' });
  // Two more stored results than there are delivery workers: each queues one delivery.
  const types = [18, 28, 30, 100, 101, 102].slice(0, DELIVERY_CONCURRENCY + 2);
  await seedRun(db, siteId, { url: site.url, outcomes: types.map((type) => outcome(type, 4)) });

  const worker = await startWorker({
    db, connectionString: url, pool: testBrowserPool(), guard: world.guard([site.origin, origin]),
    registry: await loadPlugins(), concurrency: 1, jobTimeoutMs: 110_000, schedule: false,
  });
  t.teardown(() => worker.stop());
  let openWhenTestStarted: number | null = null;
  let testStartedAt: number | null = null;
  worker.events.on('job:start', ({ job }) => {
    if (job.task_identifier !== 'run_tests') return;
    openWhenTestStarted = open;
    testStartedAt = Date.now();
  });

  await until('every delivery worker waits on the receiver', 15_000, () => open === DELIVERY_CONCURRENCY);
  const queuedAt = Date.now();
  const runId = await queueRun(db, { siteId, url: site.url, testTypes: [28] });
  await until('the run ends', 120_000, async () => {
    const run = await db.selectFrom('test_runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow();
    return run.status === 'done' || run.status === 'failed';
  });
  const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
  t.equal(run.status, 'done', run.error ?? '');
  t.equal(openWhenTestStarted, DELIVERY_CONCURRENCY, 'the test job started while every delivery worker still waited on the hanging receiver');
  const waitedMs = testStartedAt === null ? null : testStartedAt - queuedAt;
  t.ok(waitedMs !== null && waitedMs < WEBHOOK_TIMEOUT_MS, 'the test job started before the first delivery timed out', { waitedMs });
  t.equal(mostOpen, DELIVERY_CONCURRENCY, 'deliveries are bounded by their own pool');
  t.same(posts.slice(0, DELIVERY_CONCURRENCY), Array(DELIVERY_CONCURRENCY).fill('POST /hook'), 'the deliveries reached the receiver over https');
  const results = await db.selectFrom('test_results').select(['type_of_test', 'url', 'error']).where('run_id', '=', runId).execute();
  t.same(results, [{ type_of_test: 28, url: 'https://kommun.test/', error: null }], 'the run stored its result');
});
