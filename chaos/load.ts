/**
 * The load parts of the chaos suite (issue 12, "Load"), shared by the scenarios in
 * chaos/scenarios/load-*.ts and their CI-sized tests in test/chaos/load-*.test.ts:
 *
 * - `startLoadService`: the real API (`webperf api`, its own process, so it has a core of its own
 *   and the load generator does not share its event loop) over an embedded PostgreSQL, on loopback;
 * - `raceOrders`: many sites, each with its own key, racing over HTTP for their last credits, then
 *   the books checked: overspend (credits charged past a site's ceiling) and orphans (an accepted
 *   order without its ledger row or run, or a row no caller was told of);
 * - `readWhileWriting`: concurrent readers of the results endpoints while orders are placed and
 *   results are stored, with the readers' latency and errors.
 *
 * Every request goes to the loopback address the service listens on; every run is bounded in
 * request count and by an AbortSignal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../core/config.js';
import { sql } from '../core/db/kysely.js';
import { Pool, type Dispatcher } from 'undici';
import { createDb, type Db } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { createKey } from '../core/store/keys.js';
import { createSite } from '../core/store/sites.js';
import { saveRunResults } from '../core/store/runs.js';
import { runWorkerMigrations } from '../runners/worker.js';
import { outcome } from '../test/helpers/seed.js';

/** Longest a single request may take before it counts as an error (no answer). */
const REQUEST_MS = 30_000;

/** A running service: its loopback base URL and a handle on its database. */
export interface LoadService {
  base: string;
  db: Db;
  /** CPU seconds used so far by the API process and by PostgreSQL (all its processes); null where /proc cannot tell. */
  cpu(): Promise<{ api: number | null; postgres: number | null }>;
  stop(): Promise<void>;
}

/**
 * CPU seconds (user + system) a process has used, with those of its reaped children, from
 * /proc/<pid>/stat (Linux); null when it cannot be read. With `children`, its live child
 * processes are added too (PostgreSQL's backends: the postmaster reaps them when they exit).
 */
export async function cpuSeconds(pid: number, options: { children?: boolean } = {}): Promise<number | null> {
  const ticks = 100; // USER_HZ: 100 on every Linux architecture Node supports
  const read = async (p: number, withReaped: boolean): Promise<number | null> => {
    try {
      const stat = await readFile(`/proc/${p}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces), counted from field 3.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const own = Number(f[11]) + Number(f[12]);
      return (withReaped ? own + Number(f[13]) + Number(f[14]) : own) / ticks;
    } catch {
      return null;
    }
  };
  const total = await read(pid, true);
  if (total === null || !options.children) return total;
  let sum = total;
  try {
    const kids = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean).map(Number);
    for (const k of kids) sum += (await read(k, false)) ?? 0;
  } catch {
    return null;
  }
  return sum;
}

/** Embedded PostgreSQL in a temporary folder, migrated, and `webperf api` on 127.0.0.1. */
export async function startLoadService(options: { signal: AbortSignal; log: (line: string) => void }): Promise<LoadService> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'webperf-chaos-load-'));
    stops.push(() => rm(tmp, { recursive: true, force: true }));
    const pg = await startEmbeddedPostgres(path.join(tmp, 'pg'), { fast: true });
    stops.push(pg.stop);
    await ensureDatabase(pg.adminUrl, 'webperf_load');
    const url = pg.urlFor('webperf_load');
    const db = createDb(url, { max: 8 });
    stops.push(() => db.destroy());
    await migrateToLatest(db);
    await runWorkerMigrations(url);
    // WEBPERF_LOAD_CPU_PROF=<dir>: a V8 CPU profile of the API process, written when it stops.
    const prof = process.env.WEBPERF_LOAD_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WEBPERF_LOAD_CPU_PROF}`] : [];
    const child = spawn(process.execPath, [...prof, path.join(PROJECT_ROOT, 'bin', 'webperf.js'), 'api'], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', DATABASE_URL: url,
        // The limit guards the service from one caller; here one caller is the load.
        WEBPERF_RATE_LIMIT: '100000000', WEBPERF_DEMO: '0', LOG_LEVEL: 'warn',
        WEBPERF_DATA_DIR: path.join(tmp, 'data'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stops.push(() => stopChild(child));
    const base = await apiUrlOf(child, AbortSignal.any([options.signal, AbortSignal.timeout(60_000)]));
    options.log(`webperf api at ${base}, pid ${child.pid}`);
    const postmaster = Number((await readFile(path.join(tmp, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const cpu = async () => ({ api: await cpuSeconds(child.pid!), postgres: await cpuSeconds(postmaster, { children: true }) });
    return { base, db, cpu, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function apiUrlOf(child: ChildProcess, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const done = (e: Error | null, url?: string) => {
      signal.removeEventListener('abort', onAbort);
      child.off('exit', onExit);
      if (e) reject(e);
      else resolve(url!);
    };
    const onAbort = () => done(new Error(`webperf api did not start: ${err.slice(-500)}`));
    const onExit = (code: number | null) => done(new Error(`webperf api exited (${code}): ${err.slice(-500)}`));
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('exit', onExit);
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /API:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) done(null, m[1]);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** An answer read whole: its status and body text. */
export interface Answer {
  statusCode: number;
  body: string;
}

/**
 * One request through undici's dispatcher, its answer collected into a string: the load
 * generator shares the cores with the service it measures, and undici's `request` (a Readable body
 * per answer, then read as a stream) cost it about a third more CPU per order than this.
 */
export function send(pool: Pool, options: Dispatcher.DispatchOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    const chunks: Buffer[] = [];
    pool.dispatch(options, {
      onConnect() {},
      onHeaders(status) {
        statusCode = status;
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        resolve({ statusCode, body: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString() });
      },
      onError: reject,
    });
  });
}

/** Latency figures of a list of durations in ms. */
export function percentile(ms: number[], p: number): number {
  if (!ms.length) return 0;
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Stops new requests at the caller's abort or after `durationMs`; requests under way finish. */
function within(signal: AbortSignal, durationMs?: number): AbortSignal {
  return durationMs === undefined ? signal : AbortSignal.any([signal, AbortSignal.timeout(durationMs)]);
}

/** Runs `count` tasks with at most `concurrency` at once; stops starting new ones on abort. */
async function pooled(count: number, concurrency: number, signal: AbortSignal, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (!signal.aborted) {
      const i = next++;
      if (i >= count) return;
      await task(i);
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return done;
}

/** A site racing for credits, with its key. */
export interface OrderSite {
  siteId: number;
  key: string;
  ceiling: number;
  url: string;
}

/** Sites with `ceiling` credits each (their own monthly quota) and a standard key each. */
export async function arrangeOrderSites(db: Db, sites: number, ceiling: number): Promise<OrderSite[]> {
  const out: OrderSite[] = [];
  for (let i = 0; i < sites; i++) {
    const url = `https://www.last-${i}.example/`;
    const siteId = await createSite(db, { title: `Lastsajt ${i}`, url, monthlyQuota: ceiling });
    const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId], label: 'chaos load' });
    out.push({ siteId, key, ceiling, url });
  }
  return out;
}

export interface OrderRace {
  orders: number;
  accepted: number;
  refused: number;
  /** Answers other than 200 or 400 QUOTA_EXCEEDED, and requests without an answer. */
  errors: number;
  seconds: number;
  ordersPerSecond: number;
  p99Ms: number;
  /** Credits charged past the ceilings, summed over the sites (must be 0). */
  overspend: number;
  /** Accepted orders without their order, ledger row and run, plus rows no accepted answer named (must be 0). */
  orphans: number;
  /** Credits left unspent where a 1-credit order was refused (must be 0: refusals only when nothing fit). */
  wronglyRefused: number;
  firstErrors: string[];
}

/**
 * `orders` orders spread round-robin over the sites, `connections` at once over keep-alive
 * connections: 7 in 10 re-tests of one test type (1 credit), 3 in 10 one-off tests of one page
 * (15 credits). Then the books: per site the credits charged against its ceiling and the answers.
 */
export async function raceOrders(options: { base: string; db: Db; sites: OrderSite[]; orders: number; connections: number; durationMs?: number; signal: AbortSignal; atRaceEnd?: () => Promise<void> }): Promise<OrderRace> {
  const { base, db, sites } = options;
  // Each request bounded by the pool's timeouts; the run by `signal`, checked between requests.
  const pool = new Pool(base, { connections: options.connections, pipelining: 1, headersTimeout: REQUEST_MS, bodyTimeout: REQUEST_MS });
  const answers: { site: OrderSite; cost: number; status: number; orderId: number | null }[] = [];
  const latencies: number[] = [];
  let errors = 0;
  const firstErrors: string[] = [];
  const started = performance.now();
  try {
    await pooled(options.orders, options.connections, within(options.signal, options.durationMs), async (i) => {
      const site = sites[i % sites.length];
      // The kind turns per round over the sites, so every site gets both kinds.
      const once = Math.floor(i / sites.length) % 10 >= 7;
      const t0 = performance.now();
      try {
        const res = once
          ? await send(pool, {
            path: '/test_once/', method: 'POST',
            headers: { 'api-key': site.key, 'site-id': String(site.siteId), 'content-type': 'application/x-www-form-urlencoded' },
            body: `urls=${encodeURIComponent(`${site.url}sida-${i}`)}`
          })
          : await send(pool, { path: '/retest/', method: 'POST', headers: { 'api-key': site.key, 'site-id': String(site.siteId), testnums: '[30]' } });
        const body = JSON.parse(res.body) as { order_id?: number; error?: string; credits?: number };
        latencies.push(performance.now() - t0);
        const cost = once ? 15 : 1;
        if (res.statusCode === 200 && body.credits === cost && typeof body.order_id === 'number') {
          answers.push({ site, cost, status: 200, orderId: body.order_id });
        } else if (res.statusCode === 400 && body.error === 'QUOTA_EXCEEDED') {
          answers.push({ site, cost, status: 400, orderId: null });
        } else {
          errors++;
          if (firstErrors.length < 5) firstErrors.push(`${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
        }
      } catch (err) {
        errors++;
        if (firstErrors.length < 5) firstErrors.push(err instanceof Error ? err.message : String(err));
      }
    });
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  // Before the books are checked: their queries are the check's, not the orders'.
  await options.atRaceEnd?.();

  // The books, per site: what the ledger charged, against the ceiling and the answers given.
  const ids = sites.map((s) => s.siteId);
  const ledger = await db
    .selectFrom('credit_ledger')
    .select(['site_id', sql<number>`sum(credits)::int`.as('used')])
    .where('site_id', 'in', ids)
    .groupBy('site_id')
    .execute();
  const used = new Map(ledger.map((l) => [l.site_id, Number(l.used)]));
  const overspend = sites.reduce((n, s) => n + Math.max(0, (used.get(s.siteId) ?? 0) - s.ceiling), 0);
  const accepted = answers.filter((a) => a.status === 200);
  const told = new Set(accepted.map((a) => a.orderId!));
  const rows = await db
    .selectFrom('orders as o')
    .leftJoin('credit_ledger as l', 'l.order_id', 'o.id')
    .select(['o.id', 'o.site_id', 'o.credits', 'l.credits as charged', (eb) => eb.selectFrom('test_runs as r').select(eb.fn.countAll<number>().as('n')).whereRef('r.order_id', '=', 'o.id').as('runs')])
    .where('o.site_id', 'in', ids)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  let orphans = rows.filter((r) => !told.has(r.id)).length;
  for (const a of accepted) {
    const r = byId.get(a.orderId!);
    if (!r || r.site_id !== a.site.siteId || r.credits !== a.cost || r.charged !== a.cost || Number(r.runs) !== 1) orphans++;
  }
  // The answers add up to the ledger, site by site.
  for (const s of sites) {
    const charged = accepted.filter((a) => a.site === s).reduce((n, a) => n + a.cost, 0);
    if (charged !== (used.get(s.siteId) ?? 0)) orphans++;
  }
  // A 1-credit refusal while credits remained at the end would be a refusal without cause.
  const wronglyRefused = sites.filter((s) => answers.some((a) => a.site === s && a.status === 400 && a.cost === 1) && (used.get(s.siteId) ?? 0) < s.ceiling).length;
  return {
    orders: answers.length + errors,
    accepted: accepted.length,
    refused: answers.length - accepted.length,
    errors,
    seconds,
    ordersPerSecond: (answers.length + errors) / seconds,
    p99Ms: percentile(latencies, 99),
    overspend,
    orphans,
    wronglyRefused,
    firstErrors,
  };
}

export interface ReadLoad {
  reads: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  readsPerSecond: number;
  /** Written meanwhile: orders accepted or refused, results stored. */
  ordersPlaced: number;
  resultsStored: number;
  /** Orders or result writes that failed (must be 0). */
  writeErrors: number;
  firstErrors: string[];
}

/** The results endpoints a reader of one site calls, in turn. */
export function readerPaths(siteId: number): string[] {
  return [`/stats/${siteId}`, `/stats_per_month/${siteId}`, `/private_stats/${siteId}`, `/item/${siteId}`, '/stats/', `/0.1/stats/${siteId}`];
}

/**
 * `readers` concurrent readers, `reads` requests in all, spread over the sites' results endpoints
 * (each reader with its site's key), while one writer stores a result for a site after another
 * (through saveRunResults, as a runner does) and another places re-test orders over HTTP.
 */
export async function readWhileWriting(options: { base: string; db: Db; sites: OrderSite[]; readers: number; reads: number; durationMs?: number; minWrites?: number; signal: AbortSignal }): Promise<ReadLoad> {
  const { base, db, sites } = options;
  const pool = new Pool(base, { connections: options.readers, pipelining: 1, headersTimeout: REQUEST_MS, bodyTimeout: REQUEST_MS });
  const writerPool = new Pool(base, { connections: 2, pipelining: 1, headersTimeout: REQUEST_MS, bodyTimeout: REQUEST_MS });
  const latencies: number[] = [];
  let errors = 0;
  let writeErrors = 0;
  let ordersPlaced = 0;
  let resultsStored = 0;
  const firstErrors: string[] = [];
  const note = (line: string) => {
    if (firstErrors.length < 5) firstErrors.push(line);
  };
  const readersDone = new AbortController();
  const minWrites = options.minWrites ?? 1;
  // Writers go on until the readers are done and each has written at least minWrites times.
  const writing = (written: () => number) => options.signal.aborted || (readersDone.signal.aborted && written() >= minWrites);

  const orderWriter = async () => {
    for (let i = 0; !writing(() => ordersPlaced + writeErrors); i++) {
      const site = sites[i % sites.length];
      try {
        const res = await send(writerPool, { path: '/retest/', method: 'POST', headers: { 'api-key': site.key, 'site-id': String(site.siteId), testnums: '[30]' } });
        const body = JSON.parse(res.body) as { error?: string };
        if (res.statusCode === 200 || (res.statusCode === 400 && body.error === 'QUOTA_EXCEEDED')) ordersPlaced++;
        else {
          writeErrors++;
          note(`order ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
        }
      } catch (err) {
        writeErrors++;
        note(`order: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const resultWriter = async () => {
    for (let i = 0; !writing(() => resultsStored + writeErrors); i++) {
      const site = sites[i % sites.length];
      try {
        const run = await db.insertInto('test_runs').values({ site_id: site.siteId, url: site.url, status: 'running' }).returning('id').executeTakeFirstOrThrow();
        await saveRunResults(db, Number(run.id), [outcome(30, 1 + (i % 5), { pagespeed: 1 + (i % 5) }), outcome(101, 5, {}, { tools: i % 2 ? ['Matomo'] : [] })]);
        resultsStored++;
      } catch (err) {
        writeErrors++;
        note(`result: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const writers = [orderWriter(), resultWriter()];
  const started = performance.now();
  let seconds = 0;
  try {
    await pooled(options.reads, options.readers, within(options.signal, options.durationMs), async (i) => {
      const site = sites[i % sites.length];
      const paths = readerPaths(site.siteId);
      const p = paths[Math.floor(i / sites.length) % paths.length];
      const t0 = performance.now();
      try {
        const res = await send(pool, { path: p, method: 'GET', headers: { 'api-key': site.key } });
        latencies.push(performance.now() - t0);
        if (res.statusCode !== 200) {
          errors++;
          note(`${p} ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      } catch (err) {
        errors++;
        note(`${p}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    seconds = (performance.now() - started) / 1000;
  } finally {
    readersDone.abort();
    await Promise.all(writers);
    await pool.close();
    await writerPool.close();
  }
  return {
    reads: latencies.length + errors,
    errors,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    readsPerSecond: (latencies.length + errors) / seconds,
    ordersPlaced,
    resultsStored,
    writeErrors,
    firstErrors,
  };
}
