/**
 * Pipeline benchmark, measured side by side in one run on the demo page, served twice:
 *
 *   http   plain http on a high port of 127.0.0.1 (the figure of the earlier issues);
 *   https  https://demo.test/ on port 443 under a name, a host of a test world (test/helpers/world:
 *          its own loopback address, HTTP/2 by ALPN, a certificate from a CA made for the run), the
 *          way real sites are served and the path the service takes to them: the gather step's
 *          Chromium tunnels through the guard proxy (CONNECT demo.test:443), which resolves the
 *          name through the configured DNS server (WEBPERF_DNS_SERVERS) and checks the address.
 *
 * For each:
 *   A. one bare Lighthouse run (its Node API, the gather step's flags, same Chromium and flags);
 *   B. our full pipeline through the runner: queue → gather → every plugin → stored results;
 *   C. the naive way: every family loads the page itself (one gather per plugin).
 *
 * The bare run (A) is what anyone would run against the page: Chromium goes to the site directly,
 * no guard proxy, no request interception. B and C pay for the guard, the tunnel included, since
 * that is the cost of our pipeline the figure is meant to show. Both use the same browser, which
 * trusts the run's CA the way the service's does (the SPKI allow-list of WEBPERF_EXTRA_CA_CERTS,
 * core/net/trust.ts); for the direct run Chromium resolves demo.test itself, by a host-resolver
 * rule to the host's address (the proxy resolves it for B and C, through the world's DNS server).
 *
 * Each run is checked: a bare run that Lighthouse could not load, or a pipeline run with an error
 * result, stops the benchmark rather than giving a fast, meaningless time. Runs are interleaved
 * (A, B, C over http, then over https, round after round) after a warm-up; medians are reported.
 * Each timed run starts a second after the one before it ended: Chromium tears a closed context
 * down in the background, and a run started at once pays for its predecessor's (measured: the
 * second of two back-to-back bare runs 0.3–0.6 s slower, whichever came first).
 *
 * B is the runner as it works page after page: each job finds the browser context and page of its
 * load opened as the job before it ended (SparePage, core/gather/guarded-context.ts); the warm-up
 * job opens the first. A bare run opens its own context and page before its timer starts.
 * Lighthouse's host benchmark (BenchmarkIndex, 1 s of loops in the page) runs at the warm-up's
 * first load and not again in this process (core/gather/lighthouse-modules.ts): A and B alike
 * report that figure, and the ratio compares the page loads alone.
 *
 *   npm run bench -- pipeline
 *   node dist/bench/pipeline.js [--rounds 3] [--naive-rounds N]
 *
 * `--naive-rounds` (default: as many as `--rounds`) runs C in only the first N rounds: C is two
 * minutes a round, so more rounds of A and B, the ratio with a goal, fit in the same time.
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
import { runPlugin } from '../core/pipeline.js';
import { loadPlugins } from '../core/registry.js';
import { queueRun } from '../core/store/runs.js';
import { BrowserPool } from '../runners/browser-pool.js';
import { runWorkerMigrations, startWorker } from '../runners/worker.js';
import { findProgram } from '../plugins/dns/zonemaster.js';
import { startDemoSites, type Scheme } from './demo-sites.js';
import { median, runIfMain } from './main.js';


/** Full suite / bare Lighthouse: the earlier issues' goal on plain http, issue 21's on https. */
const GOALS = { http: 1.25, https: 1.05 } as const;


export async function benchPipeline(rounds = 3, naiveRounds = rounds): Promise<string> {
  const chromium = findChromium(process.env.CHROMIUM_PATH);
  if (!chromium) throw new Error('Chromium was not found: install it with `apt-get install chromium`');
  if (!findProgram('zonemaster-cli')) throw new Error('zonemaster-cli was not found: the pipeline runs every type, DNS (32) too; install it with `apt-get install zonemaster-cli`');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-bench-'));
  const stops: (() => Promise<unknown>)[] = [() => rm(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const s of stops) await s().catch(() => {});
  };
  try {
    const demo = await startDemoSites(dir);
    stops.unshift(() => demo.stop());
    const { world, urls } = demo;
    const httpSite = demo.sites.http;
    const httpsSite = demo.sites.https;

    // The guard a runner builds from WEBPERF_ALLOW_TARGETS=127.0.0.0/8, WEBPERF_DNS_SERVERS (the
    // world's) and WEBPERF_EXTRA_CA_CERTS (the run's CA): the same for both sites.
    const guard = world.guard();
    const registry = await loadPlugins();
    const plugins = registry.select(null);
    const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), { fast: true });
    stops.unshift(() => pg.stop());
    await ensureDatabase(pg.adminUrl, 'bench');
    const url = pg.urlFor('bench');
    const db = createDb(url);
    stops.unshift(() => db.destroy());
    await migrateToLatest(db);
    await runWorkerMigrations(url);
    const siteIds: Record<Scheme, number> = { http: 0, https: 0 };
    for (const scheme of ['http', 'https'] as const) {
      siteIds[scheme] = (await db.insertInto('sites').values({ title: `demo (${scheme})`, url: urls[scheme] }).returning('id').executeTakeFirstOrThrow()).id;
    }
    const pool = new BrowserPool(chromium, null, [...guard.trust.chromiumArgs, `--host-resolver-rules=MAP ${httpsSite.name} ${httpsSite.address},MAP ${httpSite.name} ${httpSite.address}`]);
    stops.unshift(() => pool.close());
    const worker = await startWorker({ db, connectionString: url, pool, guard, registry, concurrency: 1, jobTimeoutMs: 300_000, schedule: false });
    stops.unshift(() => worker.stop());

    const times = { http: { a: [] as number[], b: [] as number[], c: [] as number[], z: [] as number[] }, https: { a: [] as number[], b: [] as number[], c: [] as number[], z: [] as number[] } };
    const bare = async (scheme: Scheme) => {
      const browser = await pool.acquire();
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        const t0 = performance.now();
        const result = await lighthouse(urls[scheme], { ...LIGHTHOUSE_FLAGS }, undefined, page as any);
        const ms = performance.now() - t0;
        const error = result?.lhr.runtimeError;
        if (!result || error) throw new Error(`bare Lighthouse could not load ${urls[scheme]}: ${error?.code ?? 'no result'} ${error?.message ?? ''}`);
        return ms;
      } finally {
        await context.close();
      }
    };
    const full = async (scheme: Scheme) => {
      const t0 = performance.now();
      const runId = await queueRun(db, { siteId: siteIds[scheme], url: urls[scheme] });
      for (;;) {
        const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
        if (run.status === 'done') break;
        if (run.status === 'failed') throw new Error(`run failed: ${run.error}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const ms = performance.now() - t0;
      const errors = await db.selectFrom('test_results').select(['type_of_test', 'error']).where('run_id', '=', runId).where('error', 'is not', null).execute();
      if (errors.length > 0) throw new Error(`the pipeline run of ${urls[scheme]} has error results: ${errors.map((e) => `${e.type_of_test}: ${e.error}`).join('; ')}`);
      // Zonemaster's own time (type 32), which ran beside the page load.
      const dns = await db.selectFrom('test_results').select('json_check_data').where('run_id', '=', runId).where('type_of_test', '=', 32).executeTakeFirst();
      const zonemasterMs = (dns?.json_check_data as { zonemaster?: { elapsed_ms?: number } } | undefined)?.zonemaster?.elapsed_ms;
      if (dns && zonemasterMs === undefined) throw new Error(`type 32 did not run Zonemaster on ${urls[scheme]}: ${JSON.stringify(dns.json_check_data)}`);
      if (zonemasterMs !== undefined) times[scheme].z.push(zonemasterMs);
      return ms;
    };
    const naive = async (scheme: Scheme) => {
      const browser = await pool.acquire();
      const t0 = performance.now();
      for (const plugin of plugins) {
        const artifacts = await gather(urls[scheme], { browser, guard });
        await runPlugin(plugin, artifacts, { probes: createProbes(guard) });
      }
      return performance.now() - t0;
    };

    const settle = () => new Promise((r) => setTimeout(r, 1_000));
        for (const scheme of ['http', 'https'] as const) {
      await bare(scheme);
      await full(scheme);
    }
    // The warm-up's figures are left out.
    for (const scheme of ['http', 'https'] as const) times[scheme].z.length = 0;
    for (let i = 0; i < rounds; i++) {
      for (const scheme of ['http', 'https'] as const) {
        await settle();
        times[scheme].a.push(await bare(scheme));
        await settle();
        times[scheme].b.push(await full(scheme));
        if (i < naiveRounds) {
          await settle();
          times[scheme].c.push(await naive(scheme));
        }
      }
    }
    const f = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const m = (scheme: Scheme, k: 'a' | 'b' | 'c' | 'z') => (times[scheme][k].length ? median(times[scheme][k]) : NaN);
    const col = (text: string) => text.padEnd(34);
    const ratio = (scheme: Scheme) => m(scheme, 'b') / m(scheme, 'a');
    const lines = [
      `Pipeline on the demo page, ${plugins.length} test types (${plugins.map((p) => p.meta.id).join(', ')}), median of ${rounds} interleaved rounds after a warm-up (C: ${Math.min(rounds, naiveRounds)}):`,
      `                                                   ${col(`http  ${urls.http}`)}https ${urls.https} (port 443, tunnelled)`,
      `  A  bare Lighthouse run (direct, same flags)     ${col(f(m('http', 'a')))}${f(m('https', 'a'))}`,
      `  B  full pipeline via the runner (queue→stored)  ${col(f(m('http', 'b')))}${f(m('https', 'b'))}`,
      `  C  naive: one page load per test type            ${col(f(m('http', 'c')))}${f(m('https', 'c'))}`,
      `  B / A                                            ${col(`${ratio('http').toFixed(2)} (goal ≤ ${GOALS.http}: ${ratio('http') <= GOALS.http ? 'PASS' : 'FAIL'})`)}${ratio('https').toFixed(2)} (goal ≤ ${GOALS.https}: ${ratio('https') <= GOALS.https ? 'PASS' : 'FAIL'})`,
      `  C / B  (how much one shared page load saves)     ${col((m('http', 'c') / m('http', 'b')).toFixed(2))}${(m('https', 'c') / m('https', 'b')).toFixed(2)}`,
      `  Z  Zonemaster in B (type 32, beside the load)   ${col(f(m('http', 'z')))}${f(m('https', 'z'))}`,
      '  runs:',
    ];
    for (const scheme of ['http', 'https'] as const) {
      for (const [k, name] of [['a', 'A'], ['b', 'B'], ['c', 'C'], ['z', 'Z']] as const) lines.push(`    ${scheme.padEnd(5)} ${name}  ${times[scheme][k].map(f).join(', ')}`);
    }
    return lines.join('\n');
  } finally {
    await stop();
  }
}

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, 'naive-rounds': { type: 'string' } } });
  return benchPipeline(Number(values.rounds), values['naive-rounds'] === undefined ? undefined : Number(values['naive-rounds']));
});
