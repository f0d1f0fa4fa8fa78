/**
 * The engine: test a page (gather once, rate many) and, for a queued run, store the results.
 */
import type { Browser } from 'puppeteer-core';
import { isDatabaseUnavailable, waitForDatabase, type Db } from './db/database.js';
import { untilAborted } from './abort.js';
import { gather, gatherNeeds, type GatherOptions } from './gather/gather.js';
import type { SparePage } from './gather/guarded-context.js';
import { PageLoadFailure } from './gather/load-failure.js';
import { createProbes } from './net/probes.js';
import type { TargetGuard } from './net/target-guard.js';
import type { Artifacts, Probes, TestPlugin } from './plugin-api.js';
import { judgedDespite, runPlugins, type PageFailure, type TestOutcome } from './pipeline.js';
import type { PhaseTimes } from './phase-times.js';
import type { PluginRegistry } from './registry.js';
import { recordPageTest } from './metrics.js';
import { getRun, markRun, saveRunResults } from './store/runs.js';

export interface EngineDeps {
  /** Null only for a run whose plugins all need no page (needsPageLoad false). */
  browser: Browser | null;
  guard: TargetGuard;
  registry: PluginRegistry;
  /** Time limit of the page load. */
  gatherTimeoutMs?: number;
  /** A runner's spare context and page for the next load (core/gather/guarded-context.ts). */
  spare?: SparePage;
}

export interface PageTest {
  /**
   * What the page load read. After a load failure: what the probes read, when they suffice (a
   * certificate the browser refused), else nothing (every field empty, axe and Lighthouse null).
   */
  artifacts: Artifacts;
  outcomes: TestOutcome[];
  /** Why the page could not be loaded (then every outcome says so); null when it loaded. */
  failure: PageLoadFailure | null;
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
  /**
   * A page the site refused or could not serve (a PageLoadFailure: a bot check, an error status,
   * TLS, the certificate): 'throw' it (the default; the audit's crawl records a failed page), or
   * 'report' it as the outcome of every test type, not rated (a run, the CLI).
   */
  loadFailure?: 'throw' | 'report';
}

/** Artifacts of a page nothing was read of (every field empty, axe and Lighthouse null), then `fields`. */
export function emptyArtifacts(url: string, fields: Partial<Artifacts> = {}): Artifacts {
  return {
    requestedUrl: url,
    finalUrl: url,
    mainDocument: { url, status: 0, headers: {}, html: '' },
    network: [],
    cookies: [],
    renderedText: '',
    mainText: '',
    htmlLang: '',
    consoleErrors: [],
    axe: null,
    lighthouse: null,
    stylesheets: [],
    scripts: [],
    subresourceLinks: [],
    referrerMetas: [],
    ...fields,
  };
}

/**
 * The page as a probe reads it (certificates not checked), for the plugins that judge from the
 * probes alone when the browser refused the page; null when the probe could not read it either.
 */
export async function probedArtifacts(url: string, probes: Probes): Promise<Artifacts | null> {
  const page = await probes.fetch(url);
  if (page.error) return null;
  return emptyArtifacts(url, { finalUrl: page.url, mainDocument: { url: page.url, status: page.status, headers: page.headers, html: page.body } });
}

/** Whether a run of `plugins` loads the page: unless every one of them needs no page (meta.needsPage false). */
export function needsPageLoad(plugins: readonly TestPlugin[]): boolean {
  return plugins.some((p) => p.meta.needsPage !== false);
}

/**
 * Loads the page once and runs the given plugins on its artifacts. A run of plugins that need no
 * page loads nothing: they run on artifacts holding only the address.
 */
export async function testPage(url: string, plugins: readonly TestPlugin[], deps: EngineDeps, options: TestPageOptions = {}): Promise<PageTest> {
  const t0 = Date.now();
  // One probe cache per run, shared by Lighthouse's own fetches and the plugins: robots.txt once.
  const probes = createProbes(deps.guard);
  const loadsPage = needsPageLoad(plugins);
  // One time for the whole run: every plugin judges ages against the same moment.
  const now = new Date();
  // Types that need no page (the domain's e-mail, Zonemaster's DNS test) run beside the page load,
  // not after it; they are stopped with the rest when the load fails in a way that ends the test.
  const beside = new AbortController();
  const besideSignal = options.signal ? AbortSignal.any([options.signal, beside.signal]) : beside.signal;
  const pageless = loadsPage ? plugins.filter((p) => p.meta.needsPage === false) : [];
  const besideLap = pageless.length ? options.times?.laps(' types needing no page (beside the load)') : undefined;
  const early = pageless.length
    ? runPlugins(pageless, emptyArtifacts(url), { probes, onPlugin: options.onPlugin, signal: besideSignal, now }).finally(() => besideLap?.end())
    : null;
  let artifacts: Artifacts;
  let failure: PageLoadFailure | null = null;
  let pageFailure: PageFailure | undefined;
  try {
    if (!loadsPage) artifacts = emptyArtifacts(url);
    else if (!deps.browser) throw new Error('Loading the page needs a browser');
    else artifacts = await gather(url, { browser: deps.browser, guard: deps.guard, spare: deps.spare, probes, timeoutMs: deps.gatherTimeoutMs, onPhase: options.onPhase, signal: options.signal, afterLoad: options.afterLoad, times: options.times, needs: gatherNeeds(plugins) });
  } catch (err) {
    if (!(err instanceof PageLoadFailure) || options.loadFailure !== 'report') {
      beside.abort(err);
      await early;
      throw err;
    }
    failure = err;
    const probed = err.probesSuffice && plugins.some((p) => p.meta.judgesFromProbes) ? await probedArtifacts(url, probes) : null;
    artifacts = probed ?? emptyArtifacts(url);
    pageFailure = { code: err.code, message: err.message, text: err.text, details: err.details, probesSuffice: probed !== null };
  }
  const t1 = Date.now();
  options.onPhase?.('plugins');
  const lap = options.times?.laps('plugins');
  const rest = early ? plugins.filter((p) => p.meta.needsPage !== false) : plugins;
  const rating = Promise.all([
    runPlugins(rest, artifacts, { probes, onPlugin: options.onPlugin, signal: options.signal, pageFailure, now }),
    early ?? [],
  ]).then(([late, first]) => {
    // In the order asked for, whichever finished first.
    const byType = new Map([...late, ...first.map((o) => (pageFailure ? judgedDespite(o, pageFailure) : o))].map((o) => [o.typeOfTest, o]));
    return plugins.map((p) => byType.get(p.meta.id)!);
  });
  const outcomes = options.signal ? await untilAborted(rating, options.signal) : await rating;
  lap?.end();
  return { artifacts, outcomes, failure, gatherMs: t1 - t0, pluginsMs: Date.now() - t1 };
}

/**
 * Executes a queued run: test its page and store every result in one transaction. An attempt
 * whose signal aborts stores nothing; a run already stored by another attempt is not stored again.
 * A save that finds no database connection (the server restarting, or max_connections used up)
 * waits until one can be had and tries again, the tested page kept: a page test costs seconds of
 * Chromium, a connection a moment's wait. Should the signal abort first, that failure is thrown.
 */
export async function executeRun(db: Db, runId: number, deps: EngineDeps, options: { signal?: AbortSignal } = {}): Promise<number[]> {
  const run = await getRun(db, runId);
  if (!run) throw new Error(`Run ${runId} does not exist`);
  // Stored by an earlier attempt: nothing is stored again, but what that attempt may not have
  // finished after its commit (a category's averages) is.
  if (run.status === 'done') return saveRunResults(db, runId, [], new Date(), options.signal);
  await markRun(db, runId, 'running');
  // A page the site refused or could not serve is the run's result: every test type says why, not
  // rated. Any other failure is recorded by the caller, which also knows about its own time limit.
  const tested = await testPage(run.url, deps.registry.select(run.test_types), deps, { signal: options.signal, loadFailure: 'report' });
  recordPageTest(tested);
  const testDate = new Date();
  for (;;) {
    try {
      return await saveRunResults(db, runId, tested.outcomes, testDate, options.signal);
    } catch (err) {
      if (!isDatabaseUnavailable(err) || !options.signal || options.signal.aborted) throw err;
      await waitForDatabase(db, options.signal).catch(() => {
        throw err;
      });
    }
  }
}
