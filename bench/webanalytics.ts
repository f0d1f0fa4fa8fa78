/**
 * Agency CSV benchmark: GET /webanalytics over 1,000 to 64,000 followed sites with detections, each
 * size side by side in one run with a bare Fastify route streaming a static file of the same bytes
 * (the CSV itself, saved from an answer). Time to last byte per request (median of several,
 * alternated) and the process's peak memory during a request, sampled two ways (see MemoryMode),
 * so that "memory does not grow with the number of sites" is visible per size.
 *
 *   npm run bench -- webanalytics
 *   node dist/bench/webanalytics.js [--sizes 1000,4000,16000,64000] [--rounds 7] [--memory-rounds 3]
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import Fastify from 'fastify';
import { Kysely, PostgresDialect, sql } from '../core/db/kysely.js';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { buildApp } from '../api/app.js';
import { ANALYTICS_TOOLS } from '../core/analytics.js';
import { loadConfig } from '../core/config.js';
// Its pg type parsers (bigint and numeric as numbers) apply to this pool too.
import '../core/db/database.js';
import type { Db } from '../core/db/database.js';
import type { DB } from '../core/db/schema.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { loadPlugins } from '../core/registry.js';
import { createKey } from '../core/store/keys.js';
import { ANALYTICS_TEST_TYPE } from '../core/store/webanalytics.js';
import { runIfMain } from './main.js';

/** Goals of the issue: under 1 s to the last byte, within 2× the static file. */
export const GOALS = { maxMs: 1000, maxRatio: 2 };

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Every site gets one analytics run with 0–5 tools, set-based. */
export async function seed(db: Db, sites: number): Promise<void> {
  await sql`select setseed(0.42)`.execute(db);
  await sql`
    insert into sites (title, url, followed)
    select case when g % 50 = 0 then '=Webbplats; "' || g || '"' else 'Webbplats ' || g end, 'https://webbplats-' || g || '.example/', true
    from generate_series(1, ${sites}::int) g`.execute(db);
  await sql`
    insert into test_runs (site_id, url, status, created_at, finished_at)
    select id, url, 'done', now() - make_interval(mins => id), now() - make_interval(mins => id) from sites`.execute(db);
  await sql`
    insert into test_results (run_id, site_id, private, url, type_of_test, rating, reports, json_check_data, test_date)
    select r.id, r.site_id, false, r.url, ${ANALYTICS_TEST_TYPE}::int, 5, '{}'::jsonb, '{}'::jsonb, r.finished_at from test_runs r`.execute(db);
  // Every site's CSV record is still cleared (none rendered since the sites' insert): the
  // triggers that would clear each again, row by row, are not needed for this bulk load.
  await sql`alter table latest_results disable trigger analytics_csv_latest`.execute(db);
  await sql`alter table analytics_detections disable trigger analytics_csv_detection`.execute(db);
  await sql`
    insert into latest_results (site_id, type_of_test, result_id, test_date)
    select site_id, type_of_test, id, test_date from test_results`.execute(db);
  await sql`
    insert into analytics_detections (site_id, run_id, url, test_date, tool)
    select distinct r.site_id, r.run_id, r.url, r.test_date, (${ANALYTICS_TOOLS}::text[])[1 + floor(random() * ${ANALYTICS_TOOLS.length}::int)::int]
    from test_results r cross join generate_series(1, 5) k where random() < 0.6`.execute(db);
  await sql`alter table latest_results enable trigger analytics_csv_latest`.execute(db);
  await sql`alter table analytics_detections enable trigger analytics_csv_detection`.execute(db);
  // As autovacuum would have by then: planner statistics for the fresh tables.
  await sql`analyze`.execute(db);
}

interface Sample {
  ms: number;
  bytes: number;
  /** Highest memory above the baseline taken after a full collection before the request. */
  peakBytes: number;
}

/**
 * How a request's memory is sampled:
 * - `live`: a full collection before every sample, so a sample counts only what is still
 *   reachable (the records, buffers and cursor rows held at that moment). Samples at every chunk
 *   the client receives and at every turn of the event loop. Slow; its requests are not timed.
 * - `allocated`: no collection, samples as often; what the process has allocated and not yet
 *   collected. Garbage stays in V8's young generation until a scavenge, so this grows with the
 *   bytes sent until the next scavenge, whether or not anything is held: it measures allocation
 *   volume, not what the response keeps. Shown beside `live` because it is the old figure.
 */
type MemoryMode = 'live' | 'allocated';

/** Heap in use plus memory outside it (Buffers and other ArrayBuffers are counted in external). */
function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/**
 * A full collection whose freed memory is counted: V8 frees dead ArrayBuffers' memory (Buffers)
 * on a background thread after a collection, so right after one gc() `external` still counts
 * them; the next collection first waits for that sweep to finish.
 */
function fullGc(): void {
  gc();
  gc();
}

/** One GET to the last byte: timed alone (`time`), or with the process's memory sampled meanwhile. */
async function fetchOnce(port: number, urlPath: string, mode: 'time' | MemoryMode): Promise<Sample> {
  fullGc();
  const baseline = used();
  let peak = baseline;
  const sample = mode === 'time' ? () => {} : mode === 'live' ? () => {
    fullGc();
    peak = Math.max(peak, used());
  } : () => {
    peak = Math.max(peak, used());
  };
  // Once per turn of the event loop: every step of the response (a cursor batch arriving, a
  // chunk written) runs in some turn, so the state after each is seen.
  let sampling = mode !== 'time';
  const tick = () => {
    if (!sampling) return;
    sample();
    setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  try {
    const bytes = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          sample();
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`HTTP ${res.statusCode}`))));
        res.on('error', reject);
      }).on('error', reject);
    });
    const ms = performance.now() - started;
    sample();
    return { ms, bytes, peakBytes: peak - baseline };
  } finally {
    sampling = false;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
const range = (xs: number[]) => `${kib(median(xs))} (${kib(Math.min(...xs))}–${kib(Math.max(...xs))})`;

export const DEFAULT_SIZES = [1000, 4000, 16000, 64000];

export async function benchWebanalytics(options: { sizes?: number[]; rounds?: number; memoryRounds?: number; log?: (line: string) => void } = {}): Promise<string> {
  const sizes = [...(options.sizes ?? DEFAULT_SIZES)].sort((a, b) => a - b);
  const goalSize = sizes.includes(4000) ? 4000 : sizes[sizes.length - 1];
  const rounds = options.rounds ?? 7;
  const memoryRounds = options.memoryRounds ?? 3;
  const log = options.log ?? ((line: string) => process.stderr.write(`[bench webanalytics] ${line}\n`));
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'webperf-bench-csv-'));
    stops.push(() => rm(tmp, { recursive: true, force: true }));
    const server = await startEmbeddedPostgres(path.join(tmp, 'pg'), { fast: true });
    stops.push(server.stop);
    await ensureDatabase(server.adminUrl, 'webperf_bench');
    const url = server.urlFor('webperf_bench');
    // The service's pool and cursor, without its 30 s query limit: the memory runs below take a
    // full collection at every turn of the event loop, which makes a 64,000-site answer slow.
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    // As createDb: an idle client losing its server must not crash the process.
    pool.on('error', () => {});
    const db: Db = new Kysely<DB>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
    stops.push(() => db.destroy());
    await migrateToLatest(db);
    const largest = sizes[sizes.length - 1];
    // Seeded over a connection of its own without the service's 30 s query limit: bulk loads of
    // 64,000 sites can exceed it on a busy machine.
    const seeder = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
    await seed(seeder, largest).finally(() => seeder.destroy());
    const { key } = await createKey(db, { kind: 'admin', siteIds: [], label: 'bench' });
    log(`seeded ${largest} sites`);

    const config = loadConfig({ NODE_ENV: 'production' }, { databaseUrl: url, publicUrl: 'http://bench.example', demo: false });
    const app = await buildApp({ db, config: { ...config, databaseUrl: null }, registry: await loadPlugins(), version: 'bench', databaseUrl: null });
    await app.listen({ host: '127.0.0.1', port: 0 });
    stops.push(() => app.close());
    const apiPort = (app.server.address() as { port: number }).port;
    const csvPath = `/webanalytics?api-key=${encodeURIComponent(key)}`;

    // The static twins: each size's CSV bytes, from a file, on a bare route.
    const bare = Fastify();
    bare.get<{ Params: { n: string } }>('/static/:n', (req, reply) => reply.type('text/csv; charset=utf-8').send(createReadStream(path.join(tmp, `webanalytics-${Number(req.params.n)}.csv`))));
    await bare.listen({ host: '127.0.0.1', port: 0 });
    stops.push(() => bare.close());
    const barePort = (bare.server.address() as { port: number }).port;
    const getBody = () => new Promise<Buffer>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: apiPort, path: csvPath }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject);
    });

    // The first answer renders and stores every site's record (seeded by SQL, none was
    // pre-rendered): the cold case, timed once, at the largest size.
    const coldStarted = performance.now();
    await getBody();
    const coldMs = performance.now() - coldStarted;

    const rows: string[] = [];
    let goal = { csvMs: 0, staticMs: 0 };
    for (const n of sizes) {
      await sql`update sites set followed = (id <= ${n}::int)`.execute(db);
      const body = await getBody();
      await writeFile(path.join(tmp, `webanalytics-${n}.csv`), body);
      const staticPath = `/static/${n}`;
      // Warm both once more, then alternate: the same machine load for both.
      await fetchOnce(apiPort, csvPath, 'time');
      await fetchOnce(barePort, staticPath, 'time');
      const t = { csv: [] as number[], fixed: [] as number[] };
      for (let i = 0; i < rounds; i++) {
        t.csv.push((await fetchOnce(apiPort, csvPath, 'time')).ms);
        t.fixed.push((await fetchOnce(barePort, staticPath, 'time')).ms);
      }
      const m = { csvLive: [] as number[], fixedLive: [] as number[], csvAlloc: [] as number[], fixedAlloc: [] as number[] };
      for (let i = 0; i < memoryRounds; i++) {
        m.csvLive.push((await fetchOnce(apiPort, csvPath, 'live')).peakBytes);
        m.fixedLive.push((await fetchOnce(barePort, staticPath, 'live')).peakBytes);
        m.csvAlloc.push((await fetchOnce(apiPort, csvPath, 'allocated')).peakBytes);
        m.fixedAlloc.push((await fetchOnce(barePort, staticPath, 'allocated')).peakBytes);
      }
      const csvMs = median(t.csv);
      const staticMs = median(t.fixed);
      if (n === goalSize) goal = { csvMs, staticMs };
      log(`${n} sites: ${csvMs.toFixed(1)} ms vs ${staticMs.toFixed(1)} ms, live ${kib(median(m.csvLive))} vs ${kib(median(m.fixedLive))}`);
      rows.push(`| ${n} | ${kib(body.length)} | ${csvMs.toFixed(1)} ms | ${staticMs.toFixed(1)} ms | ${(csvMs / staticMs).toFixed(2)}× | ${range(m.csvLive)} | ${range(m.fixedLive)} | ${range(m.csvAlloc)} | ${range(m.fixedAlloc)} |`);
    }

    const ratio = goal.csvMs / goal.staticMs;
    const lines = [
      `GET /webanalytics beside a bare Fastify route streaming a static file of the same bytes, per number of followed sites (${ANALYTICS_TOOLS.length} tool columns).`,
      `Time to last byte: median of ${rounds} requests each, alternated. Memory: heapUsed + external (Buffers included) above a baseline taken after a full GC,`,
      `median (min–max) of ${memoryRounds} requests; "live" forces a full GC before every sample (what the response holds), "allocated" does not (garbage not yet collected counts).`,
      '| sites | CSV size | CSV time | static time | ratio | CSV live peak | static live peak | CSV allocated peak | static allocated peak |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
      `First request at ${largest} sites, no record pre-rendered yet (renders and stores them all): ${coldMs.toFixed(0)} ms`,
      `At ${goalSize} sites: ratio CSV / static ${ratio.toFixed(2)}× (goal ≤ ${GOALS.maxRatio}×); CSV under ${GOALS.maxMs} ms: ${goal.csvMs < GOALS.maxMs ? 'yes' : 'NO'}; within ${GOALS.maxRatio}×: ${ratio <= GOALS.maxRatio ? 'yes' : 'NO'}`,
    ];
    return lines.join('\n');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({ options: { sizes: { type: 'string' }, rounds: { type: 'string' }, 'memory-rounds': { type: 'string' } } });
  const num = (v: string | undefined) => (v ? Number(v) : undefined);
  return benchWebanalytics({ sizes: values.sizes?.split(',').map(Number), rounds: num(values.rounds), memoryRounds: num(values['memory-rounds']) });
});
