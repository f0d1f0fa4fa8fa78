/**
 * Pipeline benchmark, measured side by side in one run on the demo page:
 *   A. one bare Lighthouse run (its Node API, the gather step's flags, same Chromium flags);
 *   B. our full pipeline through the runner: queue → gather → every plugin → stored results;
 *   C. the naive way: every family loads the page itself (one gather per plugin).
 * Runs are interleaved (A, B, C, A, B, C, ...) after a warm-up, and medians are reported.
 *
 *   npm run bench            (this and the API benchmark)
 *   node --import tsx bench/pipeline.ts [--rounds 3]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import lighthouse from 'lighthouse';
import { findChromium } from '../core/config.js';
import { createDb } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { gather, LIGHTHOUSE_FLAGS } from '../core/gather/gather.js';
import { createProbes } from '../core/net/probes.js';
import { TargetGuard } from '../core/net/target-guard.js';
import { runPlugin } from '../core/pipeline.js';
import { loadPlugins } from '../core/registry.js';
import { queueRun } from '../core/store/runs.js';
import { BrowserPool } from '../runners/browser-pool.js';
import { DEMO_ROOT } from '../runners/demo.js';
import { startStaticSite } from '../runners/static-site.js';
import { runWorkerMigrations, startWorker } from '../runners/worker.js';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchPipeline(rounds = 3): Promise<string> {
  const chromium = findChromium(process.env.CHROMIUM_PATH);
  if (!chromium) throw new Error('Chromium was not found: install it with `apt-get install chromium`');
  const site = await startStaticSite(DEMO_ROOT);
  const guard = new TargetGuard([new URL(site.url).origin]);
  const registry = await loadPlugins();
  const plugins = registry.select(null);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-bench-'));
  const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), { fast: true });
  await ensureDatabase(pg.adminUrl, 'bench');
  const url = pg.urlFor('bench');
  const db = createDb(url);
  await migrateToLatest(db);
  await runWorkerMigrations(url);
  const siteRow = await db.insertInto('sites').values({ title: 'demo', url: site.url }).returning('id').executeTakeFirstOrThrow();
  const pool = new BrowserPool(chromium);
  const worker = await startWorker({ db, connectionString: url, pool, guard, registry, concurrency: 1, jobTimeoutMs: 300_000, schedule: false });

  const bare = async () => {
    const browser = await pool.acquire();
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const t0 = performance.now();
    await lighthouse(site.url, { ...LIGHTHOUSE_FLAGS }, undefined, page as any);
    const ms = performance.now() - t0;
    await context.close();
    return ms;
  };
  const full = async () => {
    const t0 = performance.now();
    const runId = await queueRun(db, { siteId: siteRow.id, url: site.url });
    for (;;) {
      const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
      if (run.status === 'done') break;
      if (run.status === 'failed') throw new Error(`run failed: ${run.error}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return performance.now() - t0;
  };
  const naive = async () => {
    const browser = await pool.acquire();
    const t0 = performance.now();
    for (const plugin of plugins) {
      const artifacts = await gather(site.url, { browser, guard });
      await runPlugin(plugin, artifacts, { probes: createProbes(guard) });
    }
    return performance.now() - t0;
  };

  try {
    await bare();
    await full();
    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    for (let i = 0; i < rounds; i++) {
      a.push(await bare());
      b.push(await full());
      c.push(await naive());
    }
    const ma = median(a);
    const mb = median(b);
    const mc = median(c);
    const f = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    return [
      `Pipeline on the demo page (${site.url}), ${plugins.length} test types (${plugins.map((p) => p.meta.id).join(', ')}), median of ${rounds} interleaved rounds after a warm-up:`,
      `  A  bare Lighthouse run (Node API, same flags)        ${f(ma)}   runs: ${a.map(f).join(', ')}`,
      `  B  full pipeline via the runner (queue→stored)     ${f(mb)}   runs: ${b.map(f).join(', ')}`,
      `  C  naive: one page load per test type               ${f(mc)}   runs: ${c.map(f).join(', ')}`,
      `  B / A = ${(mb / ma).toFixed(2)}  (goal ≤ 1.25: ${mb / ma <= 1.25 ? 'PASS' : 'FAIL'})`,
      `  C / B = ${(mc / mb).toFixed(2)}  (how much one shared page load saves)`,
    ].join('\n');
  } finally {
    await worker.stop();
    await pool.close();
    await db.destroy();
    await pg.stop();
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
  benchPipeline(Number(values.rounds)).then(
    (text) => {
      console.log(text);
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
