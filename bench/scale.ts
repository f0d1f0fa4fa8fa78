/**
 * Scale bench (issue 30): how many runners one PostgreSQL serves. K simulated runners (the real
 * runner code with only the page test replaced, bench/scale-runner.ts) work against one embedded
 * PostgreSQL as a user gets it (durable: fsync and synchronous commit on), K stepping through 25,
 * 50, 100, 200 and 400, while API readers read /stats/{id} and /stats_per_month/{id} at a steady
 * rate from the real API in a process of its own (bench/scale-api.ts).
 *
 *   npm run bench -- scale [options]
 *   node dist/bench/scale.js [--steps 25,50,100,200,400] [--step-seconds 60] [--page-ms 7000]
 *        [--sites 4000] [--history-sites 300] [--api-rps 50] [--processes N] [--webhook-share 0.1]
 *        [--outcomes FILE] [--record FILE]
 *
 * The page test: the demo page is tested once at the start in Chromium by the real plugins (or read
 * from --outcomes, written by --record), and each simulated run answers what each type answered,
 * after a wait of --page-ms (a real page test of the demo page takes about 7 s on this machine).
 * Runs are queued as re-tests are (queue_runs: the run and its job in one statement) at the rate K
 * runners take them, K / page time per second, over the seeded sites in turn; a tenth of the sites
 * (--webhook-share) have a webhook, whose deliveries (one per stored result) go to a receiver on
 * loopback. Each step adds runners, lets them fill (one page time and 5 s), then measures for
 * --step-seconds. At the end the queue is drained and every run is checked: stored exactly once
 * (its results counted), none lost.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { WORKER_POOL_MAX } from '../core/config.js';
import { Kysely, PostgresDialect, sql } from '../core/db/kysely.js';
import type { DB } from '../core/db/schema.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { loadPlugins } from '../core/registry.js';
import { createKey } from '../core/store/keys.js';
import { RUN_JOB, runsJson } from '../core/store/runs.js';
import { setWebhook } from '../core/store/webhooks.js';
import { runWorkerMigrations } from '../runners/worker-schema.js';
import { seedBenchData } from './api.js';
import type { ApiOrder, ApiReport } from './scale-api.js';
import { readRecordedPageTest, recordPageTest, writeRecordedPageTest } from './scale-record.js';
import type { RunnerOrder, RunnerReport } from './scale-runner.js';
import { runIfMain, textTable } from './main.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';

export interface ScaleOptions {
  steps: number[];
  stepSeconds: number;
  pageMs: number;
  sites: number;
  historySites: number;
  apiRps: number;
  /** Runner processes (default: one per 100 runners of the largest step, at most 4). */
  processes: number | null;
  webhookShare: number;
  outcomes: string | null;
  record: string | null;
  /** Diagnostic: pg_stat_statements loaded, each step's statements by PostgreSQL time printed. */
  statements: boolean;
}

/** The goals of issue 30: queue wait p99 under 1 s, API p99 under 50 ms. */
export const SCALE_GOALS = { waitP99Ms: 1_000, apiP99Ms: 50 };

export const DEFAULT_SCALE_OPTIONS: ScaleOptions = {
  steps: [25, 50, 100, 200, 400], stepSeconds: 60, pageMs: 7_000, sites: 4_000, historySites: 300, apiRps: 50,
  processes: null, webhookShare: 0.1, outcomes: null, record: null, statements: false,
};

export function parseScaleArgs(argv: string[]): ScaleOptions {
  const { values } = parseArgs({
    args: argv, strict: false,
    options: {
      steps: { type: 'string' }, 'step-seconds': { type: 'string' }, 'page-ms': { type: 'string' }, sites: { type: 'string' },
      'history-sites': { type: 'string' }, 'api-rps': { type: 'string' }, processes: { type: 'string' }, 'webhook-share': { type: 'string' },
      outcomes: { type: 'string' }, record: { type: 'string' }, statements: { type: 'boolean' },
    },
  });
  const num = (v: unknown, fallback: number) => (typeof v === 'string' && v !== '' ? Number(v) : fallback);
  const d = DEFAULT_SCALE_OPTIONS;
  const o: ScaleOptions = {
    steps: typeof values.steps === 'string' ? values.steps.split(',').map(Number) : d.steps,
    stepSeconds: num(values['step-seconds'], d.stepSeconds),
    pageMs: num(values['page-ms'], d.pageMs),
    sites: num(values.sites, d.sites),
    historySites: num(values['history-sites'], d.historySites),
    apiRps: num(values['api-rps'], d.apiRps),
    processes: typeof values.processes === 'string' ? Number(values.processes) : null,
    webhookShare: num(values['webhook-share'], d.webhookShare),
    outcomes: typeof values.outcomes === 'string' ? values.outcomes : null,
    record: typeof values.record === 'string' ? values.record : null,
    statements: values.statements === true,
  };
  if (o.steps.some((k) => !Number.isInteger(k) || k < 1) || [o.stepSeconds, o.pageMs, o.sites, o.apiRps].some((n) => !(n > 0))) throw new Error(`bench scale: bad options ${JSON.stringify(o)}`);
  return o;
}

/** What one step measured. */
export interface StepFigures {
  runners: number;
  seconds: number;
  offeredPerS: number;
  storedPerS: number;
  waitP50Ms: number;
  waitP99Ms: number;
  taken: number;
  apiRequests: number;
  apiP99Ms: number;
  apiErrors: number;
  /** Connections to the bench database at once, at most; and the most one runner held. */
  connectionsMax: number;
  perRunnerMax: number;
  /** Connections running a statement at once, at most (LISTEN excluded). */
  activeMax: number;
  pgCpuS: number;
  pgCpuPer1000: number;
  machineBusy: number;
  nodeCpuS: number;
  walBytes: number;
  walPer1000: number;
  /** Share of active-connection samples waiting, by wait event (Lock:tuple, IO:WALSync, ...). */
  waits: [string, number][];
  /** With --statements: the statements that took most of PostgreSQL's time, per 1,000 page tests. */
  statements: { ms: number; calls: number; query: string }[];
  runnerErrors: string[];
  runsFailed: number;
  storedTwice: number;
  /** Stored with results missing: lost work (must be 0). */
  lost: number;
  /** Still queued or running when the bounded drain ended: not stored yet, not lost. */
  open: number;
  queued: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** CPU seconds of a process and, when `withChildren`, of its children alive now and reaped. */
function cpuOf(pid: number, withChildren: boolean): number {
  const fields = (p: number) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    } catch {
      return null;
    }
  };
  const own = fields(pid);
  if (!own) return 0;
  const ticks = Number(own[11]) + Number(own[12]) + (withChildren ? Number(own[13]) + Number(own[14]) : 0);
  let children = 0;
  if (withChildren) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const f = fields(Number(entry));
      if (f && Number(f[1]) === pid) children += Number(f[11]) + Number(f[12]);
    }
  }
  return (ticks + children) / 100;
}

/** The machine's busy and total CPU seconds so far (/proc/stat). */
function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const total = line.reduce((a, b) => a + b, 0);
  const idle = line[3] + (line[4] ?? 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

/** A child process of the bench, its reports awaited by predicate. */
class Child<Order, Report> {
  readonly proc: ChildProcess;
  private waiting: { test: (r: Report) => boolean; resolve: (r: Report) => void }[] = [];
  constructor(file: string, onReport: (r: Report) => void) {
    this.proc = fork(file, [], { execArgv: ['--enable-source-maps'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.proc.on('message', (r: Report) => {
      onReport(r);
      for (const w of [...this.waiting]) {
        if (w.test(r)) {
          this.waiting.splice(this.waiting.indexOf(w), 1);
          w.resolve(r);
        }
      }
    });
  }
  until(test: (r: Report) => boolean, ms = 600_000): Promise<Report> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bench scale: a child did not answer within ${ms} ms`)), ms);
      this.waiting.push({ test, resolve: (r) => (clearTimeout(timer), resolve(r)) });
      this.proc.once('exit', (code) => reject(new Error(`bench scale: a child exited (${code})`)));
    });
  }
  send(order: Order): void {
    this.proc.send(order as object);
  }
}

// The API readers: plain JavaScript in a worker thread (eval), requests sent at a steady rate
// whatever the answers' times (an open loop: a slow answer does not slow the callers down).
const READERS = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, key, rps, siteCount } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let i = 0, batch = [], running = true;
parentPort.on('message', () => { running = false; });
function once(path) {
  const start = process.hrtime.bigint();
  const at = Date.now();
  const req = http.request({ host: '127.0.0.1', port, path, agent, headers: { 'api-key': key } }, (res) => {
    res.resume();
    res.on('end', () => batch.push([at, Number(process.hrtime.bigint() - start) / 1e6, res.statusCode]));
  });
  req.on('error', () => batch.push([at, Number(process.hrtime.bigint() - start) / 1e6, 0]));
  req.end();
}
const every = 1000 / rps;
let next = performance.now();
function tick() {
  if (!running) { parentPort.postMessage({ batch, done: true }); agent.destroy(); return; }
  const now = performance.now();
  while (next <= now) {
    const id = 1 + ((i * 7919) % siteCount);
    once(i % 2 ? '/stats/' + id : '/stats_per_month/' + id);
    i++;
    next += every;
  }
  if (batch.length > 200) { parentPort.postMessage({ batch }); batch = []; }
  setTimeout(tick, Math.max(0, next - performance.now()));
}
setInterval(() => { if (batch.length) { parentPort.postMessage({ batch }); batch = []; } }, 500);
tick();
`;

export async function benchScale(options: Partial<ScaleOptions> = {}, log: (line: string) => void = (l) => process.stderr.write(`[bench scale] ${l}\n`)): Promise<string> {
  const o = { ...DEFAULT_SCALE_OPTIONS, ...options };
  const maxK = Math.max(...o.steps);
  const processes = o.processes ?? Math.min(4, Math.ceil(maxK / 100));
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-scale-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));

    // The page test replayed: recorded now in Chromium, or read from a file.
    const recorded = o.outcomes ? await readRecordedPageTest(o.outcomes) : await recordPageTest(log);
    if (o.record) await writeRecordedPageTest(o.record, recorded);
    const outcomesFile = path.join(dir, 'outcomes.json');
    await writeRecordedPageTest(outcomesFile, recorded);
    const types = (await loadPlugins()).select(null).length;

    // PostgreSQL as a user gets it (durable), with room for every runner's budget and the API's.
    const maxConnections = maxK * (WORKER_POOL_MAX + 1) + 50;
    const server = await startEmbeddedPostgres(path.join(dir, 'pg'), { maxConnections, settings: o.statements ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } : {} });
    stops.push(server.stop);
    await ensureDatabase(server.adminUrl, 'webperf_scale');
    const url = server.urlFor('webperf_scale');
    log(`embedded PostgreSQL on port ${server.port} (max_connections ${maxConnections}), ${os.cpus().length} cores`);
    // The bench's own connections, opened now and kept (no idle timeout): at 400 runners the server's
    // slots are all taken, and a connection opened then for the drain's checks was refused (53300).
    const adminPool = new pg.Pool({ connectionString: `${url}?application_name=bench`, max: 3, idleTimeoutMillis: 0 });
    // An idle connection ended by the server (its stop at the end) must not end the bench.
    adminPool.on('error', () => {});
    const opened = await Promise.all([0, 1, 2].map(() => adminPool.connect()));
    for (const c of opened) c.release();
    const admin = new Kysely<DB>({ dialect: new PostgresDialect({ pool: adminPool }) });
    stops.push(() => admin.destroy());
    await migrateToLatest(admin);
    await runWorkerMigrations(url);
    if (o.statements) await sql`create extension if not exists pg_stat_statements`.execute(admin);
    log(`seeding ${o.sites} sites...`);
    const seeded = Date.now();
    await seedBenchData(admin, { sites: o.sites, months: 12, historySites: o.historySites, historyDays: 365, privateRuns: 5, categories: 12 });
    log(`seeded in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);

    // The webhook receiver, and the sites that have a webhook (one per 1 / webhookShare sites).
    const receiver = await startWebhookReceiver();
    stops.push(receiver.close);
    const hookUrl = receiver.url;
    const every = Math.max(1, Math.round(1 / o.webhookShare));
    let hooks = 0;
    for (let id = every; o.webhookShare > 0 && id <= o.sites; id += every) {
      await setWebhook(admin as never, { siteId: id, url: hookUrl, threshold: null, itemUri: `http://bench.example/item/${id}`, apiVersion: '0.1' });
      hooks++;
    }
    const { key } = await createKey(admin as never, { kind: 'admin', siteIds: [], label: 'bench' });
    await sql`analyze`.execute(admin);

    // The API in a process of its own, and its readers.
    const here = path.dirname(fileURLToPath(import.meta.url));
    const api = new Child<ApiOrder, ApiReport>(path.join(here, 'scale-api.js'), () => {});
    stops.push(async () => {
      api.send({ stop: true });
      await api.until((r) => 'stopped' in r, 20_000).catch(() => api.proc.kill());
    });
    await api.until((r) => 'alive' in r);
    api.send({ start: { url } });
    const apiPort = ((await api.until((r) => 'listening' in r)) as { listening: number }).listening;
    const apiLatencies: [number, number, number][] = [];
    const readers = new Worker(READERS, { eval: true, workerData: { port: apiPort, key, rps: o.apiRps, siteCount: o.sites } });
    readers.on('message', (m: { batch: [number, number, number][] }) => apiLatencies.push(...m.batch));
    stops.push(async () => {
      readers.postMessage('stop');
      await delay(200);
      await readers.terminate();
    });

    // The runner processes.
    const taken: { at: number; waitMs: number }[] = [];
    const runnerErrors: string[] = [];
    const children: Child<RunnerOrder, RunnerReport>[] = [];
    for (let i = 0; i < processes; i++) {
      const child = new Child<RunnerOrder, RunnerReport>(path.join(here, 'scale-runner.js'), (r) => {
        if ('taken' in r) taken.push(...r.taken);
        if ('errors' in r) runnerErrors.push(...r.errors);
      });
      children.push(child);
      stops.push(async () => {
        child.send({ stop: true });
        await child.until((r) => 'stopped' in r, 60_000).catch(() => child.proc.kill('SIGKILL'));
      });
      await child.until((r) => 'alive' in r);
      child.send({ start: { url, outcomesFile, pageMs: o.pageMs } });
      await child.until((r) => 'ready' in r);
    }
    const runnerCount = new Array<number>(processes).fill(0);

    // The feeder: re-tests queued at the step's rate, every 100 ms, in one statement each time.
    let rate = 0;
    let owed = 0;
    let nextSite = 0;
    let feeding = true;
    const runSpec = runsJson([{ siteId: 0, url: null }]);
    const feeder = (async () => {
      while (feeding) {
        owed += rate / 10;
        const n = Math.floor(owed);
        if (n > 0) {
          owed -= n;
          const ids = Array.from({ length: n }, () => 1 + (nextSite++ % o.sites));
          await sql`select queue_runs(s, null::bigint, ${runSpec}::jsonb, ${RUN_JOB.task}::text, ${RUN_JOB.maxAttempts}::int) from unnest(${ids}::int[]) s`.execute(admin).catch((err: Error) => runnerErrors.push(`feeder: ${err.message}`));
        }
        await delay(100);
      }
    })();
    stops.push(async () => {
      feeding = false;
      await feeder;
    });

    // The sampler: pg_stat_activity every 250 ms.
    type Sample = { total: number; perRunner: number; active: number; waits: Map<string, number>; activeCount: number };
    let samples: Sample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await sql<{ app: string; state: string | null; wtype: string | null; wevent: string | null; listening: boolean }>`
          select application_name as app, state, wait_event_type as wtype, wait_event as wevent, coalesce(query like 'LISTEN %', false) as listening
          from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(admin).catch(() => ({ rows: [] }));
        const per = new Map<string, number>();
        const waits = new Map<string, number>();
        let active = 0;
        for (const r of rows) {
          if (r.app.startsWith('bench-runner-')) per.set(r.app, (per.get(r.app) ?? 0) + 1);
          if (r.state === 'active' && !r.listening) {
            active++;
            const w = r.wtype ? `${r.wtype}:${r.wevent}` : 'CPU (no wait)';
            waits.set(w, (waits.get(w) ?? 0) + 1);
          }
        }
        samples.push({ total: rows.length, perRunner: Math.max(0, ...per.values()), active, waits, activeCount: active });
        await delay(250);
      }
    })();
    stops.push(async () => {
      sampling = false;
      await sampler;
    });

    const pgNow = async () => (await sql<{ now: Date; lsn: string }>`select now(), pg_current_wal_lsn()::text as lsn`.execute(admin)).rows[0];
    const nodeCpu = () => children.reduce((sum, c) => sum + cpuOf(c.proc.pid!, false), cpuOf(api.proc.pid!, false) + process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6);
    const figures: StepFigures[] = [];
    const stepRuns: { from: Date; to: Date }[] = [];
    let nextIndex = 0;
    for (const k of o.steps) {
      // Runners added, spread over the processes.
      const adding: Promise<unknown>[] = [];
      const current = runnerCount.reduce((a, b) => a + b, 0);
      const wanted = [...runnerCount];
      for (let i = current; i < k; i++) wanted[i % processes]++;
      children.forEach((child, i) => {
        const more = wanted[i] - runnerCount[i];
        if (more <= 0) return;
        child.send({ add: { count: more, firstIndex: nextIndex } });
        nextIndex += more;
        runnerCount[i] = wanted[i];
        adding.push(child.until((r) => 'added' in r && r.added === wanted[i]));
      });
      log(`step ${k} runners: starting ${k - current} more...`);
      await Promise.all(adding);
      rate = k / (o.pageMs / 1000);
      log(`step ${k} runners: ${rate.toFixed(1)} re-tests queued per second; filling for ${((o.pageMs + 5_000) / 1000).toFixed(0)} s`);
      await delay(o.pageMs + 5_000);
      const a = await pgNow();
      const aWall = Date.now();
      const aCpu = cpuOf(server.pid, true);
      const aMachine = machineCpu();
      const aNode = nodeCpu();
      const errorsBefore = runnerErrors.length;
      if (o.statements) await sql`select pg_stat_statements_reset()`.execute(admin);
      samples = [];
      log(`step ${k} runners: measuring for ${o.stepSeconds} s`);
      await delay(o.stepSeconds * 1000);
      const b = await pgNow();
      const bWall = Date.now();
      const seconds = (bWall - aWall) / 1000;
      const pgCpuS = cpuOf(server.pid, true) - aCpu;
      const bMachine = machineCpu();
      const nodeCpuS = nodeCpu() - aNode;
      const { rows: [counts] } = await sql<{ stored: number; wal: string; queued: number }>`
        select (select count(*)::int from test_runs where status = 'done' and finished_at >= ${a.now} and finished_at < ${b.now}) as stored,
          pg_wal_lsn_diff(${b.lsn}::pg_lsn, ${a.lsn}::pg_lsn)::text as wal,
          (select count(*)::int from test_runs where status = 'queued') as queued`.execute(admin);
      const waits = taken.filter((w) => w.at >= a.now.getTime() && w.at < b.now.getTime()).map((w) => w.waitMs);
      const api = apiLatencies.filter(([at]) => at >= aWall && at < bWall);
      const waitTotals = new Map<string, number>();
      let activeSamples = 0;
      for (const s of samples) {
        activeSamples += s.activeCount;
        for (const [w, n] of s.waits) waitTotals.set(w, (waitTotals.get(w) ?? 0) + n);
      }
      const stored = counts.stored;
      const wal = Number(counts.wal);
      const statements = !o.statements ? [] : (await sql<{ ms: number; calls: number; query: string }>`
        select total_exec_time::float8 as ms, calls::int as calls, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 110) as query
        from pg_stat_statements order by total_exec_time desc limit 12`.execute(admin)).rows.map((r) => ({ ...r, ms: stored ? (r.ms / stored) * 1000 : NaN, calls: stored ? (r.calls / stored) * 1000 : NaN }));
      figures.push({
        runners: k,
        seconds,
        offeredPerS: rate,
        storedPerS: stored / seconds,
        waitP50Ms: percentile(waits, 50),
        waitP99Ms: percentile(waits, 99),
        taken: waits.length,
        apiRequests: api.length,
        apiP99Ms: percentile(api.map(([, ms]) => ms), 99),
        apiErrors: api.filter(([, , status]) => status !== 200).length,
        connectionsMax: Math.max(0, ...samples.map((s) => s.total)),
        perRunnerMax: Math.max(0, ...samples.map((s) => s.perRunner)),
        activeMax: Math.max(0, ...samples.map((s) => s.active)),
        pgCpuS,
        pgCpuPer1000: stored ? (pgCpuS / stored) * 1000 : NaN,
        machineBusy: (bMachine.busy - aMachine.busy) / (bMachine.total - aMachine.total),
        nodeCpuS,
        walBytes: wal,
        walPer1000: stored ? (wal / stored) * 1000 : NaN,
        statements,
        waits: [...waitTotals].sort((x, y) => y[1] - x[1]).slice(0, 4).map(([w, n]) => [w, activeSamples ? n / activeSamples : 0]),
        runnerErrors: runnerErrors.slice(errorsBefore),
        runsFailed: 0,
        storedTwice: 0,
        lost: 0,
        open: 0,
        queued: counts.queued,
      });
      stepRuns.push({ from: a.now, to: b.now });
      const f = figures.at(-1)!;
      log(`step ${k}: ${f.storedPerS.toFixed(1)} stored/s, wait p99 ${f.waitP99Ms.toFixed(0)} ms, API p99 ${f.apiP99Ms.toFixed(1)} ms, ${f.connectionsMax} connections (${f.perRunnerMax} per runner at most), machine ${(f.machineBusy * 100).toFixed(0)} % busy`);
    }

    // Drained: no more re-tests; every run queued is stored or failed, every delivery made.
    rate = 0;
    log('draining the queue...');
    const drainUntil = Date.now() + 3 * o.pageMs + 180_000;
    for (;;) {
      const { rows: [open] } = await sql<{ n: number }>`select count(*)::int as n from test_runs where status in ('queued', 'running')`.execute(admin);
      if (open.n === 0 || Date.now() > drainUntil) break;
      await delay(1_000);
    }
    for (const [i, span] of stepRuns.entries()) {
      // The runs queued while the step was measured (the seeded runs are older: created before the bench).
      const { rows: [check] } = await sql<{ failed: number; twice: number; lost: number; open: number }>`
        select count(*) filter (where r.status = 'failed')::int as failed,
          count(*) filter (where n.results > ${types}::int)::int as twice,
          count(*) filter (where r.status = 'done' and n.results < ${types}::int)::int as lost,
          count(*) filter (where r.status in ('queued', 'running'))::int as open
        from test_runs r cross join lateral (select count(*)::int as results from test_results x where x.run_id = r.id) n
        where r.created_at >= ${span.from} and r.created_at < ${span.to}`.execute(admin);
      Object.assign(figures[i], { runsFailed: check.failed, storedTwice: check.twice, lost: check.lost, open: check.open });
      if (check.twice > 0) {
        // What a run with more results than types holds: each type's results, when, and the run's state.
        const { rows } = await sql<{ id: string; status: string; error: string | null; types: string }>`
          select r.id, r.status, r.error, string_agg(x.type_of_test || ':' || x.n || '@' || x.dates, ' ' order by x.type_of_test) as types
          from test_runs r cross join lateral (
            select type_of_test, count(*) as n, string_agg(to_char(test_date, 'HH24:MI:SS.MS'), ',') as dates from test_results where run_id = r.id group by type_of_test having count(*) > 1
          ) x
          where r.created_at >= ${span.from} and r.created_at < ${span.to}
          group by r.id, r.status, r.error order by r.id limit 3`.execute(admin);
        for (const row of rows) log(`step ${figures[i].runners}: run ${row.id} (${row.status}${row.error ? `, ${row.error}` : ''}) holds ${row.types}`);
      }
    }
    return report(figures, o, { types, recordedMs: recorded.pageTestMs, hooks, delivered: receiver.received(), maxConnections, processes, cores: os.cpus().length });
  } finally {
    await stopAll();
  }
}

function knee(figures: StepFigures[]): StepFigures | null {
  return figures.find((f) => f.waitP99Ms > SCALE_GOALS.waitP99Ms || f.apiP99Ms > SCALE_GOALS.apiP99Ms) ?? null;
}

/** What most likely limits a step: the machine's CPU, row locks, connections or the WAL. */
export function limiter(f: StepFigures, maxConnections: number): string {
  const share = (prefix: string) => f.waits.filter(([w]) => w.startsWith(prefix)).reduce((s, [, v]) => s + v, 0);
  const reasons: string[] = [];
  if (f.machineBusy > 0.9) reasons.push(`CPU (the machine ${(f.machineBusy * 100).toFixed(0)} % busy)`);
  if (share('Lock:') > 0.2) reasons.push(`row locks (${(share('Lock:') * 100).toFixed(0)} % of active samples)`);
  if (share('IO:WAL') + share('LWLock:WAL') > 0.2) reasons.push(`WAL (${((share('IO:WAL') + share('LWLock:WAL')) * 100).toFixed(0)} % of active samples)`);
  if (f.connectionsMax >= 0.95 * maxConnections) reasons.push(`connections (${f.connectionsMax} of ${maxConnections})`);
  return reasons.length ? reasons.join('; ') : 'none of CPU, locks, connections, WAL clearly';
}

function report(figures: StepFigures[], o: ScaleOptions, about: { types: number; recordedMs: number; hooks: number; delivered: number; maxConnections: number; processes: number; cores: number }): string {
  const n = (x: number, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-');
  const head = ['runners', 'offered/s', 'stored/s', 'wait p50 ms', 'wait p99 ms', 'API p99 ms', 'API req', 'conns max', 'per runner', 'active max', 'PG CPU s/1000', 'machine busy', 'WAL MB/1000', 'errors', 'twice', 'lost', 'open at end', 'waiting on (share of active samples)'];
  const rows = figures.map((f) => [
    String(f.runners), n(f.offeredPerS, 1), n(f.storedPerS, 1), n(f.waitP50Ms), n(f.waitP99Ms), n(f.apiP99Ms, 1), n(f.apiRequests), n(f.connectionsMax), n(f.perRunnerMax), n(f.activeMax),
    n(f.pgCpuPer1000, 0), `${n(f.machineBusy * 100)} %`, n(f.walPer1000 / 1e6, 1), String(f.runnerErrors.length + f.apiErrors + f.runsFailed), String(f.storedTwice), String(f.lost), String(f.open),
    f.waits.map(([w, s]) => `${w} ${n(s * 100)} %`).join(', '),
  ]);
  const k = knee(figures);
  const errors = figures.flatMap((f) => f.runnerErrors);
  return [
    `Scale: K simulated runners (the real runner code; the page test replayed: ${about.types} types as the demo page gave them, after ${o.pageMs / 1000} s; a real one took ${(about.recordedMs / 1000).toFixed(1)} s here) against one embedded PostgreSQL (durable, max_connections ${about.maxConnections}) on ${about.cores} cores; ${about.processes} runner process(es), the API in its own, its readers at ${o.apiRps} req/s (/stats/{id}, /stats_per_month/{id}).`,
    `${n(o.sites)} sites (${o.historySites} with a year of daily history), ${about.hooks} with a webhook (a delivery per stored result; ${n(about.delivered)} delivered). Re-tests queued at K / page time per second; each step fills for one page time and 5 s, then is measured for ${o.stepSeconds} s.`,
    '',
    ...textTable(head, rows, { lastFree: true }),
    '',
    k ? `Knee: ${k.runners} runners (queue wait p99 ${n(k.waitP99Ms)} ms, goal < ${SCALE_GOALS.waitP99Ms}; API p99 ${n(k.apiP99Ms, 1)} ms, goal < ${SCALE_GOALS.apiP99Ms}); limited there by ${limiter(k, about.maxConnections)}.` : `No knee up to ${Math.max(...o.steps)} runners: queue wait p99 < ${SCALE_GOALS.waitP99Ms} ms and API p99 < ${SCALE_GOALS.apiP99Ms} ms at every step.`,
    ...figures.map((f) => `  ${f.runners} runners: ${limiter(f, about.maxConnections)}; ${n(f.pgCpuS, 1)} PostgreSQL CPU s and ${n(f.nodeCpuS, 1)} Node CPU s in ${n(f.seconds)} s; ${f.queued} runs waiting at the end.`),
    errors.length ? `Errors (${errors.length}), the first: ${errors.slice(0, 5).join(' | ')}` : 'Errors: none.',
    ...figures.filter((f) => f.statements.length).flatMap((f) => [
      '',
      `Statements by PostgreSQL time at ${f.runners} runners (execution ms and calls per 1,000 page tests; pg_stat_statements):`,
      ...f.statements.map((st) => `  ${n(st.ms).padStart(8)} ms ${n(st.calls).padStart(8)} calls  ${st.query}`),
    ]),
    '',
  ].join('\n');
}

runIfMain(import.meta.url, () => benchScale(parseScaleArgs(process.argv.slice(2))));
