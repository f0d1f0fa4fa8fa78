/**
 * The engine: test a page (gather once, rate many) and, for a queued run, store the results.
 */
import type { Browser } from 'puppeteer-core';
import type { Db } from './db/database.js';
import { untilAborted } from './abort.js';
import { gather, type GatherOptions } from './gather/gather.js';
import { createProbes } from './net/probes.js';
import type { TargetGuard } from './net/target-guard.js';
import type { Artifacts, TestPlugin } from './plugin-api.js';
import { runPlugins, type TestOutcome } from './pipeline.js';
import type { PhaseTimes } from './phase-times.js';
import type { PluginRegistry } from './registry.js';
import { getRun, markRun, saveRunResults } from './store/runs.js';

export interface EngineDeps {
  browser: Browser;
  guard: TargetGuard;
  registry: PluginRegistry;
  /** Time limit of the page load. */
  gatherTimeoutMs?: number;
}

export interface PageTest {
  artifacts: Artifacts;
  outcomes: TestOutcome[];
  gatherMs: number;
  pluginsMs: number;
}

export interface TestPageOptions {
  onPhase?: (phase: string) => void;
  onPlugin?: (plugin: TestPlugin, outcome: TestOutcome) => void;
  /** Stops the whole test: the page load (its browser context closes) and the plugins. */
  signal?: AbortSignal;
  /** Passed to gather: reads more from the loaded page (the audit's links). */
  afterLoad?: GatherOptions['afterLoad'];
  /** Adds the wall time of each step to these (the audit benchmark's profile). */
  times?: PhaseTimes;
}

/** Loads the page once and runs the given plugins on its artifacts. */
export async function testPage(url: string, plugins: readonly TestPlugin[], deps: EngineDeps, options: TestPageOptions = {}): Promise<PageTest> {
  const t0 = Date.now();
  // One probe cache per run, shared by Lighthouse's own fetches and the plugins: robots.txt once.
  const probes = createProbes(deps.guard);
  const artifacts = await gather(url, { browser: deps.browser, guard: deps.guard, probes, timeoutMs: deps.gatherTimeoutMs, onPhase: options.onPhase, signal: options.signal, afterLoad: options.afterLoad, times: options.times });
  const t1 = Date.now();
  options.onPhase?.('plugins');
  const lap = options.times?.laps('plugins');
  const rating = runPlugins(plugins, artifacts, {
    probes,
    onPlugin: options.onPlugin,
    signal: options.signal,
  });
  const outcomes = options.signal ? await untilAborted(rating, options.signal) : await rating;
  lap?.end();
  return { artifacts, outcomes, gatherMs: t1 - t0, pluginsMs: Date.now() - t1 };
}

/**
 * Executes a queued run: test its page and store every result in one transaction. An attempt
 * whose signal aborts stores nothing; a run already stored by another attempt is not stored again.
 */
export async function executeRun(db: Db, runId: number, deps: EngineDeps, options: { signal?: AbortSignal } = {}): Promise<number[]> {
  const run = await getRun(db, runId);
  if (!run) throw new Error(`Run ${runId} does not exist`);
  if (run.status === 'done') return [];
  await markRun(db, runId, 'running');
  // A failure is recorded by the caller, which also knows about its own time limit.
  const { outcomes } = await testPage(run.url, deps.registry.select(run.test_types), deps, { signal: options.signal });
  return saveRunResults(db, runId, outcomes, new Date(), options.signal);
}
