/**
 * `npm run bench -- store`: what keeping each result's findings (issue 31) costs a run's save.
 * The demo page is tested once for real (every active type, bench/scale-record.ts); its outcomes
 * are then stored again and again into one embedded PostgreSQL by the real saveRunResults, by
 * turns with and without their findings (without: what a save wrote before issue 31, no findings
 * to keep), each save a run of its own on the same site. Median wall time of a save, side by side.
 * Goal (issue 31): at most 10 % more.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDb } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { runPlugin, type TestOutcome } from '../core/pipeline.js';
import type { PluginResult, Probes } from '../core/plugin-api.js';
import { loadPlugins } from '../core/registry.js';
import { saveRunResults } from '../core/store/runs.js';
import { median, runIfMain } from './main.js';
import { recordPageTest } from './scale-record.js';

/** Issue 31: storing a run with its findings costs at most this much more. */
const GOAL = 1.1;


export async function benchStore(rounds = 60): Promise<string> {
  const recorded = await recordPageTest(() => {});
  const registry = await loadPlugins();
  // The outcomes as the pipeline makes them from the recorded results (reports rendered, findings kept).
  const outcomes: TestOutcome[] = [];
  for (const r of recorded.results) {
    const plugin = registry.get(r.typeOfTest);
    if (!plugin || !r.result) continue;
    const result: PluginResult = r.result;
    outcomes.push(await runPlugin({ meta: { ...plugin.meta, requiredArtifacts: [], needsPage: false, requires: undefined }, run: () => structuredClone(result) }, { requestedUrl: recorded.url } as never, { probes: {} as Probes }));
  }
  const findings = outcomes.reduce((n, o) => n + o.findings.length, 0);
  const without = outcomes.map((o) => ({ ...o, findings: [] }));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-bench-store-'));
  const pg = await startEmbeddedPostgres(path.join(dir, 'pg'));
  try {
    await ensureDatabase(pg.adminUrl, 'bench');
    const db = createDb(pg.urlFor('bench'));
    try {
      await migrateToLatest(db);
      const site = await db.insertInto('sites').values({ title: 'demo', url: recorded.url }).returning('id').executeTakeFirstOrThrow();
      const save = async (list: TestOutcome[]) => {
        const run = await db.insertInto('test_runs').values({ site_id: site.id, url: recorded.url, status: 'running' }).returning('id').executeTakeFirstOrThrow();
        const t0 = performance.now();
        await saveRunResults(db, Number(run.id), list);
        return performance.now() - t0;
      };
      // Warm-up: the pool's connections, PostgreSQL's plans.
      for (let i = 0; i < 10; i++) await save(i % 2 ? outcomes : without);
      const times = { with: [] as number[], without: [] as number[] };
      for (let i = 0; i < rounds; i++) {
        // By turns, the order swapped each round, so that drift weighs on both alike.
        for (const kind of i % 2 ? (['with', 'without'] as const) : (['without', 'with'] as const)) times[kind].push(await save(kind === 'with' ? outcomes : without));
      }
      const ratio = median(times.with) / median(times.without);
      const bytes = JSON.stringify(outcomes.map((o) => o.findings)).length;
      return [
        `A run's save (saveRunResults) of the demo page's ${outcomes.length} test types, ${findings} findings (${(bytes / 1024).toFixed(1)} KiB of JSON), median of ${rounds} saves each, by turns, one embedded PostgreSQL (fsync on):`,
        `  without findings (as before issue 31)   ${median(times.without).toFixed(2)} ms`,
        `  with every finding kept                 ${median(times.with).toFixed(2)} ms`,
        `  with / without                          ${ratio.toFixed(2)} (goal ≤ ${GOAL}: ${ratio <= GOAL ? 'PASS' : 'FAIL'})`,
      ].join('\n');
    } finally {
      await db.destroy();
    }
  } finally {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({ options: { rounds: { type: 'string' } } });
  return benchStore(values.rounds ? Number(values.rounds) : undefined);
});
