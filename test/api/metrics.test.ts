/**
 * GET /metrics for operators: after a real run (graphile-worker, Chromium, a fixture site of the
 * test world) the Prometheus text agrees with the database (results per test type, the queue,
 * the heartbeats, webhook deliveries and disabled webhooks); the HTTP counters count the requests
 * made; only an admin key reads it; the scrape address of WEBPERF_METRICS_LISTEN serves the same
 * text, without a key, for the API and for a runner.
 *
 * The metrics live in one registry per process: the tests of this file compare differences
 * between two scrapes where other tests of the file add to the same counters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { sql } from '../../core/db/kysely.js';
import { buildTestApi } from '../helpers/api.js';
import { suiteTrust, testWorld } from '../helpers/world/index.js';
import { PluginRegistry, discoverPlugins } from '../../core/registry.js';
import { throwingPlugin } from '../helpers/throwing-plugin.js';
import { createKey } from '../../core/store/keys.js';
import { queueRun } from '../../core/store/runs.js';
import { setWebhook } from '../../core/store/webhooks.js';
import { startWorker } from '../../runners/worker.js';
import { startService } from '../../runners/service.js';
import type { Db } from '../../core/db/database.js';
import { metricsText } from '../../core/metrics.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { findChromium, loadConfig } from '../../core/config.js';

/** One sample of the exposition: its name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (version 0.0.4), comments and blank lines skipped. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const value = m[3] === 'NaN' ? NaN : m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    samples.push({ name: m[1], labels, value });
  }
  return samples;
}

/** The value of the one sample of `name` with these labels (others may be present), or undefined. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v) && Object.keys(s.labels).length === Object.keys(labels).length);
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value;
}

/** The metric families (# TYPE lines) of an exposition. */
function families(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
}

async function waitFor<T>(what: string, read: () => Promise<T | null>, ms = 120_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const got = await read();
    if (got !== null) return got;
    if (Date.now() > until) throw new Error(`still waiting for ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function waitForRun(db: Db, runId: number) {
  return waitFor(`run ${runId}`, async () => {
    const run = await db.selectFrom('test_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    return run.status === 'done' || run.status === 'failed' ? run : null;
  });
}

const builtins = await discoverPlugins();
const throwing = throwingPlugin(builtins);
/** Two cheap test types (standard files, LIX) and the one that throws. */
const TYPES = [9, 100, 990];

t.test('after a real run, /metrics agrees with the database: results, queue, heartbeats, webhooks, HTTP', async (t) => {
  const { app, db, url } = await buildTestApi(t);
  const world = await testWorld();
  const site = await world.site('metrik.test', { root: 'good' });
  const blocked = await world.site('spaerrad-metrik.test');
  const receiver = await world.site('hooks.metrik.test', {
    handler: (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(204);
        res.end();
      });
    },
  });
  t.teardown(() => Promise.all([site.close(), blocked.close(), receiver.close()]));

  const { id: siteId } = await db.insertInto('sites').values({ title: 'Metrik kommun', url: site.url }).returning('id').executeTakeFirstOrThrow();
  await setWebhook(db, { siteId, url: `${receiver.origin}/hook`, threshold: null, itemUri: `http://webperf.test/item/${siteId}`, apiVersion: '0.1' });
  // Another site's webhook, disabled (the receiver answered 410 Gone).
  const { id: otherId } = await db.insertInto('sites').values({ title: 'Annan kommun', url: 'https://annan.example/' }).returning('id').executeTakeFirstOrThrow();
  await setWebhook(db, { siteId: otherId, url: 'https://hooks.annan.example/', threshold: null, itemUri: `http://webperf.test/item/${otherId}`, apiVersion: '0.1' });
  await db.updateTable('webhooks').set({ disabled_at: new Date(), disabled_reason: 'The receiver answered 410 Gone' }).where('site_id', '=', otherId).execute();
  const admin = await createKey(db, { kind: 'admin', siteIds: [], label: 'prometheus' });
  const scrape = async () => {
    const res = await app.inject({ url: '/metrics', headers: { 'api-key': admin.key } });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    return parseExposition(res.body);
  };
  const before = await scrape();

  const registry = new PluginRegistry([...builtins.filter((p) => TYPES.includes(p.meta.id)), throwing]);
  // A Chromium this process launches (not the share's, see test/helpers/shared-chromium.ts): the launch is counted.
  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH), null, suiteTrust().chromiumArgs);
  t.teardown(() => pool.close());
  const worker = await startWorker({
    db, connectionString: url, pool, guard: world.guard([site.origin, receiver.origin]), registry,
    concurrency: 1, jobTimeoutMs: 120_000, schedule: false,
  });
  let stopped = false;
  t.teardown(() => (stopped ? undefined : worker.stop()));

  const done = await waitForRun(db, await queueRun(db, { siteId, url: site.url }));
  t.equal(done.status, 'done', done.error ?? '');
  // A page on a loopback host the guard does not allow: the run fails at once, for good.
  const failed = await waitForRun(db, await queueRun(db, { siteId, url: blocked.url }));
  t.equal(failed.status, 'failed');
  await waitFor('the webhook deliveries', async () => {
    const pending = await db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();
    return pending.length === 0 ? true : null;
  });
  // A runner gone silent an hour ago: not alive.
  await db.insertInto('runner_heartbeats').values({ runner_id: 'runner-gone', worker_ids: ['worker-gone'], host: 'elsewhere', pid: 1, last_seen: new Date(Date.now() - 3_600_000) }).execute();

  const during = await scrape();
  // Runs: one done, one failed; per test type what the database holds.
  t.equal(value(during, 'webperf_runs_total', { outcome: 'done' }), 1);
  t.equal(value(during, 'webperf_runs_total', { outcome: 'failed' }), 1);
  const stored = await db.selectFrom('test_results').select(['type_of_test', 'error']).orderBy('type_of_test').execute();
  t.same(stored.map((r) => r.type_of_test), TYPES, 'one stored result per test type');
  for (const type of TYPES) {
    const ok = stored.filter((r) => r.type_of_test === type && r.error === null).length;
    const errors = stored.filter((r) => r.type_of_test === type && r.error !== null).length;
    t.equal(value(during, 'webperf_test_runs_total', { type_of_test: String(type), outcome: 'done' }) ?? 0, ok, `type ${type}: done = results stored without an error`);
    t.equal(value(during, 'webperf_test_runs_total', { type_of_test: String(type), outcome: 'error' }) ?? 0, errors, `type ${type}: error = results that say the test could not be completed`);
    t.equal(value(during, 'webperf_test_runs_total', { type_of_test: String(type), outcome: 'failed' }), 1, `type ${type}: the failed run`);
    t.equal(value(during, 'webperf_test_duration_seconds_count', { type_of_test: String(type) }), 1, `type ${type}: one duration`);
  }
  t.equal(value(during, 'webperf_test_runs_total', { type_of_test: '990', outcome: 'error' }), 1, 'the plugin that throws');
  t.equal(value(during, 'webperf_test_runs_total', { type_of_test: '9', outcome: 'done' }), 1);
  for (const phase of ['gather', 'plugins', 'save']) {
    t.equal(value(during, 'webperf_run_phase_duration_seconds_count', { phase }), 1, `one ${phase} phase`);
    t.ok(value(during, 'webperf_run_phase_duration_seconds_sum', { phase })! > 0, `${phase} took time`);
  }
  t.ok(value(during, 'webperf_run_phase_duration_seconds_sum', { phase: 'gather' })! >= value(during, 'webperf_run_phase_duration_seconds_sum', { phase: 'save' })!, 'the page load takes longer than storing');
  t.ok(value(during, 'webperf_chromium_launches_total')! >= 1, 'Chromium was launched');
  t.equal(value(during, 'webperf_chromium_crashes_total'), 0);

  // Runners: the live one, not the silent one; as the heartbeats table says.
  const { rows: [beats] } = await sql<{ alive: number }>`select count(*)::int as alive from runner_heartbeats where last_seen >= now() - interval '60 seconds'`.execute(db);
  t.equal(beats.alive, 1);
  t.equal(value(during, 'webperf_runners_alive'), beats.alive);
  t.equal(value(during, 'webperf_jobs_unlocked_from_silent_runners_total'), 0);

  // Webhooks: the three results delivered, one attempt each; one webhook disabled.
  const deliveries = await db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
  t.same(deliveries.map((d) => [d.status, d.attempts]), [['delivered', 1], ['delivered', 1], ['delivered', 1]]);
  t.equal(value(during, 'webperf_webhook_deliveries_total', { outcome: 'delivered' }), deliveries.length);
  t.equal(value(during, 'webperf_webhook_attempts_total', { outcome: 'delivered' }), deliveries.reduce((n, d) => n + d.attempts, 0));
  t.equal(value(during, 'webperf_webhook_attempt_duration_seconds_count'), 3);
  t.equal(value(during, 'webperf_webhooks_disabled'), 1);
  t.equal(value(during, 'webperf_metrics_database_up'), 1);

  // The queue: every job the run made is done, so the queue is empty.
  for (const task of ['run_tests', 'run_audit', 'deliver_webhook']) {
    for (const state of ['waiting', 'scheduled', 'running', 'failed']) t.equal(value(during, 'webperf_queue_jobs', { task, state }), 0, `${task} ${state}`);
    t.equal(value(during, 'webperf_queue_oldest_waiting_age_seconds', { task }), 0);
  }
  // Node's own.
  t.ok(value(during, 'nodejs_heap_size_used_bytes')! > 0);
  t.ok(value(during, 'nodejs_eventloop_lag_seconds')! >= 0);

  await worker.stop();
  stopped = true;
  // Jobs no runner takes now: two waiting (the older for 90 s), one running on a runner that
  // died, one scheduled for later, one failed for good.
  const add = (task: string, runAt: string) => sql`select graphile_worker.add_job(${task}::text, '{"runId": 0}'::json, run_at := now() + ${runAt}::interval)`.execute(db);
  const addedAt = Date.now();
  await add('run_tests', '-90 seconds');
  await add('run_tests', '-10 seconds');
  await add('run_tests', '-1 second');
  await add('run_audit', '1 hour');
  await add('deliver_webhook', '-1 minute');
  await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'worker-gone' where id = (select max(id) from graphile_worker.jobs where task_identifier = 'run_tests')`.execute(db);
  await sql`update graphile_worker._private_jobs set attempts = max_attempts, last_error = 'boom' where id = (select id from graphile_worker.jobs where task_identifier = 'deliver_webhook')`.execute(db);

  const after = await scrape();
  // As the jobs were set up: graphile_worker.jobs holds exactly these.
  const queue = [
    { task: 'deliver_webhook', waiting: 0, scheduled: 0, running: 0, failed: 1 },
    { task: 'run_audit', waiting: 0, scheduled: 1, running: 0, failed: 0 },
    { task: 'run_tests', waiting: 2, scheduled: 0, running: 1, failed: 0 },
  ];
  const { rows: jobs } = await sql<{ task: string; n: number }>`select task_identifier as task, count(*)::int as n from graphile_worker.jobs group by 1 order by 1`.execute(db);
  t.same(jobs, queue.map((q) => ({ task: q.task, n: q.waiting + q.scheduled + q.running + q.failed })), 'the queue holds the jobs set up');
  for (const q of queue) {
    for (const state of ['waiting', 'scheduled', 'running', 'failed'] as const) t.equal(value(after, 'webperf_queue_jobs', { task: q.task, state }), q[state], `${q.task} ${state}: as set up`);
  }
  const oldest = value(after, 'webperf_queue_oldest_waiting_age_seconds', { task: 'run_tests' })!;
  const waited = 90 + (Date.now() - addedAt) / 1000;
  t.ok(oldest >= 90 && oldest <= waited, `the oldest waiting run_tests job has waited ${oldest} s (at most ${waited} s by this process's clock)`);
  t.equal(value(after, 'webperf_queue_oldest_waiting_age_seconds', { task: 'run_audit' }), 0, 'a scheduled job is not waiting');
  t.equal(value(after, 'webperf_runners_alive'), 0, 'the runner stopped and left no heartbeat');

  // HTTP: the requests made between two scrapes, by route pattern and status class.
  for (let i = 0; i < 3; i++) t.equal((await app.inject({ url: '/info' })).statusCode, 200);
  t.equal((await app.inject({ url: '/item/987654' })).statusCode, 404);
  t.equal((await app.inject({ url: '/docs/json' })).statusCode, 200);
  t.equal((await app.inject({ url: '/no/such/page/4711' })).statusCode, 404);
  const last = await scrape();
  const delta = (labels: Record<string, string>) => (value(last, 'webperf_http_requests_total', labels) ?? 0) - (value(after, 'webperf_http_requests_total', labels) ?? 0);
  t.equal(delta({ method: 'GET', route: '/info', status_class: '2xx' }), 3);
  t.equal(delta({ method: 'GET', route: '/item/:id', status_class: '4xx' }), 1);
  t.equal(delta({ method: 'GET', route: '/docs/json', status_class: '2xx' }), 1, 'the interactive docs too');
  t.equal(delta({ method: 'GET', route: 'unmatched', status_class: '4xx' }), 1);
  t.equal(delta({ method: 'GET', route: '/metrics', status_class: '2xx' }), 1, 'the scrape before (this one is counted once answered)');
  t.notOk(last.some((s) => s.name === 'webperf_http_requests_total' && /987654|4711/.test(s.labels.route)), 'never the address asked for');
  const latency = (v: Sample[]) => value(v, 'webperf_http_request_duration_seconds_count', { method: 'GET', route: '/info' }) ?? 0;
  t.equal(latency(last) - latency(after), 3);
  t.equal(value(before, 'webperf_http_requests_total', { method: 'GET', route: '/metrics', status_class: '2xx' }), undefined, 'the first scrape had not been counted yet');
  // The keys cache: the last scrape found the admin key in it (the other requests use no key).
  const keyLookups = (v: Sample[], result: string) => value(v, 'webperf_cache_lookups_total', { cache: 'keys', result }) ?? 0;
  t.equal(keyLookups(last, 'hit') - keyLookups(after, 'hit'), 1);
  t.equal(keyLookups(last, 'miss') - keyLookups(after, 'miss'), 0);
  t.equal(keyLookups(before, 'miss'), 1, 'the first scrape looked the key up in the database');
});

t.test('GET /metrics answers only to an admin key (header or query), with the documented error body otherwise', async (t) => {
  const { app, db } = await buildTestApi(t);
  const { id: siteId } = await db.insertInto('sites').values({ title: 'Kommun', url: 'https://kommun.example/' }).returning('id').executeTakeFirstOrThrow();
  const admin = await createKey(db, { kind: 'admin', siteIds: [] });
  const standard = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  const agency = await createKey(db, { kind: 'agency', siteIds: [siteId] });

  const none = await app.inject({ url: '/metrics' });
  t.equal(none.statusCode, 401);
  t.same(none.json(), { statusCode: 401, error: 'KEY_MISSING', message: 'An api-key is required' });
  const unknown = await app.inject({ url: '/metrics', headers: { 'api-key': `${admin.key.slice(0, -4)}AAAA` } });
  t.equal(unknown.statusCode, 401);
  t.equal(unknown.json().error, 'KEY_INVALID');
  for (const key of [standard.key, agency.key]) {
    for (const res of [await app.inject({ url: '/metrics', headers: { 'api-key': key } }), await app.inject({ url: `/metrics?api-key=${encodeURIComponent(key)}` })]) {
      t.equal(res.statusCode, 403);
      t.same(res.json(), { statusCode: 403, error: 'ADMIN_REQUIRED', message: 'An admin api-key is required for /metrics' });
    }
  }
  const header = await app.inject({ url: '/metrics', headers: { 'api-key': admin.key } });
  t.equal(header.statusCode, 200);
  t.equal(header.headers['cache-control'], 'private, no-store');
  const query = await app.inject({ url: `/metrics?api-key=${encodeURIComponent(admin.key)}` });
  t.equal(query.statusCode, 200);
  t.match(query.body, /^# HELP webperf_/m);
  t.same(families(query.body), families(header.body));
  // Revoked: no longer.
  await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', admin.id).execute();
  await app.resultsCache.apply(null);
  t.equal((await app.inject({ url: '/metrics', headers: { 'api-key': admin.key } })).statusCode, 401);

  // In the OpenAPI description, for operators (not under the premium tag), with its keys.
  const spec = (await app.inject({ url: '/openapi.json' })).json();
  const op = spec.paths['/metrics'].get;
  t.same(op.tags, ['meta']);
  t.same(op.security, [{ AdminApiKey: [] }, { QueryApiKey: [] }]);
  t.match(op.description, /admin api-key/);
  t.ok(op.responses['401'] && op.responses['403']);
});

t.test('WEBPERF_METRICS_LISTEN: the API and a runner process serve the same text on an address of their own, without a key', async (t) => {
  const { db, url, config } = await buildTestApi(t);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-metrics-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const admin = await createKey(db, { kind: 'admin', siteIds: [] });

  const api = await startService({ ...config, databaseUrl: url, dataDir, port: 0, demo: false, metricsListen: { host: '127.0.0.1', port: 0 } }, { api: true, runner: false });
  t.teardown(() => api.stop());
  t.match(api.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const open = await fetch(api.metricsUrl!);
  t.equal(open.status, 200);
  t.equal(open.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const openText = await open.text();
  const keyed = await fetch(`${api.apiUrl}/metrics`, { headers: { 'api-key': admin.key } });
  t.equal(keyed.status, 200);
  const keyedText = await keyed.text();
  t.same(families(openText), families(keyedText), 'the same metrics');
  t.equal(value(parseExposition(openText), 'webperf_metrics_database_up'), 1);
  t.equal((await fetch(`${api.apiUrl}/metrics`)).status, 401, 'the API\'s own address still wants a key');
  const elsewhere = await fetch(api.metricsUrl!.replace('/metrics', '/info'));
  t.equal(elsewhere.status, 404);
  await elsewhere.text();
  const post = await fetch(api.metricsUrl!, { method: 'POST' });
  t.equal(post.status, 405);
  await post.text();

  // A runner: no API, its own scrape address; its heartbeat is in the table when it has started.
  // Before it starts, a job held by a runner that went silent two minutes ago (no heartbeat): the
  // new runner's first heartbeat unlocks it. Its task is one no runner takes, so it then waits.
  await api.stop();
  const unlockedBefore = value(parseExposition((await metricsText()).body), 'webperf_jobs_unlocked_from_silent_runners_total')!;
  await sql`select graphile_worker.add_job('roll_up_month', '{}'::json)`.execute(db);
  await sql`update graphile_worker._private_jobs set locked_at = now() - interval '2 minutes', locked_by = 'worker-gone'`.execute(db);
  const runner = await startService({ ...config, databaseUrl: url, dataDir, port: 0, demo: false, metricsListen: { host: '127.0.0.1', port: 0 } }, { api: false, runner: true });
  t.teardown(() => runner.stop());
  t.equal(runner.apiUrl, null);
  const samples = parseExposition(await (await fetch(runner.metricsUrl!)).text());
  const { rows: [beats] } = await sql<{ alive: number }>`select count(*)::int as alive from runner_heartbeats`.execute(db);
  t.equal(beats.alive, 1);
  t.equal(value(samples, 'webperf_runners_alive'), 1, 'as the heartbeats table says');
  t.equal(value(samples, 'webperf_queue_jobs', { task: 'run_tests', state: 'waiting' }), 0);
  t.equal(value(samples, 'webperf_jobs_unlocked_from_silent_runners_total'), unlockedBefore + 1, 'the silent runner\'s job');
  const { rows: held } = await sql<{ locked_by: string | null }>`select locked_by from graphile_worker.jobs`.execute(db);
  t.same(held, [{ locked_by: null }]);
  t.equal(value(samples, 'webperf_queue_jobs', { task: 'roll_up_month', state: 'waiting' }), 1, 'a task beyond the three is reported too');
  t.equal(value(samples, 'webperf_queue_jobs', { task: 'roll_up_month', state: 'running' }), 0);
  t.ok(value(samples, 'process_resident_memory_bytes')! > 0);
  await runner.stop();
  await t.rejects(fetch(runner.metricsUrl!), 'the scrape address closes with the process');
});

t.test('Chromium: every launch is counted, and a Chromium lost without close() as a crash', async (t) => {
  const counts = async () => {
    const samples = parseExposition((await metricsText()).body);
    return { launches: value(samples, 'webperf_chromium_launches_total')!, crashes: value(samples, 'webperf_chromium_crashes_total')! };
  };
  const start = await counts();
  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH));
  t.teardown(() => pool.close());
  const first = await pool.acquire();
  t.same(await counts(), { launches: start.launches + 1, crashes: start.crashes });
  const lost = new Promise((resolve) => first.once('disconnected', resolve));
  first.process()!.kill('SIGKILL');
  await lost;
  t.same(await counts(), { launches: start.launches + 1, crashes: start.crashes + 1 }, 'killed: a crash');
  const second = await pool.acquire();
  t.not(second, first, 'relaunched');
  t.same(await counts(), { launches: start.launches + 2, crashes: start.crashes + 1 });
  await pool.close();
  t.same(await counts(), { launches: start.launches + 2, crashes: start.crashes + 1 }, 'closed: no crash');
});

t.test('WEBPERF_METRICS_LISTEN: host:port or [ipv6]:port, else start-up stops with the reason', async (t) => {
  const listen = (v: string | undefined) => loadConfig({ WEBPERF_METRICS_LISTEN: v }).metricsListen;
  t.equal(listen(undefined), null);
  t.equal(listen(''), null);
  t.same(listen('127.0.0.1:9464'), { host: '127.0.0.1', port: 9464 });
  t.same(listen('[::1]:9464'), { host: '::1', port: 9464 });
  t.same(listen('metrics.internal:0'), { host: 'metrics.internal', port: 0 });
  for (const bad of ['9464', '127.0.0.1', '::1:9464', '127.0.0.1:65536', '127.0.0.1:x', 'a b:1']) {
    t.throws(() => listen(bad), { message: `WEBPERF_METRICS_LISTEN must be host:port or [ipv6]:port, e.g. 127.0.0.1:9464, got "${bad}"` }, bad);
  }
});
