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

let loading: Promise<LighthouseModules> | null = null;

/** Lighthouse's modules, loaded once per process (at the first call). */
export function lighthouseModules(): Promise<LighthouseModules> {
  loading ??= Promise.all([
    import('lighthouse/core/gather/navigation-runner.js'),
    import('lighthouse/core/runner.js'),
    import('lighthouse/shared/localization/format.js'),
    import('lighthouse/core/gather/fetcher.js'),
  ]).then(([navigation, runner, format, fetcher]) => ({
    navigationGather: navigation.navigationGather,
    Runner: runner.Runner,
    getFormatted: format.getFormatted,
    Fetcher: fetcher.Fetcher,
  }));
  // A failed load is not kept: the next page load tries again.
  loading.catch(() => (loading = null));
  return loading;
}
