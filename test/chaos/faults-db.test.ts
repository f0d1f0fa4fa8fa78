/**
 * PostgreSQL killed (SIGKILL) under a running service that owns its embedded PostgreSQL
 * (`webperf serve`, a real child process): /health answers 503 within a second, every route that
 * needs the database answers 503 DB_UNAVAILABLE with the error body, the service starts PostgreSQL
 * again by itself and answers 200 within a minute without a restart, and a run whose results were
 * being saved at the moment of the kill has nothing half written and is stored exactly once.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { createDb } from '../../core/db/database.js';
import { stopRunningPostgres } from '../../core/db/embedded.js';
import { createKey } from '../../core/store/keys.js';
import { postmasterOf, running, spawnWebperf, stopProcess, timedFetch, until } from '../../chaos/processes.js';
import { seedLevel, seedSite } from '../helpers/seed.js';

t.test('PostgreSQL killed mid-save: 503 within a second, restarted by the service, nothing half written, the run stored once', async (t) => {
  // The page is held back until the test lets go, so that the run is surely mid-way when it wants.
  let hold = true;
  let held = 0;
  const waiting: http.ServerResponse[] = [];
  const page = '<!doctype html><html lang="en"><head><title>Held</title></head><body><main><h1>Held</h1><p>A page.</p></main></body></html>';
  const site = http.createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    held++;
    if (hold) return void waiting.push(res);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => { site.closeAllConnections(); site.close(() => r()); }));
  const siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-faults-db-'));
  const pgDir = path.join(dataDir, 'pg');
  const service = await spawnWebperf('serve', {
    WEBPERF_DATA_DIR: dataDir, PORT: '0', WEBPERF_DEMO: '0', WEBPERF_ALLOW_TARGETS: new URL(siteUrl).origin,
    LOG_LEVEL: 'warn', WEBPERF_HEARTBEAT_MS: '1000', WEBPERF_STALE_AFTER_MS: '5000', WEBPERF_JOB_TIMEOUT_MS: '90000',
  });
  t.teardown(async () => {
    await stopProcess(service);
    await stopRunningPostgres(pgDir).catch(() => {});
    await rm(dataDir, { recursive: true, force: true });
  });
  const api = service.apiUrl!;
  const first = postmasterOf(pgDir);
  const url = `postgres://webperf:webperf@127.0.0.1:${first.port}/webperf`;
  const db = createDb(url, { max: 4 });
  t.teardown(() => db.destroy());

  await seedLevel(db, 'gold', 100);
  const siteId = await seedSite(db, { title: 'Held', url: siteUrl, premiumLevel: 'gold' });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  const headers = { 'api-key': key, 'site-id': String(siteId) };
  // A row the test can lock: the save blocks on it after it has written the results.
  await db.insertInto('site_scores').values({ site_id: siteId }).execute();

  const order = await timedFetch(`${api}/retest/`, { method: 'POST', headers: { ...headers, testnums: '[18,30]' } });
  t.equal(order.status, 200, JSON.stringify(order.body));
  const runId: number = order.body.run_id;
  await until('the runner loads the page', 180_000, () => held > 0);

  const locker = new pg.Client({ connectionString: url });
  locker.on('error', () => {});
  await locker.connect();
  await locker.query('begin');
  await locker.query('select * from site_scores where site_id = $1 for update', [siteId]);
  hold = false;
  for (const res of waiting.splice(0)) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  const blocked = await until('the save waits on the locked summary row', 240_000, async () => {
    const { rows } = await locker.query<{ query: string }>(
      "select query from pg_stat_activity where wait_event_type = 'Lock' and datname = 'webperf' and query ilike '%site_scores%' and pid <> pg_backend_pid()",
    );
    return rows[0];
  }).catch(async (err) => {
    const { rows } = await locker.query("select pid, state, wait_event_type, wait_event, left(query, 200) as q from pg_stat_activity where datname = 'webperf'");
    t.comment(JSON.stringify(rows, null, 1));
    t.comment(JSON.stringify((await locker.query('select id, status, error from test_runs')).rows));
    t.comment(service.lines.slice(-40).join('\n'));
    throw err;
  });
  t.match(blocked.query, /insert into site_scores/, 'the save is mid-transaction: its results written, its summaries not yet');

  process.kill(first.pid, 'SIGKILL');
  const [health, publicSector, quota, retest] = await Promise.all([
    timedFetch(`${api}/health`),
    timedFetch(`${api}/public-sector/`),
    timedFetch(`${api}/quota/`, { headers }),
    timedFetch(`${api}/retest/`, { method: 'POST', headers: { ...headers, testnums: '[18]' } }),
  ]);
  t.equal(health.status, 503, health.error ?? '');
  if (health.status !== 503) t.comment(service.lines.slice(-60).join('\n'));
  t.ok(health.ms < 1000, `/health answered 503 within a second (${Math.round(health.ms)} ms)`);
  t.equal(health.body.database.status, 'unavailable');
  const unavailable = { statusCode: 503, error: 'DB_UNAVAILABLE', message: 'The database does not respond' };
  t.same(publicSector.body, unavailable, 'an open-data route answers 503 with the error body');
  t.same(quota.body, unavailable, 'a premium route answers 503 with the error body');
  t.same(retest.body, unavailable, 'an order answers 503 with the error body, and nothing is charged');
  t.same([publicSector.status, quota.status, retest.status], [503, 503, 503]);

  const back = Date.now();
  await until('/health is 200 again', 60_000, async () => (await timedFetch(`${api}/health`)).status === 200);
  t.ok(Date.now() - back < 60_000, `the service started PostgreSQL again by itself (${Date.now() - back} ms)`);
  await service.waitForLine(/the embedded PostgreSQL runs again/, 1000);
  const second = postmasterOf(pgDir);
  t.not(second.pid, first.pid, 'a new PostgreSQL');
  t.equal(second.port, first.port, 'on the same port');
  t.ok(running(service.pid), 'the service itself was not restarted');

  const done = await until('the run is stored', 300_000, async () => {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirst().catch(() => undefined);
    return run && (run.status === 'done' || run.status === 'failed') ? run : undefined;
  });
  t.same(done, { status: 'done', error: null });
  const results = await db.selectFrom('test_results').select(['run_id', 'type_of_test']).orderBy('type_of_test').execute();
  t.same(results, [{ run_id: runId, type_of_test: 18 }, { run_id: runId, type_of_test: 30 }], 'one set of results: the cut save left nothing behind');
  const latest = await db.selectFrom('latest_results').select('type_of_test').where('site_id', '=', siteId).orderBy('type_of_test').execute();
  t.same(latest.map((l) => l.type_of_test), [18, 30]);
  const rated = await db.selectFrom('test_results').select(['rating', 'rating_a11y', 'rating_infosec', 'rating_pagespeed', 'rating_webstandard']).execute();
  const counted = (column: keyof (typeof rated)[number]) => rated.filter((r) => r[column] !== null && Number(r[column]) >= 1).length;
  const expected = ([['kat-a11y', 'rating_a11y'], ['kat-infosec', 'rating_infosec'], ['kat-perf', 'rating_pagespeed'], ['kat-total', 'rating'], ['kat-webstandard', 'rating_webstandard']] as const)
    .map(([type, column]) => ({ type_of_score: type, score_count: counted(column) }))
    .filter((m) => m.score_count > 0);
  const monthly = await db.selectFrom('monthly_scores').select(['type_of_score', 'score_count']).where('site_id', '=', siteId).orderBy('type_of_score').execute();
  t.same(monthly, expected, 'each result counted once in the monthly scores');
  t.same(await db.selectFrom('orders').select(['status']).execute(), [{ status: 'done' }], 'one order, done: the refused order was not recorded');
  const used = await timedFetch(`${api}/quota/`, { headers });
  t.equal(used.status, 200);
  t.equal(used.body.used, 2, 'credits charged once');
  t.same(await db.selectFrom('graphile_worker.jobs' as any).select('id' as any).where('task_identifier' as any, '=', 'run_tests').execute(), [], 'no job left behind');
  t.ok(held >= 2, 'the page was loaded again after the database came back');
});
