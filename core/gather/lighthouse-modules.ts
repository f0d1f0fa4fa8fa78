/**
 * Lighthouse's modules, loaded at the first page load, not when the engine is imported. They are
 * about 1,500 ES modules (lodash-es alone is 625), 1.3 s of a process start, and 2.3 s under tsx,
 * whose loader thread each module import goes through: an operator command, the API or a test
 * file that never loads a page then starts without them. A runner loads them as it starts
 * (runners/worker.ts), before it takes a job.
 */
import type { navigationGather as NavigationGather } from 'lighthouse/core/gather/navigation-runner.js';
import type { Runner as LighthouseRunner } from 'lighthouse/core/runner.js';
import type { getFormatted as GetFormatted } from 'lighthouse/shared/localization/format.js';
import type { Fetcher as LighthouseFetcher } from 'lighthouse/core/gather/fetcher.js';
import type { initializeConfig as InitializeConfigFn } from 'lighthouse/core/config/config.js';

type InitializeConfig = typeof InitializeConfigFn;

export interface LighthouseModules {
  navigationGather: typeof NavigationGather;
  Runner: typeof LighthouseRunner;
  getFormatted: typeof GetFormatted;
  Fetcher: typeof LighthouseFetcher;
}

/** Lighthouse's page functions (the functions it evaluates in the page), as far as used here. */
interface PageFunctions {
  computeBenchmarkIndex: () => number;
}

let loading: Promise<LighthouseModules> | null = null;
let pageFunctions: PageFunctions | null = null;

/** Lighthouse's modules, loaded once per process (at the first call). */
export function lighthouseModules(): Promise<LighthouseModules> {
  loading ??= Promise.all([
    import('lighthouse/core/gather/navigation-runner.js'),
    import('lighthouse/core/runner.js'),
    import('lighthouse/shared/localization/format.js'),
    import('lighthouse/core/gather/fetcher.js'),
    import('lighthouse/core/lib/page-functions.js'),
    import('lighthouse/core/config/config.js'),
  ]).then(async ([navigation, runner, format, fetcher, page, config]) => {
    pageFunctions = (page as unknown as { pageFunctions: PageFunctions }).pageFunctions;
    await keepAuditMetadata(config.initializeConfig);
    return {
      navigationGather: navigation.navigationGather,
      Runner: runner.Runner,
      getFormatted: format.getFormatted,
      Fetcher: fetcher.Fetcher,
    };
  });
  // A failed load is not kept: the next page load tries again.
  loading.catch(() => (loading = null));
  return loading;
}

/**
 * Every page load resolves Lighthouse's configuration again (navigationGather), and reads each of
 * its 176 audits' `meta` several times as it does: a getter that builds the audit's title and
 * descriptions as ICU messages anew each time, parsing and formatting them with intl-messageformat
 * (0.27-0.36 CPU s of each page load, light ones too, and the garbage it leaves). An audit's
 * metadata is the same for every page: it is read once per process, frozen, and the class gives
 * that object from then on (configuration resolved in 0.007-0.03 CPU s; `node
 * dist/bench/run.js lighthouse-config`). Lighthouse only reads `meta` (a frozen object would make
 * a write throw, and the tests load real pages through it).
 */
async function keepAuditMetadata(initializeConfig: InitializeConfig): Promise<void> {
  // The default configuration names every audit a page load can run (onlyCategories and
  // onlyAudits only leave some out): resolving it loads their classes.
  const { resolvedConfig } = await initializeConfig('navigation', undefined, {});
  for (const audit of resolvedConfig.audits ?? []) keepMeta(audit.implementation);
}

/** `auditClass.meta` computed now, frozen, and given from then on. */
export function keepMeta(auditClass: { meta: unknown }): void {
  if (Object.getOwnPropertyDescriptor(auditClass, 'meta')?.value !== undefined) return;
  const meta = deepFreeze(auditClass.meta);
  Object.defineProperty(auditClass, 'meta', { value: meta, configurable: true, enumerable: false, writable: false });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

let measured: number | null = null;

/**
 * The host's BenchmarkIndex, measured once per process. Lighthouse measures it before every page
 * load (environment.benchmarkIndex: two 500 ms loops of JavaScript in the page, one second of a
 * CPU core each time), and uses it for nothing but that figure and its warning of a slow host. A
 * runner's host does not change between its pages: the first load measures it, and every later
 * load in the process reports that figure at once (on a two-core host: 1 s of CPU and 1 s of wall
 * time less per page, light load 3.3 s instead of 4.3 s).
 */
export function rememberBenchmarkIndex(value: unknown): void {
  if (measured !== null || !pageFunctions || typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return;
  measured = value;
  // Lighthouse evaluates the function's source in the page: a function that returns the number.
  pageFunctions.computeBenchmarkIndex = new Function(`return ${value};`) as () => number;
}

/** The BenchmarkIndex this process measured at its first page load (null before it). */
export function hostBenchmarkIndex(): number | null {
  return measured;
}
