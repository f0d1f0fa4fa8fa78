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
  ]).then(([navigation, runner, format, fetcher, page]) => {
    pageFunctions = (page as unknown as { pageFunctions: PageFunctions }).pageFunctions;
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
