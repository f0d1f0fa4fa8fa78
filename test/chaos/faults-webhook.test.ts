/**
 * A webhook receiver (https://hooks.kommun.test/ on port 443, a host of a test world) down for an
 * hour: a real runner retries every delivery on the documented
 * schedule (core/store/webhooks.ts RETRY_DELAYS_S, with jitter), none is lost, and once the
 * receiver is back each delivery arrives exactly once with the webhook-id it had from the start.
 * Time is moved, not slept: after each attempt the test reads the schedule the runner wrote, checks
 * it against the documented one, and moves the due job (and the webhook's failing clock) forward.
 */
import type http from 'node:http';
import { sql } from '../../core/db/kysely.js';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { PluginRegistry } from '../../core/registry.js';
import { RETRY_DELAYS_S, RETRY_JITTER, setWebhook } from '../../core/store/webhooks.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorker } from '../../runners/worker.js';
import { until } from '../../chaos/processes.js';
import { createTestDb } from '../helpers/db.js';
import { outcome, seedRun, seedSite } from '../helpers/seed.js';
import { jobsAtRest } from '../helpers/runner.js';
import { startWorld } from '../helpers/world/index.js';

const HOUR_S = 3600;

t.test('a receiver down for an hour: deliveries retried on schedule, none lost, each delivered once with a stable webhook-id', async (t) => {
  const { db, url } = await createTestDb(t);
  const world = await startWorld(t);
  // The receiver is an https host of the world. While it is down its name points at an address
  // where nothing listens any more (a host of the world, closed): every delivery's connection is
  // refused, as when the receiver's server is down. It comes back when its name points at it again.
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const receiver = await world.site('hooks.kommun.test', {
    handler: (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    },
  });
  const gone = await world.site('gone.kommun.test');
  await gone.close();
  world.record(receiver.name, { A: [gone.address] });
  let back = false;

  const siteId = await seedSite(db, { title: 'Kommun', url: 'https://kommun.example/' });
  const { secret } = await setWebhook(db, { siteId, url: `${receiver.origin}/hooks`, threshold: null, itemUri: `http://webperf.test/item/${siteId}`, apiVersion: '0.1' });
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(18, 4.5, { a11y: 4.5 }), outcome(30, 3, { webstandard: 3 }), outcome(21, 2, { infosec: 2 })] });
  const queued = await db.selectFrom('webhook_deliveries').select(['id', 'event_id']).orderBy('id').execute();
  t.equal(queued.length, 3, 'one delivery per result, queued with the results');

  // The guard a runner builds from the world's settings (world.env()).
  const guard = world.guard();
  const worker = await startWorker({
    db, connectionString: url, pool: testBrowserPool(), guard,
    registry: new PluginRegistry(), concurrency: 3, jobTimeoutMs: 60_000, schedule: false,
  });
  t.teardown(() => worker.stop());

  const deliveries = () => db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'status', 'attempts', 'last_attempt_at', 'next_attempt_at', 'last_error']).orderBy('id').execute();
  let simulated = 0;
  const scheduled: number[][] = [];
  for (let attempt = 1; ; attempt++) {
    const rows = await until(`attempt ${attempt} of every delivery`, 60_000, async () => {
      const r = await deliveries();
      return r.every((d) => d.attempts >= attempt) ? r : undefined;
    });
    if (rows.every((d) => d.status === 'delivered')) break;
    t.same(rows.map((d) => [d.status, d.last_error]), rows.map(() => ['pending', `connect ECONNREFUSED ${gone.address}:443`]), `attempt ${attempt} failed while the receiver is down: its connection refused`);
    const delays = rows.map((d) => (d.next_attempt_at!.getTime() - d.last_attempt_at!.getTime()) / 1000);
    scheduled.push(delays);
    const base = RETRY_DELAYS_S[attempt - 1];
    for (const d of delays) t.ok(d >= base * (1 - RETRY_JITTER) - 1 && d <= base * (1 + RETRY_JITTER) + 1, `attempt ${attempt + 1} scheduled ${Math.round(d)} s after attempt ${attempt} (documented: ${base} s ± ${RETRY_JITTER * 100} %)`);
    // Move time: what was scheduled for later is due now, and the webhook has been failing that much longer.
    const step = Math.max(...delays);
    simulated += step;
    await db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date() }).where('status', '=', 'pending').execute();
    await sql`update webhooks set failing_since = failing_since - make_interval(secs => ${step}::double precision) where site_id = ${siteId}::int`.execute(db);
    if (simulated >= HOUR_S && !back) {
      // The hour is over: the receiver comes back before the next attempt is due.
      world.record(receiver.name, { A: [receiver.address] });
      back = true;
    }
    await sql`select graphile_worker.reschedule_jobs(array(select id from graphile_worker.jobs where task_identifier = 'deliver_webhook'), run_at := now())`.execute(db);
  }
  t.ok(simulated >= HOUR_S, `the receiver was down for ${Math.round(simulated / 60)} simulated minutes`);
  t.same(scheduled.length, 5, 'five attempts failed: at 0 s, 30 s, 2.5 min, 12.5 min and 42.5 min, the sixth is the first after the hour');

  const final = await deliveries();
  t.same(final.map((d) => [d.status, d.attempts]), [['delivered', 6], ['delivered', 6], ['delivered', 6]]);
  t.equal(got.length, 3, 'each delivery arrived exactly once');
  t.same(got.map((g) => g.headers['webhook-id']).sort(), queued.map((q) => q.event_id).sort(), 'with the webhook-id it was queued with');
  for (const g of got) t.doesNotThrow(() => new Webhook(secret).verify(g.body, g.headers as Record<string, string>), 'signed');
  const types = got.map((g) => (JSON.parse(g.body) as { data: { type_of_test: number } }).data.type_of_test).sort((a, b) => a - b);
  t.same(types, [18, 21, 30], 'every result delivered');
  const hook = await db.selectFrom('webhooks').select(['failing_since', 'disabled_at']).executeTakeFirstOrThrow();
  t.same(hook, { failing_since: null, disabled_at: null }, 'the webhook is healthy again');
  t.same(await jobsAtRest(db, 30_000), [], 'no delivery job left');
});
