/**
 * Webhook deliveries end to end below the API: results stored the way the runner stores them queue
 * deliveries in the same transaction; graphile-worker runs the real deliver_webhook task against
 * receivers served as real ones are (https://hooks.receiver.test/ on port 443 in a test world of
 * its own, its certificate from the suite's CA), allowlisted by origin on a guard built as the
 * service builds it (the world's resolver, the suite's CA trusted); receivers verify with the
 * standardwebhooks package.
 */
import type http from 'node:http';
import t from 'tap';
import { runOnce } from 'graphile-worker';
import { sql } from '../../core/db/kysely.js';
import { Webhook } from 'standardwebhooks';
import { TargetGuard } from '../../core/net/target-guard.js';
import type { Db } from '../../core/db/database.js';
import {
  DISABLE_AFTER_FAILING_DAYS,
  RETRY_DELAYS_S,
  dropChanges,
  DROP_TEXT_MAX,
  passesThreshold,
  retryDelayMs,
  rotateWebhookSecret,
  setWebhook,
} from '../../core/store/webhooks.js';
import { deliverWebhookTask, type DeliverWebhookDeps } from '../../runners/tasks/deliver-webhook.js';
import { quietLogger, workerPgPool } from '../../runners/worker-schema.js';
import { createTestDb } from '../helpers/db.js';
import { outcome, reportsFor, seedRun, seedSite } from '../helpers/seed.js';
import { startWorld, type World } from '../helpers/world/index.js';

interface Received {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * https://hooks.receiver.test/ in a world of the test's own, answering each request with the next
 * of `answers` (the last repeats); 'hang' never answers.
 */
async function receiver(t: { teardown(fn: () => unknown): void }, answers: (number | 'hang')[]) {
  const world = await startWorld(t);
  const got: Received[] = [];
  const site = await world.site('hooks.receiver.test', {
    handler: (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = answers[Math.min(got.length - 1, answers.length - 1)];
        if (answer === 'hang') return;
        res.writeHead(answer, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    },
  });
  return { world, got, origin: site.origin, address: site.address, url: `${site.origin}/hooks/webperf` };
}

/** Runs the worker until no delivery job is due (retries are made due at once by the test's schedule). */
/**
 * graphile-worker's runOnce over a pool of ours, ended (awaited) before it returns: its own pool
 * would still be closing while the test's teardown drops the database, and the connection that
 * ends raised an unhandled 57P01 in the next test (runners/worker-schema.ts, workerPgPool).
 */
async function deliverOnce(connectionString: string, task: ReturnType<typeof deliverWebhookTask>) {
  const pgPool = workerPgPool(connectionString, 2, quietLogger());
  try {
    await runOnce({ pgPool, taskList: { deliver_webhook: task as any }, logger: quietLogger() });
  } finally {
    await pgPool.end();
  }
}

async function drain(db: Db, connectionString: string, deps: Omit<DeliverWebhookDeps, 'db'>) {
  const task = deliverWebhookTask({ db, ...deps });
  for (let i = 0; i < 20; i++) {
    await deliverOnce(connectionString, task);
    const pending = await db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();
    if (pending.length === 0) return;
  }
  throw new Error('deliveries still pending');
}

const noWait = (attempt: number) => (attempt <= RETRY_DELAYS_S.length ? 0 : null);

async function arrange(t: { teardown(fn: () => unknown): void }, threshold: number | null = null, answers: (number | 'hang')[] = [204]) {
  const { db, url } = await createTestDb(t);
  const siteId = await seedSite(db, { title: 'Kommun', url: 'https://kommun.example/' });
  const rx = await receiver(t, answers);
  const { secret } = await setWebhook(db, { siteId, url: rx.url, threshold, itemUri: `http://webperf.test/item/${siteId}`, apiVersion: '0.1' });
  // The operator allowlists the receiver's origin (WEBPERF_ALLOW_TARGETS); the world's DNS and CA as configured.
  return { db, url, siteId, rx, secret, guard: rx.world.guard([rx.origin]) };
}

t.test('a receiver that fails twice then succeeds gets the exact payload three times, signed, with one stable webhook-id', async (t) => {
  const { db, url, siteId, rx, secret, guard } = await arrange(t, null, [500, 503, 200]);
  t.equal(rx.url, 'https://hooks.receiver.test/hooks/webperf');
  const testDate = new Date('2026-11-20T08:15:30.123Z');
  const { resultIds } = await seedRun(db, siteId, {
    url: 'https://kommun.example/',
    testDate,
    outcomes: [outcome(7, 3.5, { pagespeed: 3.5, a11y: 4 }, { a: 1 })],
  });
  const queued = await db.selectFrom('webhook_deliveries').selectAll().execute();
  t.equal(queued.length, 1, 'queued with the results');
  t.equal(Number(queued[0].result_id), resultIds[0]);

  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  t.equal(rx.got.length, 3);
  const ids = new Set(rx.got.map((r) => r.headers['webhook-id']));
  t.equal(ids.size, 1, 'the webhook-id is the same on every attempt');
  t.match([...ids][0], /^msg_[0-9a-f]{32}$/);
  t.equal(new Set(rx.got.map((r) => r.body)).size, 1, 'every attempt sends the same bytes');
  for (const r of rx.got) {
    t.equal(r.headers['content-type'], 'application/json');
    t.match(r.headers['webhook-signature'], /^v1,[A-Za-z0-9+/=]+$/, 'one v1 signature');
    // As a receiver would: the package verifies signature and timestamp.
    t.doesNotThrow(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>));
  }
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(rx.got[0].body, rx.got[0].headers as Record<string, string>), 'another secret does not verify');
  const reports = reportsFor(7, 3.5, { pagespeed: 3.5, a11y: 4 }).sv;
  const body = JSON.parse(rx.got[0].body);
  t.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.same(body, {
    api_version: '0.1',
    uri: `http://webperf.test/item/${siteId}`,
    tested_url: 'https://kommun.example/',
    timestamp: body.timestamp,
    result_count: '1',
    data: {
      test_date: '2026-11-20T08:15:30.123Z',
      type_of_test: 7,
      url: 'https://kommun.example/',
      rating: 3.5,
      check_report: reports.overall,
      check_report_a11y: reports.a11y,
      check_report_perf: reports.perf,
      check_report_stand: '',
      check_report_sec: '',
      json_check_data: '{"a": 1}',
    },
  });
  t.same(Object.keys(body), ['api_version', 'uri', 'tested_url', 'timestamp', 'result_count', 'data']);
  const [d] = await db.selectFrom('webhook_deliveries').selectAll().execute();
  t.equal(d.status, 'delivered');
  t.equal(d.attempts, 3);
  t.equal(d.response_status, 200);
  t.equal(d.next_attempt_at, null);
  const hook = await db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
  t.equal(hook.failing_since, null, 'a success clears the failure');
});

t.test('a delivery job run again after its attempt was recorded (its end lost to an outage) sends nothing and forks no schedule', async (t) => {
  const { db, url, siteId, rx, guard } = await arrange(t, null, [500, 200]);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 3)] });
  const [{ id }] = await db.selectFrom('webhook_deliveries').select('id').execute();
  const jobs = () => sql<{ key: string | null; payload: unknown }>`select key, payload from graphile_worker._private_jobs order by id`.execute(db).then((r) => r.rows);
  t.same(await jobs(), [{ key: `webhook_delivery:${id}`, payload: { deliveryId: Number(id), attempt: 1 } }], 'one job per delivery, naming its attempt');
  // The first attempt (500): recorded, the second queued a minute later.
  const aMinute = deliverWebhookTask({ db, guard, webhookRetryDelayMs: () => 60_000 });
  await deliverOnce(url, aMinute);
  t.equal(rx.got.length, 1);
  const second = [{ key: `webhook_delivery:${id}`, payload: { deliveryId: Number(id), attempt: 2 } }];
  t.same(await jobs(), second);
  // The first attempt's job again, as a runner that lost the record of its end releases it.
  await sql`select graphile_worker.add_job('deliver_webhook', ${JSON.stringify({ deliveryId: Number(id), attempt: 1 })}::json)`.execute(db);
  await deliverOnce(url, aMinute);
  t.equal(rx.got.length, 1, 'nothing sent early');
  t.same(await jobs(), second, 'the second attempt still waits for its time');
  await sql`update graphile_worker._private_jobs set run_at = now()`.execute(db);
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  t.equal(rx.got.length, 2, 'the receiver got the two attempts, not a third');
  const [d] = await db.selectFrom('webhook_deliveries').selectAll().execute();
  t.same([d.status, d.attempts, d.response_status], ['delivered', 2, 200]);
  t.same(await jobs(), [], 'no job left');
});

t.test('410 Gone disables the webhook, with the reason; later results queue nothing', async (t) => {
  const { db, url, siteId, rx, guard } = await arrange(t, null, [410]);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 3)] });
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  t.equal(rx.got.length, 1, 'not retried');
  const hook = await db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
  t.ok(hook.disabled_at);
  t.match(hook.disabled_reason, /^The receiver answered 410 Gone on \d{4}-/);
  const [d] = await db.selectFrom('webhook_deliveries').selectAll().execute();
  t.equal(d.status, 'gone');
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 2)] });
  t.equal((await db.selectFrom('webhook_deliveries').select('id').execute()).length, 1);
});

t.test('a receiver that hangs: the attempt ends at the timeout and is retried on schedule', async (t) => {
  const { db, url, siteId, rx, guard } = await arrange(t, null, ['hang']);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 3)] });
  // One retry, then the schedule is spent.
  await drain(db, url, { guard, webhookTimeoutMs: 2000, webhookRetryDelayMs: (n) => (n < 2 ? 0 : null) });
  // Not an exact count: on a loaded machine an attempt may end before the receiver has read it.
  t.ok(rx.got.length <= 2, 'at most one request per attempt');
  const [d] = await db.selectFrom('webhook_deliveries').selectAll().execute();
  t.equal(d.status, 'failed');
  t.equal(d.attempts, 2);
  t.equal(d.response_status, null);
  t.equal(d.last_error, 'No answer within 2 s');
  const hook = await db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
  t.ok(hook.failing_since, 'failing since the first failure');
  t.equal(hook.disabled_at, null, 'one failed day does not disable');
});

t.test('a webhook failing for days is disabled and says why', async (t) => {
  const { db, url, siteId, guard } = await arrange(t, null, [500]);
  const since = new Date(Date.now() - (DISABLE_AFTER_FAILING_DAYS * 24 + 1) * 3_600_000);
  await db.updateTable('webhooks').set({ failing_since: since }).execute();
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 3)] });
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  const hook = await db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
  t.ok(hook.disabled_at);
  t.equal(hook.disabled_reason, `Deliveries have failed since ${since.toISOString()} (last: HTTP 500)`);
  const [d] = await db.selectFrom('webhook_deliveries').selectAll().execute();
  t.equal(d.status, 'failed');
  t.equal(d.attempts, 1);
});

t.test('threshold: only drops of at least T below the previous rated result of the same test type', async (t) => {
  const { db, url, siteId, rx, guard } = await arrange(t, 1);
  const day = (n: number) => new Date(Date.UTC(2026, 10, n));
  const ratings = [4.5, 4.0, 3.0, 3.5, -1, 2.5];
  for (const [i, r] of ratings.entries()) {
    await seedRun(db, siteId, { url: 'https://kommun.example/', testDate: day(i + 1), outcomes: [outcome(7, r), outcome(8, 5 - i * 0.1)] });
  }
  // Private one-off tests are never delivered, whatever they rate.
  await seedRun(db, siteId, { url: 'https://kommun.example/page', private: true, testDate: day(10), outcomes: [outcome(7, 1)] });
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  const sent = rx.got.map((r) => JSON.parse(r.body).data).map((d) => [d.type_of_test, d.rating]);
  t.same(sent.sort(), [[7, 2.5], [7, 3]], '4.0→3.0 and 3.5→2.5 (the unrated result is skipped); test type 8 falls by 0.1 a day');
  t.equal(passesThreshold(null, -1, null), true, 'without a threshold every result goes');
  t.equal(passesThreshold(0.5, 3.7, 4.2), true, 'exact edges count (5 decimals)');
  t.equal(passesThreshold(0.5, 3.70001, 4.2), false);
});

t.test('a drop past the threshold carries the findings that explain it, worst first, bounded per category, signed as ever', async (t) => {
  const { db, url, siteId, rx, secret, guard } = await arrange(t, 0.5);
  const f = (rule: string, severity: 'critical' | 'error' | 'warning' | 'resolved', count: number, category: 'a11y' | 'infosec' = 'a11y') =>
    ({ rule, category, severity, count, text: { sv: `${rule} (${count}) ${'x'.repeat(rule === 'long' ? 400 : 0)}`.trim(), en: rule } });
  const before = [f('color-contrast', 'error', 2), f('label', 'warning', 1), f('hsts-missing', 'resolved', 1, 'infosec')];
  const after = [f('color-contrast', 'error', 16), f('label', 'warning', 1), f('image-alt', 'critical', 1), f('hsts-missing', 'error', 1, 'infosec'),
    ...['a', 'b', 'c', 'long'].map((r) => f(r, 'warning', 1))];
  const first = await seedRun(db, siteId, { url: 'https://kommun.example/', testDate: new Date('2026-11-01T08:00:00Z'), outcomes: [{ ...outcome(10, 4.6, { a11y: 4.6 }), findings: before }] });
  await seedRun(db, siteId, { url: 'https://kommun.example/', testDate: new Date('2026-11-20T08:00:00Z'), outcomes: [{ ...outcome(10, 3.9, { a11y: 3.9 }), findings: after }] });
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  t.equal(rx.got.length, 1, 'the drop (4.6 → 3.9) is delivered; the first result had nothing to drop from');
  const body = JSON.parse(rx.got[0].body);
  t.doesNotThrow(() => new Webhook(secret).verify(rx.got[0].body, rx.got[0].headers as Record<string, string>), 'signed as every payload');
  t.same(body.changes, {
    since: { result_id: first.resultIds[0], test_date: '2026-11-01T08:00:00.000Z', rating: 4.6 },
    findings_known: true,
    added: {
      a11y: [
        { key: 'a11y image-alt', rule: 'image-alt', change: 'added', severity: 'critical', count: 1, text: 'image-alt (1)' },
        { key: 'a11y color-contrast', rule: 'color-contrast', change: 'changed', severity: 'error', count: 16, text: 'color-contrast (16)' },
        { key: 'a11y a', rule: 'a', change: 'added', severity: 'warning', count: 1, text: 'a (1)' },
        { key: 'a11y b', rule: 'b', change: 'added', severity: 'warning', count: 1, text: 'b (1)' },
        { key: 'a11y c', rule: 'c', change: 'added', severity: 'warning', count: 1, text: 'c (1)' },
      ],
      infosec: [{ key: 'infosec hsts-missing', rule: 'hsts-missing', change: 'added', severity: 'error', count: 1, text: 'hsts-missing (1)' }],
    },
    more: 1,
  }, 'in Swedish, the webhook\'s report language; five per category, one more left out');
  const bounded = dropChanges({ id: 1, rating: 5, test_date: 'x' }, [], [f('long', 'error', 1)]);
  t.equal(bounded.added.a11y?.[0].text.length, DROP_TEXT_MAX, 'a long text is cut');
  t.same(dropChanges({ id: 1, rating: 5, test_date: 'x' }, null, []), { since: { result_id: 1, test_date: 'x', rating: 5 }, findings_known: false, added: {}, more: 0 }, 'an earlier result stored without findings');
});

t.test('without a threshold every public result is delivered', async (t) => {
  const { db, url, siteId, rx, guard } = await arrange(t);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4), outcome(8, -1), outcome(9, 5)] });
  await seedRun(db, siteId, { url: 'https://kommun.example/x', private: true, outcomes: [outcome(7, 1)] });
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  t.same(rx.got.map((r) => JSON.parse(r.body).data.type_of_test).sort(), [7, 8, 9]);
});

t.test('during a rotation both secrets sign for 24 hours, then only the new one', async (t) => {
  const { db, url, siteId, rx, secret: oldSecret, guard } = await arrange(t);
  const rotated = await rotateWebhookSecret(db, siteId);
  t.ok(rotated);
  const newSecret = rotated!.secret;
  t.not(newSecret, oldSecret);
  t.match(newSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.ok(Math.abs(rotated!.previousSecretExpiresAt.getTime() - Date.now() - 24 * 3_600_000) < 60_000);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4)] });
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  const first = rx.got[0];
  t.equal(String(first.headers['webhook-signature']).split(' ').length, 2);
  t.doesNotThrow(() => new Webhook(oldSecret).verify(first.body, first.headers as Record<string, string>), 'a receiver with the old secret');
  t.doesNotThrow(() => new Webhook(newSecret).verify(first.body, first.headers as Record<string, string>), 'a receiver with the new secret');

  await db.updateTable('webhooks').set({ previous_secret_expires_at: new Date(Date.now() - 1000) }).execute();
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4)] });
  await drain(db, url, { guard, webhookRetryDelayMs: noWait });
  const second = rx.got[1];
  t.equal(String(second.headers['webhook-signature']).split(' ').length, 1);
  t.throws(() => new Webhook(oldSecret).verify(second.body, second.headers as Record<string, string>));
  t.doesNotThrow(() => new Webhook(newSecret).verify(second.body, second.headers as Record<string, string>));
});

t.test('connect time: the guard refuses a name that resolves to a blocked address, and a literal one, before any connection', async (t) => {
  const { db, url, siteId, rx } = await arrange(t);
  // The world's resolver, nothing allowlisted: the receiver's name resolves to loopback, as a
  // rebinding name would. The address was fine when set, not now.
  const strict = rx.world.guard([]);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4)] });
  await drain(db, url, { guard: strict, webhookRetryDelayMs: () => null });
  await db.updateTable('webhooks').set({ url: `https://${rx.address}/hooks/webperf` }).execute();
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4)] });
  await drain(db, url, { guard: strict, webhookRetryDelayMs: () => null });
  // A name of the world that resolves to a private address, with loopback allowlisted.
  rx.world.record('hooks.intranet.test', { A: ['10.0.0.5'] });
  await db.updateTable('webhooks').set({ url: 'https://hooks.intranet.test/hooks/webperf' }).execute();
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4)] });
  await drain(db, url, { guard: rx.world.guard(), webhookRetryDelayMs: () => null });
  t.equal(rx.got.length, 0, 'nothing reached the receiver');
  const rows = await db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
  t.same(rows.map((r) => r.status), ['failed', 'failed', 'failed']);
  t.same(rows.map((r) => r.last_error), [
    `The address hooks.receiver.test resolves to ${rx.address}, which is not allowed as a test target`,
    `The address ${rx.address} resolves to ${rx.address}, which is not allowed as a test target`,
    'The address hooks.intranet.test resolves to 10.0.0.5, which is not allowed as a test target',
  ]);
});

t.test('https: a delivering guard without the suite\'s CA refuses the receiver\'s certificate; with it, the delivery arrives', async (t) => {
  const { db, url, siteId, rx, guard } = await arrange(t);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4)] });
  // The same resolver and allowlist, no extra CA: what a service without WEBPERF_EXTRA_CA_CERTS has.
  await drain(db, url, { guard: new TargetGuard([rx.origin], { resolver: rx.world.resolver }), webhookRetryDelayMs: () => null });
  t.equal(rx.got.length, 0, 'no request was sent over a connection not trusted');
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 3)] });
  await drain(db, url, { guard, webhookRetryDelayMs: () => null });
  t.same(rx.got.map((r) => [r.method, JSON.parse(r.body).data.rating]), [['POST', 3]], 'with the CA trusted, the second delivery arrived');
  const rows = await db.selectFrom('webhook_deliveries').select(['status', 'response_status', 'last_error']).orderBy('id').execute();
  t.same(rows, [
    { status: 'failed', response_status: null, last_error: 'self-signed certificate in certificate chain' },
    { status: 'delivered', response_status: 204, last_error: null },
  ]);
});

t.test('a redirect is not followed: 3xx is a failed attempt', async (t) => {
  const { db, url, siteId, rx, guard } = await arrange(t, null, [307]);
  await seedRun(db, siteId, { url: 'https://kommun.example/', outcomes: [outcome(7, 4)] });
  await drain(db, url, { guard, webhookRetryDelayMs: () => null });
  t.equal(rx.got.length, 1);
  const [d] = await db.selectFrom('webhook_deliveries').selectAll().execute();
  t.equal(d.response_status, 307);
  t.equal(d.last_error, 'HTTP 307');
  t.equal(d.status, 'failed');
});

t.test('the retry schedule: exponential, with ±20 % jitter, about a day in all', async (t) => {
  const total = RETRY_DELAYS_S.reduce((a, b) => a + b, 0);
  t.ok(total > 20 * 3600 && total < 28 * 3600, `${total} s`);
  for (let i = 1; i < 6; i++) t.ok(RETRY_DELAYS_S[i] > RETRY_DELAYS_S[i - 1]);
  t.equal(retryDelayMs(1, () => 0.5), 30_000);
  t.equal(retryDelayMs(1, () => 0), 24_000);
  t.equal(retryDelayMs(1, () => 1), 36_000);
  t.equal(retryDelayMs(RETRY_DELAYS_S.length + 1), null, 'then the delivery has failed');
});
