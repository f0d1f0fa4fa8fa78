/**
 * One whole bad-input run, shared by the chaos scenario (chaos/scenarios/input-fuzz.ts) and the CI
 * test (test/chaos/fuzz.test.ts): the real API in its own process with the rate limit raised, a
 * seeded world (its two sites served on https, world.ts), the routes from its /openapi.json and
 * route table, a warm-up, the fuzz (in one or more rounds, each with its own seed), and the health
 * and memory of the process afterwards.
 *
 * Memory is compared at rest: after `restMs` without requests and a full GC. Right after a burst
 * V8 still holds the heap it grew to and gives it back some seconds later (its memory reducer):
 * over four rounds of the fuzz, RSS right after a round was 272–306 MB, and 217–220 MB 12 s later.
 */
import { createDb } from '../../core/db/database.js';
import { fuzzTargets, runFuzz, type FuzzReport, type FuzzTarget } from './fuzz.js';
import { startApiProcess, type Memory } from './service-process.js';
import { getJson, seedWorld, serveFuzzSites } from './world.js';

/** Memory may grow this much over the run and still count as back where it started. */
export const MEMORY_SLACK = { heapUsed: 32 * 1024 * 1024, rss: 96 * 1024 * 1024 };

const WARM_UP_EVERY = 7;

/** One round of the fuzz (its seed) and the API's memory after it. */
export interface FuzzRound {
  seed: number;
  /** Right after the round, after a full GC. */
  memoryRightAfter: Memory;
  /** After `restMs` without requests and a full GC. */
  memoryAtRest: Memory;
}

export interface InputFuzzResult {
  /** Every round's requests and findings together. */
  report: FuzzReport;
  rounds: FuzzRound[];
  targets: FuzzTarget[];
  /** At rest after the warm-up. */
  memoryBefore: Memory;
  /** At rest after the last round. */
  memoryAfter: Memory;
  /** /health answered 200 with status ok after the run, and the process still runs. */
  healthy: boolean;
  /** The heap at rest after every round is within MEMORY_SLACK of before. */
  heapBack: boolean;
  /** RSS at rest after every round is within MEMORY_SLACK of before. */
  rssBack: boolean;
  /** The signed-in portal caller's own session still reaches the portal after the run (GET /portal/ answers 200). */
  sessionKept: boolean;
  /** Lines the API logged at error level (the causes of any 5xx). */
  apiErrors: string[];
}

export async function runInputFuzz(options: { databaseUrl: string; perCell: number; seed: number; rounds?: number; restMs?: number; lightWarmUp?: boolean; signal?: AbortSignal; log?: (line: string) => void }): Promise<InputFuzzResult> {
  const log = options.log ?? (() => {});
  const rest = () => new Promise((resolve) => setTimeout(resolve, options.restMs ?? 0));
  // Raised so that the fuzz measures the routes, not the limiter (its own test shows it holds).
  const sites = await serveFuzzSites();
  const api = await startApiProcess(options.databaseUrl, { WEBPERF_RATE_LIMIT: '1000000000', ...sites.env }).catch(async (err: unknown) => {
    await sites.close();
    throw err;
  });
  const db = createDb(options.databaseUrl, { max: 2 });
  try {
    const tests = await getJson<{ tests: { id: number; active: boolean }[] }>(`${api.url}/v1/tests`);
    const testTypeId = (tests.tests.find((t) => t.active) ?? tests.tests[0]).id;
    const world = await seedWorld(db, api.port, testTypeId, sites);
    const openapi = await getJson<{ paths: Record<string, Record<string, object>> }>(`${api.url}/openapi.json`);
    const targets = fuzzTargets(openapi, api.routes);
    log(`${targets.length} routes (${targets.filter((t) => t.documented).length} in /openapi.json), API pid ${api.pid}`);
    // A warm-up, so that the baseline holds what is built once (schemas compiled on first use,
    // caches, the allocator's arenas at this concurrency): valid requests to every route, and
    // every family on every WARM_UP_EVERY-th route, with other values than the run.
    // The light warm-up (CI) leaves out the second part: then only the heap is comparable.
    await runFuzz({ world, targets, perCell: 1, seed: options.seed + 1_000_000, signal: options.signal, families: ['valid'] });
    if (!options.lightWarmUp) await runFuzz({ world, targets: targets.filter((_, i) => i % WARM_UP_EVERY === 0), perCell: 1, seed: options.seed + 2_000_000, signal: options.signal });
    await rest();
    const memoryBefore = await api.memory();
    const rounds: FuzzRound[] = [];
    let report: FuzzReport | undefined;
    for (let i = 0; i < Math.max(1, options.rounds ?? 1); i++) {
      // Each cell's seed is the round's plus the cell's number: rounds start far apart (and from the warm-up's).
      const seed = options.seed + i * 10_000_000;
      const shown = report?.findings.length ?? 0;
      report = await runFuzz({ world, targets, perCell: options.perCell, seed, signal: options.signal, report });
      log(`round ${i + 1}, seed ${seed}: ${report.requests} requests so far in ${(report.ms / 1000).toFixed(1)} s; statuses ${JSON.stringify(report.statuses)}`);
      for (const f of report.findings.slice(shown, shown + 10)) log(`finding: ${f.rule} ${f.route} key=${f.key} family=${f.family} seed=${f.seed}: ${f.detail.slice(0, 160)}`);
      const memoryRightAfter = await api.memory();
      await rest();
      rounds.push({ seed, memoryRightAfter, memoryAtRest: await api.memory() });
    }
    const memoryAfter = rounds[rounds.length - 1].memoryAtRest;
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
    const heapBack = rounds.every((r) => r.memoryAtRest.heapUsed <= memoryBefore.heapUsed + MEMORY_SLACK.heapUsed);
    const rssBack = rounds.every((r) => r.memoryAtRest.rss <= memoryBefore.rss + MEMORY_SLACK.rss);
    return { report: report!, rounds, targets, memoryBefore, memoryAfter, healthy, heapBack, rssBack, sessionKept, apiErrors: [...api.errors] };
  } finally {
    await db.destroy();
    await api.stop();
    await sites.close();
  }
}
