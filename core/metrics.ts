/**
 * The service's metrics for operators (Prometheus text format, `prom-client`): one registry per
 * process and the metric definitions, with small functions the other layers call where things
 * happen (a run stored, Chromium launched, a webhook attempt made, an HTTP answer sent, a cache
 * looked up). What lives in the database (the queue, the runners' heartbeats, disabled webhooks)
 * is read when a scraper asks, in one query, from the database the process watches
 * (`watchDatabase`): every process kind reports it, so a scraper may ask any of them.
 *
 * Served by the API at GET /metrics (admin key, api/plugins/metrics.ts) and, for every process
 * kind, the runner too, at an address of its own for scrapers (`serveMetrics`,
 * WEBPERF_METRICS_LISTEN). Node's own metrics (event loop lag, heap, GC) are switched on with the
 * first of them, so that a command that serves no metrics pays nothing for them.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sql, type Kysely } from './db/kysely.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { answerClientError, MAX_HEADER_BYTES } from './net/lingering-close.js';

/** The process's registry: what GET /metrics and the scrape address answer. */
export const registry = new Registry();

/** The graphile-worker tasks reported even while they have no job (so their series exist). */
export const QUEUE_TASKS = ['run_tests', 'run_audit', 'deliver_webhook'] as const;

/** Phases of a run: the page load (gather), the plugins, and storing the results (save). */
export type RunPhase = 'gather' | 'plugins' | 'save';

// --- runs -------------------------------------------------------------------------------------

const testRuns = new Counter({
  name: 'webperf_test_runs_total',
  help: 'Tests of a page by test type: done (a result stored), error (a result stored that says the test could not be completed), failed (the run failed, nothing stored)',
  labelNames: ['type_of_test', 'outcome'] as const,
  registers: [registry],
});

const runs = new Counter({
  name: 'webperf_runs_total',
  help: 'Runs (one page, one load) that ended: done (results stored) or failed (no attempt left)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const testDuration = new Histogram({
  name: 'webperf_test_duration_seconds',
  help: 'Time one test type (plugin) took on a loaded page, by test type',
  labelNames: ['type_of_test'] as const,
  buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

const phaseDuration = new Histogram({
  name: 'webperf_run_phase_duration_seconds',
  help: 'Time a phase of a run took: gather (the page load, Lighthouse and the probes), plugins, save (storing the results)',
  labelNames: ['phase'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 180],
  registers: [registry],
});

const chromiumLaunches = new Counter({ name: 'webperf_chromium_launches_total', help: 'Chromium launches (the first and every relaunch) of this process', registers: [registry] });
const chromiumCrashes = new Counter({ name: 'webperf_chromium_crashes_total', help: 'Chromium processes lost without being closed (crashed, killed, disconnected)', registers: [registry] });

// --- runners ----------------------------------------------------------------------------------

const silentUnlocked = new Counter({
  name: 'webperf_jobs_unlocked_from_silent_runners_total',
  help: 'Jobs this process unlocked because the runner holding them had gone silent (no heartbeat)',
  registers: [registry],
});

// --- webhooks ---------------------------------------------------------------------------------

const webhookAttempts = new Counter({
  name: 'webperf_webhook_attempts_total',
  help: 'Webhook delivery attempts, by what became of the delivery: delivered, gone (410: webhook disabled), retry (another attempt follows), failed (no attempt left)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const webhookDeliveries = new Counter({
  name: 'webperf_webhook_deliveries_total',
  help: 'Webhook deliveries that ended: delivered, gone (410) or failed',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const webhookDuration = new Histogram({
  name: 'webperf_webhook_attempt_duration_seconds',
  help: 'Time a webhook delivery attempt took, until the receiver answered or the attempt gave up',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

// --- HTTP and caches --------------------------------------------------------------------------

const httpRequests = new Counter({
  name: 'webperf_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status class',
  labelNames: ['method', 'route', 'status_class'] as const,
  registers: [registry],
});

const httpDuration = new Histogram({
  name: 'webperf_http_request_duration_seconds',
  help: 'Time from a request received to its answer sent, by method and route pattern',
  labelNames: ['method', 'route'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const cacheLookups = new Counter({
  name: 'webperf_cache_lookups_total',
  help: 'In-process cache lookups, by cache and result (hit or miss); hit ratio = hits / (hits + misses)',
  labelNames: ['cache', 'result'] as const,
  registers: [registry],
});

const rateLimitInMemory = new Gauge({
  name: 'webperf_rate_limit_counting_in_memory',
  help: '1 once this API process counts the rate limit in its own memory because the count shared in PostgreSQL did not answer in time (each process then limits on its own), until a request is counted there again; else 0',
  registers: [registry],
});
const rateLimitFallbacks = new Counter({
  name: 'webperf_rate_limit_fallbacks_total',
  help: 'Times this API process began counting the rate limit in its own memory (the shared count in PostgreSQL did not answer)',
  registers: [registry],
});

// --- read from the database at scrape time ----------------------------------------------------

/** What one query reads for a scrape. */
interface DbSnapshot {
  queue: { task: string; waiting: number; scheduled: number; running: number; failed: number; oldest_waiting_s: number | null }[];
  runners_alive: number;
  webhooks_disabled: number;
}

interface Watched {
  db: Kysely<any>;
  staleAfterMs: number;
}

/** The databases watched, the latest last (a test builds several apps in one process). */
const watched: Watched[] = [];
/** The query of the scrape under way: the gauges of one scrape are collected at once and share it. */
let snapshot: Promise<DbSnapshot | null> | null = null;
/** Longest wait for the snapshot; a scrape without it still answers, with database_up 0. */
const SNAPSHOT_TIMEOUT_MS = 5_000;

/**
 * Reads the queue, the heartbeats and the webhooks from `db` at each scrape; `staleAfterMs`: a
 * runner silent this long is not alive (the heartbeat's own rule). Returns the function that stops.
 */
export function watchDatabase(db: Kysely<any>, options: { staleAfterMs: number }): () => void {
  const entry: Watched = { db, staleAfterMs: options.staleAfterMs };
  watched.push(entry);
  return () => {
    const i = watched.indexOf(entry);
    if (i >= 0) watched.splice(i, 1);
    snapshot = null;
  };
}

async function readSnapshot(source: Watched): Promise<DbSnapshot> {
  // One round trip; graphile-worker deletes completed jobs, so its table holds only what is
  // pending, running or failed for good.
  const { rows } = await sql<DbSnapshot>`
    select
      (select coalesce(json_agg(q), '[]'::json) from (
        select task_identifier as task,
          count(*) filter (where locked_at is null and attempts < max_attempts and run_at <= now())::int as waiting,
          count(*) filter (where locked_at is null and attempts < max_attempts and run_at > now())::int as scheduled,
          count(*) filter (where locked_at is not null)::int as running,
          count(*) filter (where locked_at is null and attempts >= max_attempts)::int as failed,
          extract(epoch from now() - min(run_at) filter (where locked_at is null and attempts < max_attempts and run_at <= now()))::float8 as oldest_waiting_s
        from graphile_worker.jobs group by task_identifier
      ) q) as queue,
      (select count(*)::int from runner_heartbeats
        where last_seen >= now() - make_interval(secs => ${source.staleAfterMs / 1000}::double precision)) as runners_alive,
      (select count(*)::int from webhooks where disabled_at is not null) as webhooks_disabled
  `.execute(source.db);
  return rows[0];
}

function currentSnapshot(): Promise<DbSnapshot | null> {
  const source = watched.at(-1);
  if (!source) return Promise.resolve(null);
  // The gauges of one scrape are collected together: one query serves them all, and the next
  // scrape reads afresh.
  if (snapshot) return snapshot;
  let timer: NodeJS.Timeout | undefined;
  const promise = Promise.race([
    readSnapshot(source),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), SNAPSHOT_TIMEOUT_MS);
      timer.unref();
    }),
  ])
    .catch(() => null)
    .finally(() => {
      clearTimeout(timer);
      if (snapshot === promise) snapshot = null;
    });
  snapshot = promise;
  return promise;
}

const databaseUp = new Gauge({
  name: 'webperf_metrics_database_up',
  help: '1 when the metrics read from the database (queue, runners, webhooks) could be read at this scrape, else 0 (they are then left out, or NaN)',
  registers: [registry],
  async collect() {
    this.set((await currentSnapshot()) ? 1 : 0);
  },
});
void databaseUp;

/**
 * A gauge set from the scrape's snapshot. Without one (the database did not answer) it reports
 * nothing, or NaN when it has no labels (prom-client always reports those): neither reads as 0.
 */
function snapshotGauge<L extends string>(config: { name: string; help: string; labelNames?: readonly L[] }, fill: (gauge: Gauge<L>, s: DbSnapshot) => void): Gauge<L> {
  return new Gauge<L>({
    ...config,
    registers: [registry],
    async collect() {
      this.reset();
      const s = await currentSnapshot();
      if (s) fill(this, s);
      else if (!config.labelNames?.length) this.set(NaN);
    },
  });
}

/** Every reported task: the three of the service, then any other found in the queue. */
function queueRows(s: DbSnapshot): DbSnapshot['queue'] {
  const rows = [...s.queue];
  for (const task of QUEUE_TASKS) {
    if (!rows.some((r) => r.task === task)) rows.push({ task, waiting: 0, scheduled: 0, running: 0, failed: 0, oldest_waiting_s: null });
  }
  return rows;
}

snapshotGauge({
  name: 'webperf_queue_jobs',
  help: 'Jobs in the queue by task and state: waiting (may run now), scheduled (waits for its time: a retry), running (locked by a runner), failed (no attempt left)',
  labelNames: ['task', 'state'] as const,
}, (gauge, s) => {
  for (const row of queueRows(s)) {
    for (const state of ['waiting', 'scheduled', 'running', 'failed'] as const) gauge.set({ task: row.task, state }, row[state]);
  }
});

snapshotGauge({
  name: 'webperf_queue_oldest_waiting_age_seconds',
  help: 'How long the oldest job that may run now has waited for a runner, by task (0: none waits)',
  labelNames: ['task'] as const,
}, (gauge, s) => {
  for (const row of queueRows(s)) gauge.set({ task: row.task }, Math.max(0, row.oldest_waiting_s ?? 0));
});

snapshotGauge({ name: 'webperf_runners_alive', help: 'Runners whose heartbeat is fresh (younger than WEBPERF_STALE_AFTER_MS)' }, (gauge, s) => gauge.set(s.runners_alive));

snapshotGauge({ name: 'webperf_webhooks_disabled', help: 'Webhooks disabled (410 Gone, or failing for days)' }, (gauge, s) => gauge.set(s.webhooks_disabled));

// --- what the other layers call ---------------------------------------------------------------

let defaults = false;

/** Switches on Node's own metrics (event loop lag, heap, GC, CPU) once per process. */
export function enableDefaultMetrics(): void {
  if (defaults) return;
  defaults = true;
  collectDefaultMetrics({ register: registry });
}

/** The text a scraper reads, and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** A run's results were stored: one outcome per test type (`error` set: it could not be completed). */
export function recordRunStored(outcomes: readonly { typeOfTest: number; error: string | null }[], saveMs: number): void {
  runs.inc({ outcome: 'done' });
  for (const o of outcomes) testRuns.inc({ type_of_test: String(o.typeOfTest), outcome: o.error === null ? 'done' : 'error' });
  phaseDuration.observe({ phase: 'save' }, saveMs / 1000);
}

/** A run failed for good (no attempt left): nothing was stored for its test types. */
export function recordRunFailed(typesOfTest: readonly number[]): void {
  runs.inc({ outcome: 'failed' });
  for (const type of typesOfTest) testRuns.inc({ type_of_test: String(type), outcome: 'failed' });
}

/** The times of a run's page test: its phases, and each test type's own time. */
export function recordPageTest(times: { gatherMs: number; pluginsMs: number; outcomes: readonly { typeOfTest: number; durationMs: number }[] }): void {
  phaseDuration.observe({ phase: 'gather' }, times.gatherMs / 1000);
  phaseDuration.observe({ phase: 'plugins' }, times.pluginsMs / 1000);
  for (const o of times.outcomes) testDuration.observe({ type_of_test: String(o.typeOfTest) }, o.durationMs / 1000);
}

export function recordChromiumLaunch(): void {
  chromiumLaunches.inc();
}

export function recordChromiumCrash(): void {
  chromiumCrashes.inc();
}

export function recordSilentRunnerJobsUnlocked(jobs: number): void {
  if (jobs > 0) silentUnlocked.inc(jobs);
}

/** One webhook attempt and what became of its delivery. */
export function recordWebhookAttempt(outcome: 'delivered' | 'gone' | 'retry' | 'failed', durationMs: number | null): void {
  webhookAttempts.inc({ outcome });
  if (outcome !== 'retry') webhookDeliveries.inc({ outcome });
  if (durationMs !== null) webhookDuration.observe(durationMs / 1000);
}

/** An HTTP answer: `route` is the route's pattern (never the address asked for), null when none matched. */
export function recordHttpRequest(method: string, route: string | null, status: number, durationMs: number): void {
  const r = route ?? 'unmatched';
  httpRequests.inc({ method, route: r, status_class: `${Math.floor(status / 100)}xx` });
  httpDuration.observe({ method, route: r }, durationMs / 1000);
}

/** Where this process's rate limit counts now: the shared count in the database, or its memory while that one does not answer. */
export function recordRateLimitCounting(where: 'database' | 'memory'): void {
  rateLimitInMemory.set(where === 'memory' ? 1 : 0);
  if (where === 'memory') rateLimitFallbacks.inc();
}

/** A counter of one cache's lookups, bound to its name once (the lookup is a hot path). */
export function cacheLookupCounter(cache: string): (hit: boolean) => void {
  const hits = cacheLookups.labels({ cache, result: 'hit' });
  const misses = cacheLookups.labels({ cache, result: 'miss' });
  return (hit) => (hit ? hits.inc() : misses.inc());
}

/** A listen address for scrapers (WEBPERF_METRICS_LISTEN). */
export interface ListenAddress {
  host: string;
  port: number;
}

/** The scrape address's server. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the registry at GET /metrics on an address of its own, with plain node:http and no key:
 * for a runner (which has no API) and for scrapers on a private network. The operator chooses who
 * can reach it by the address it listens on (loopback by default in the documentation).
 */
export async function serveMetrics(address: ListenAddress): Promise<MetricsServer> {
  enableDefaultMetrics();
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8', ...(path === '/metrics' ? { allow: 'GET, HEAD' } : {}) });
      res.end(path === '/metrics' ? 'Method not allowed\n' : 'Not found: the metrics are at /metrics\n');
      return;
    }
    metricsText().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('The metrics could not be collected\n');
      },
    );
  });
  // An oversized request is answered, as the API answers it, before the connection closes.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket as Socket));
  // Scrapers keep connections open: none may hold up a stop.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
