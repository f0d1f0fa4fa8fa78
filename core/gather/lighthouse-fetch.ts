/**
 * Lighthouse fetches some resources itself, outside the page (robots.txt, source maps), through
 * Chromium's Network.loadNetworkResource, which page-level request interception does not see —
 * redirects included. While the gather step runs Lighthouse for a caller, those fetches go through
 * our guarded probes instead (connect-time address check on every hop). Outside a gather (a bare
 * Lighthouse run, e.g. the benchmark's baseline), Lighthouse's own fetcher is used unchanged.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { lighthouseModules } from './lighthouse-modules.js';
import type { Probes } from '../plugin-api.js';
import { untilAborted } from '../abort.js';

const current = new AsyncLocalStorage<Probes>();
let installed = false;

type FetchResult = { content: string | null; status: number | null };

async function install(): Promise<void> {
  if (installed) return;
  const { Fetcher } = await lighthouseModules();
  if (installed) return;
  installed = true;
  const original = Fetcher.prototype.fetchResource;
  Fetcher.prototype.fetchResource = async function (this: InstanceType<typeof Fetcher>, url: string, options: { timeout: number } = { timeout: 2_000 }): Promise<FetchResult> {
    const probes = current.getStore();
    if (!probes) return original.call(this, url, options);
    try {
      const res = await untilAborted(probes.fetch(url), AbortSignal.timeout(options.timeout));
      if (res.error) return { status: null, content: null };
      const ok = res.status >= 200 && res.status <= 299;
      return { status: res.status, content: ok ? res.body : null };
    } catch (err) {
      if (err instanceof DOMException && err.name === 'TimeoutError') throw new Error(`Fetching ${url} took longer than ${options.timeout} ms`);
      throw err;
    }
  };
}

/** Runs `fn` (a Lighthouse run) with Lighthouse's own fetches routed through `probes`. */
export async function withGuardedLighthouseFetches<T>(probes: Probes, fn: () => Promise<T>): Promise<T> {
  await install();
  return current.run(probes, fn);
}
