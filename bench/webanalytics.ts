/**
 * Agency CSV benchmark: GET /webanalytics over 4,000 followed sites with detections, side by side
 * in one run with a bare Fastify route serving a static file of the same size (the CSV itself,
 * saved from the first answer). Time to last byte per request (median of several, alternated) and
 * the serving process's peak heap+external growth during a request; the CSV is also measured
 * with a quarter of the sites followed, to show that memory does not grow with the site count.
 *
 *   npm run bench -- webanalytics
 *   node --import tsx bench/webanalytics.ts [--sites 4000] [--rounds 7]
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../api/app.js';
import { ANALYTICS_TOOLS } from '../core/analytics.js';
import { loadConfig } from '../core/config.js';
import { createDb, type Db } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { loadPlugins } from '../core/registry.js';
import { createKey } from '../core/store/keys.js';
import { ANALYTICS_TEST_TYPE } from '../core/store/webanalytics.js';

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
  await sql`
    insert into latest_results (site_id, type_of_test, result_id, test_date)
    select site_id, type_of_test, id, test_date from test_results`.execute(db);
  await sql`
    insert into analytics_detections (site_id, run_id, url, test_date, tool)
    select distinct r.site_id, r.run_id, r.url, r.test_date, (${ANALYTICS_TOOLS}::text[])[1 + floor(random() * ${ANALYTICS_TOOLS.length}::int)::int]
    from test_results r cross join generate_series(1, 5) k where random() < 0.6`.execute(db);
  // As autovacuum would have by then: planner statistics for the fresh tables.
  await sql`analyze`.execute(db);
}

interface Sample {
  ms: number;
  bytes: number;
  peakBytes: number;
}

/** One GET to the last byte, sampling the process's heap+external meanwhile. */
async function fetchOnce(port: number, urlPath: string): Promise<Sample> {
  gc();
  // v8's own counters: cheap enough to read often (process.memoryUsage() reads /proc each time).
  const used = () => {
    const h = v8.getHeapStatistics();
    return h.used_heap_size + h.external_memory;
  };
  const baseline = used();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, used());
  }, 2);
  const started = performance.now();
  try {
    const bytes = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          peak = Math.max(peak, used());
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`HTTP ${res.statusCode}`))));
        res.on('error', reject);
      }).on('error', reject);
    });
    return { ms: performance.now() - started, bytes, peakBytes: peak - baseline };
  } finally {
    clearInterval(sampler);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;

export async function benchWebanalytics(options: { sites?: number; rounds?: number; log?: (line: string) => void } = {}): Promise<string> {
  const sites = options.sites ?? 4000;
  const rounds = options.rounds ?? 7;
  const log = options.log ?? ((line: string) => process.stderr.write(`[bench webanalytics] ${line}\n`));
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'webperf-bench-csv-'));
    stops.push(() => rm(tmp, { recursive: true, force: true }));
    const server = await startEmbeddedPostgres(path.join(tmp, 'pg'), { fast: true });
    stops.push(server.stop);
    await ensureDatabase(server.adminUrl, 'webperf_bench');
    const url = server.urlFor('webperf_bench');
    const db = createDb(url, { max: 4 });
    stops.push(() => db.destroy());
    await migrateToLatest(db);
    await seed(db, sites);
    const { key } = await createKey(db, { kind: 'admin', siteIds: [], label: 'bench' });
    log(`seeded ${sites} sites`);

    const config = loadConfig({ NODE_ENV: 'production' }, { databaseUrl: url, publicUrl: 'http://bench.example', demo: false });
    const app = await buildApp({ db, config: { ...config, databaseUrl: null }, registry: await loadPlugins(), version: 'bench', databaseUrl: null });
    await app.listen({ host: '127.0.0.1', port: 0 });
    stops.push(() => app.close());
    const apiPort = (app.server.address() as { port: number }).port;
    const csvPath = `/webanalytics?api-key=${encodeURIComponent(key)}`;

    // The static twin: the CSV's own bytes, from a file. This first answer also renders and
    // stores every site's record (seeded by SQL, none was pre-rendered): the cold case, timed.
    const file = path.join(tmp, 'webanalytics.csv');
    const coldStarted = performance.now();
    const body = await new Promise<Buffer>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: apiPort, path: csvPath }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject);
    });
    const coldMs = performance.now() - coldStarted;
    await writeFile(file, body);
    const size = (await stat(file)).size;
    const bare = Fastify();
    bare.get('/static.csv', (_req, reply) => reply.type('text/csv; charset=utf-8').send(createReadStream(file)));
    await bare.listen({ host: '127.0.0.1', port: 0 });
    stops.push(() => bare.close());
    const barePort = (bare.server.address() as { port: number }).port;

    const measure = async () => {
      const csv: Sample[] = [];
      const fixed: Sample[] = [];
      for (let i = 0; i < rounds; i++) {
        csv.push(await fetchOnce(apiPort, csvPath));
        fixed.push(await fetchOnce(barePort, '/static.csv'));
      }
      return { csv, fixed };
    };
    // A quarter of the sites followed first: the CSV's memory should not grow with the count.
    await sql`update sites set followed = (id <= ${Math.ceil(sites / 4)}::int)`.execute(db);
    await fetchOnce(apiPort, csvPath);
    const quarter = await measure();
    await sql`update sites set followed = true`.execute(db);
    await fetchOnce(apiPort, csvPath);
    const full = await measure();

    const csvMs = median(full.csv.map((s) => s.ms));
    const staticMs = median(full.fixed.map((s) => s.ms));
    const ratio = csvMs / staticMs;
    const lines = [
      `${sites} followed sites, ${ANALYTICS_TOOLS.length} tool columns, ${(size / 1024).toFixed(0)} KiB; median of ${rounds} requests each, alternated`,
      '| | time to last byte | peak heap+external growth |',
      '|---|---|---|',
      `| GET /webanalytics (${sites} sites) | ${csvMs.toFixed(1)} ms | ${mib(median(full.csv.map((s) => s.peakBytes)))} |`,
      `| bare route, static file of the same size | ${staticMs.toFixed(1)} ms | ${mib(median(full.fixed.map((s) => s.peakBytes)))} |`,
      `| GET /webanalytics (${Math.ceil(sites / 4)} sites) | ${median(quarter.csv.map((s) => s.ms)).toFixed(1)} ms | ${mib(median(quarter.csv.map((s) => s.peakBytes)))} |`,
      `| GET /webanalytics (${sites} sites), first request: no record pre-rendered yet | ${coldMs.toFixed(1)} ms | |`,
      `ratio CSV / static: ${ratio.toFixed(2)}× (goal ≤ ${GOALS.maxRatio}×); CSV under ${GOALS.maxMs} ms: ${csvMs < GOALS.maxMs ? 'yes' : 'NO'}; within ${GOALS.maxRatio}×: ${ratio <= GOALS.maxRatio ? 'yes' : 'NO'}`,
    ];
    return lines.join('\n');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { sites: { type: 'string' }, rounds: { type: 'string' } } });
  console.log(await benchWebanalytics({ sites: values.sites ? Number(values.sites) : undefined, rounds: values.rounds ? Number(values.rounds) : undefined }));
  process.exit(0);
}
