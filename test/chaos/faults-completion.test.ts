/**
 * The database goes away at the very moment a runner records a job's completion (issue #12).
 * graphile-worker (0.17, non-batched completion) does not await that write: its failure is an
 * unhandled rejection, and the job row stays locked by the runner's live worker pool. The runner
 * process must live on (the rejection is let pass, logged), release that one job by itself once
 * the database is back, the job runs again storing and charging nothing, and later orders are
 * tested by the same process.
 *
 * The runner is a real `webperf runner` process (real Chromium) whose DATABASE_URL points at a
 * loopback TCP relay to the test's PostgreSQL. The relay watches what the runner sends and cuts
 * (destroys every connection, refuses new ones) just before it forwards graphile-worker's
 * completion statement, so the window is hit every time and no timing decides the outcome. The
 * test's own connection (and the API's) goes direct. The page it tests is https://kommun.test/
 * (test/fixtures/sites/good), a host of a test world the runner is pointed at (world.env()).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createKey } from '../../core/store/keys.js';
import { running, spawnWebperf, until, type WebperfProcess } from '../../chaos/processes.js';
import { buildTestApi } from '../helpers/api.js';
import { seedLevel, seedSite } from '../helpers/seed.js';
import { startWorld } from '../helpers/world/index.js';

// graphile-worker's completion of a job without a queue (sql/completeJobs.js): its prepared
// statement's name (in the Parse and in every Bind), and its text (in the Parse).
const COMPLETION = [Buffer.from('complete_job/graphile_worker'), Buffer.from('delete from "graphile_worker"._private_jobs')];
const LONGEST = Math.max(...COMPLETION.map((b) => b.length));

/**
 * A loopback relay to PostgreSQL that cuts itself the first time a client sends the completion:
 * that chunk is never forwarded, every connection is destroyed and new ones are dropped at once
 * until `restore()`.
 */
async function startRelay(target: { host: string; port: number }) {
  let down = false;
  let cuts = 0;
  const sockets = new Set<net.Socket>();
  const cut = () => {
    down = true;
    cuts++;
    for (const s of sockets) s.destroy();
  };
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    // The end of the previous chunk too: a statement may be split across two chunks.
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      const seen = Buffer.concat([tail, chunk]);
      tail = seen.subarray(Math.max(0, seen.length - LONGEST));
      if (cuts === 0 && COMPLETION.some((b) => seen.includes(b))) return cut();
      if (!down) upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    get cuts() {
      return cuts;
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

t.test('a job completion lost to a database outage: the runner lives on, releases the job, nothing is stored or charged twice, later orders run', async (t) => {
  const { app, db, url } = await buildTestApi(t);
  const world = await startWorld(t);
  const site = await world.site('kommun.test', { root: 'good' });
  await seedLevel(db, 'gold', 100);
  const siteId = await seedSite(db, { title: 'Kommun', url: site.url, premiumLevel: 'gold' });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  // Page tests without Lighthouse (HTML validation, readability): the gather is a page load.
  const headers = { 'api-key': key, 'site-id': String(siteId), testnums: '[28,100]' };
  const jobs = async () => (await db.selectFrom('graphile_worker.jobs' as any).select(['id', 'task_identifier', 'locked_by'] as any).orderBy('id' as any).execute()) as { id: string; task_identifier: string; locked_by: string | null }[];
  const runStatus = async (runId: number) => {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    return run.status === 'done' || run.status === 'failed' ? run : undefined;
  };

  const direct = new URL(url);
  const relay = await startRelay({ host: direct.hostname, port: Number(direct.port) });
  t.teardown(() => relay.close());
  const relayed = new URL(url);
  relayed.host = `127.0.0.1:${relay.port}`;

  const first = await app.inject({ method: 'POST', url: '/retest/', headers });
  t.equal(first.statusCode, 200, first.body);
  const firstRun: number = first.json().run_id;
  const queued = await jobs();
  t.equal(queued.length, 1, 'one job queued');
  const jobId = Number(queued[0].id);

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-lost-completion-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  let runner: WebperfProcess | null = null;
  t.teardown(() => void runner?.child.kill('SIGKILL'));
  const t0 = Date.now();
  const at = (what: string) => t.comment(`${what} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  runner = await spawnWebperf('runner', world.env({
    DATABASE_URL: relayed.href, WEBPERF_DATA_DIR: dataDir, WEBPERF_DEMO: '0',
    // Looks for lost completions every second, releasing those announced more than 5 s ago.
    WEBPERF_HEARTBEAT_MS: '1000', WEBPERF_STALE_AFTER_MS: '60000', WEBPERF_JOB_TIMEOUT_MS: '120000', LOG_LEVEL: 'warn',
  }), 120_000);
  const pid = runner.pid;
  let exitCode: number | null | undefined;
  void runner.exited.then((code) => (exitCode = code));
  const log = () => runner!.lines.join('\n');
  at('runner started');

  // The runner tests the page, stores the run, and sends the completion: the relay cuts there.
  await until('the runner sends the completion', 180_000, () => exitCode !== undefined || relay.cuts > 0);
  at('completion sent, database cut');
  t.equal(relay.cuts, 1, 'the database was cut as the completion was sent');
  t.same(await runStatus(firstRun), { status: 'done', error: null }, 'the run was stored before the outage');
  t.same((await jobs()).map((j) => Number(j.id)), [jobId], 'its completion was lost: the job is still there');
  t.ok((await jobs())[0].locked_by, 'and still locked by the runner');
  // A short outage: the runner's polling, heartbeat and sweep fail meanwhile.
  await new Promise((r) => setTimeout(r, 2_000));
  relay.restore();
  at('database back');

  const released = await runner.waitForLine(new RegExp(`released job ${jobId} \\(run_tests\\)`), 60_000);
  at('job released');
  t.match(released, /its success .* s ago was never recorded/, 'released as a lost success');
  if (!t.ok(runner.lines.some((l) => /^\[webperf\] ignored while the database is unavailable .*: Connection terminated unexpectedly$/.test(l)), "the lost completion's rejection was let pass, logged")) t.comment(log());
  await until('the lost job runs again and completes', 30_000, async () => (await jobs()).length === 0);
  at('job re-run and completed');

  // An order placed after the outage is tested by the same runner process.
  const second = await app.inject({ method: 'POST', url: '/retest/', headers });
  t.equal(second.statusCode, 200, second.body);
  const secondRun: number = second.json().run_id;
  t.same(await until('the order placed after the outage is tested', 180_000, () => runStatus(secondRun)), { status: 'done', error: null }, 'the later order is tested');
  await until('its job completes', 20_000, async () => (await jobs()).length === 0);
  at('later order tested');

  if (!t.equal(exitCode, undefined, 'the runner did not exit')) t.comment(log());
  t.ok(running(pid), 'the runner process (same pid) is alive');
  t.equal(runner.lines.filter((l) => /released job/.test(l)).length, 1, 'exactly one job released');
  t.notOk(runner.lines.some((l) => /stderr:/.test(l) && /Unhandled|uncaught/i.test(l)), 'no uncaught error printed');
  const results = await db.selectFrom('test_results').select(['run_id', 'type_of_test', 'error']).orderBy('run_id').orderBy('type_of_test').execute();
  t.same(results, [
    { run_id: firstRun, type_of_test: 28, error: null }, { run_id: firstRun, type_of_test: 100, error: null },
    { run_id: secondRun, type_of_test: 28, error: null }, { run_id: secondRun, type_of_test: 100, error: null },
  ], 'each run stored once, the re-run job stored nothing');
  t.same(await db.selectFrom('orders').select('status').orderBy('id').execute(), [{ status: 'done' }, { status: 'done' }], 'both orders done');
  const quota = await app.inject({ url: '/quota/', headers: { 'api-key': key, 'site-id': String(siteId) } });
  t.equal(quota.json().used, 4, 'credits charged once per order (2 × 2)');
});
