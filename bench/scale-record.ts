/**
 * The recorded page test the scale bench's simulated runners replay (bench/scale.ts): the demo
 * page (https://demo.test/, bench/demo-sites.ts) loaded once in Chromium through the guard, every
 * active test type run on it by the real plugins, and what each plugin's run() returned kept as
 * it is, with how long the whole page test took. Made at the bench's start, or read from a file
 * written by an earlier run (`--outcomes FILE`, `--record FILE`).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findChromium } from '../core/config.js';
import { testPage } from '../core/engine.js';
import type { PluginResult, TestPlugin } from '../core/plugin-api.js';
import { loadPlugins } from '../core/registry.js';
import { BrowserPool } from '../runners/browser-pool.js';
import { startDemoSites } from './demo-sites.js';

/** What one page test of the demo page gave: each type's plugin result, and the test's wall time. */
export interface RecordedPageTest {
  url: string;
  recordedAt: string;
  /** The whole page test (load, probes, every plugin), as a runner spent it. */
  pageTestMs: number;
  results: { typeOfTest: number; result: PluginResult | null; error: string | null }[];
}

export async function recordPageTest(log: (line: string) => void): Promise<RecordedPageTest> {
  const chromium = findChromium(process.env.CHROMIUM_PATH);
  if (!chromium) throw new Error('Chromium was not found: install it with `apt-get install chromium` (or give --outcomes FILE)');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-scale-record-'));
  const demo = await startDemoSites(dir);
  const guard = demo.world.guard();
  const pool = new BrowserPool(chromium, null, [...guard.trust.chromiumArgs]);
  try {
    const registry = await loadPlugins();
    const results = new Map<number, PluginResult>();
    // Each plugin as it is, its result kept on the way out.
    const keeping = registry.select(null).map((p): TestPlugin => ({
      meta: p.meta,
      run: async (artifacts, context) => {
        const result = await p.run(artifacts, context);
        results.set(p.meta.id, structuredClone(result));
        return result;
      },
    }));
    const browser = await pool.acquire();
    // A warm-up load first (Lighthouse's modules and its host benchmark, Chromium's first start):
    // the time kept is a runner's second page, as most are.
    await testPage(demo.urls.https, keeping, { browser, guard, registry }, { loadFailure: 'report' });
    results.clear();
    const t0 = performance.now();
    const tested = await testPage(demo.urls.https, keeping, { browser, guard, registry }, { loadFailure: 'report' });
    const pageTestMs = Math.round(performance.now() - t0);
    if (tested.failure) throw new Error(`the demo page could not be loaded: ${tested.failure.message}`);
    log(`recorded the demo page's test: ${tested.outcomes.length} types in ${(pageTestMs / 1000).toFixed(1)} s`);
    return {
      url: demo.urls.https,
      recordedAt: new Date().toISOString(),
      pageTestMs,
      results: tested.outcomes.map((o) => ({ typeOfTest: o.typeOfTest, result: results.get(o.typeOfTest) ?? null, error: o.error })),
    };
  } finally {
    await pool.close();
    await demo.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function readRecordedPageTest(file: string): Promise<RecordedPageTest> {
  return JSON.parse(await readFile(file, 'utf8')) as RecordedPageTest;
}

export async function writeRecordedPageTest(file: string, recorded: RecordedPageTest): Promise<void> {
  await writeFile(file, JSON.stringify(recorded));
}
