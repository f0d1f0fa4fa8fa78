/**
 * One whole bad-input run, shared by the chaos scenario (chaos/scenarios/input-fuzz.ts) and the CI
 * test (test/chaos/fuzz.test.ts): the real API in its own process with the rate limit raised, a
 * seeded world, the routes from its /openapi.json and route table, a warm-up, the fuzz, and the
 * health and memory of the process afterwards.
 */
import { createDb } from '../../core/db/database.js';
import { fuzzTargets, runFuzz, type FuzzReport, type FuzzTarget } from './fuzz.js';
import { startApiProcess, type Memory } from './service-process.js';
import { getJson, seedWorld } from './world.js';

/** Memory may grow this much over the run and still count as back where it started. */
export const MEMORY_SLACK = { heapUsed: 32 * 1024 * 1024, rss: 96 * 1024 * 1024 };

const WARM_UP_EVERY = 7;

export interface InputFuzzResult {
  report: FuzzReport;
  targets: FuzzTarget[];
  memoryBefore: Memory;
  memoryAfter: Memory;
  /** /health answered 200 with status ok after the run, and the process still runs. */
  healthy: boolean;
  /** The heap after the run (after a full GC) is within MEMORY_SLACK of before. */
  heapBack: boolean;
  /** Heap and RSS after the run are within MEMORY_SLACK of before. */
  memoryBack: boolean;
  /** The signed-in portal caller's own session still reaches the portal after the run (GET /portal/ answers 200). */
  sessionKept: boolean;
  /** Lines the API logged at error level (the causes of any 5xx). */
  apiErrors: string[];
}

export async function runInputFuzz(options: { databaseUrl: string; perCell: number; seed: number; lightWarmUp?: boolean; signal?: AbortSignal; log?: (line: string) => void }): Promise<InputFuzzResult> {
  const log = options.log ?? (() => {});
  // Raised so that the fuzz measures the routes, not the limiter (its own test shows it holds).
  const api = await startApiProcess(options.databaseUrl, { WEBPERF_RATE_LIMIT: '1000000000' });
  const db = createDb(options.databaseUrl, { max: 2 });
  try {
    const tests = await getJson<{ tests: { id: number; active: boolean }[] }>(`${api.url}/v1/tests`);
    const testTypeId = (tests.tests.find((t) => t.active) ?? tests.tests[0]).id;
    const world = await seedWorld(db, api.port, testTypeId);
    const openapi = await getJson<{ paths: Record<string, Record<string, object>> }>(`${api.url}/openapi.json`);
    const targets = fuzzTargets(openapi, api.routes);
    log(`${targets.length} routes (${targets.filter((t) => t.documented).length} in /openapi.json), API pid ${api.pid}`);
    // A warm-up, so that the baseline holds what is built once (schemas compiled on first use,
    // caches, the allocator's arenas at this concurrency): valid requests to every route, and
    // every family on every WARM_UP_EVERY-th route, with other values than the run.
    // The light warm-up (CI) leaves out the second part: then only the heap is comparable.
    await runFuzz({ world, targets, perCell: 1, seed: options.seed + 1_000_000, signal: options.signal, families: ['valid'] });
    if (!options.lightWarmUp) await runFuzz({ world, targets: targets.filter((_, i) => i % WARM_UP_EVERY === 0), perCell: 1, seed: options.seed + 2_000_000, signal: options.signal });
    const memoryBefore = await api.memory();
    const report = await runFuzz({ world, targets, perCell: options.perCell, seed: options.seed, signal: options.signal });
    log(`${report.requests} requests in ${(report.ms / 1000).toFixed(1)} s; statuses ${JSON.stringify(report.statuses)}`);
    for (const f of report.findings.slice(0, 10)) log(`finding: ${f.rule} ${f.route} key=${f.key} family=${f.family} seed=${f.seed}: ${f.detail.slice(0, 160)}`);
    const memoryAfter = await api.memory();
    let healthy = false;
    try {
      const health = await getJson<{ status: string }>(`${api.url}/health`);
      healthy = health.status === 'ok' && api.alive();
    } catch {
      healthy = false;
    }
    const portal = await fetch(`${api.url}/portal/`, { redirect: 'manual', headers: { cookie: world.session.cookie }, signal: AbortSignal.timeout(30_000) });
    const sessionKept = portal.status === 200;
    await portal.body?.cancel();
    const heapBack = memoryAfter.heapUsed <= memoryBefore.heapUsed + MEMORY_SLACK.heapUsed;
    const memoryBack = heapBack && memoryAfter.rss <= memoryBefore.rss + MEMORY_SLACK.rss;
    return { report, targets, memoryBefore, memoryAfter, healthy, heapBack, memoryBack, sessionKept, apiErrors: [...api.errors] };
  } finally {
    await db.destroy();
    await api.stop();
  }
}
