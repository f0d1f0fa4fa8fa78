/**
 * Arrange a real fixture website on loopback and load it once in a real Chromium through the
 * gather step, as the runner does. The guard allowlists loopback, as the test suite must.
 * For cases no browser loads (probe-only plugins, hand-made edge cases), makeArtifacts is the one
 * factory of an artifacts object: tests never spell out the whole shape themselves.
 */
import path from 'node:path';
import tap from 'tap';
import { PROJECT_ROOT, findChromium } from '../../core/config.js';
import { gather } from '../../core/gather/gather.js';
import { createProbes } from '../../core/net/probes.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import type { Artifacts, Probes } from '../../core/plugin-api.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { startStaticSite } from '../../runners/static-site.js';

export const LOOPBACK_GUARD = new TargetGuard(['127.0.0.0/8', '::1/128']);

export function fixtureRoot(name: string): string {
  return path.join(PROJECT_ROOT, 'test', 'fixtures', 'sites', name);
}

let pool: BrowserPool | null = null;
/** One Chromium per test process, closed when the test file ends. */
export function testBrowserPool(): BrowserPool {
  if (!pool) {
    const created = new BrowserPool(findChromium(process.env.CHROMIUM_PATH));
    pool = created;
    tap.teardown(async () => {
      await created.close();
      if (pool === created) pool = null;
    });
  }
  return pool;
}

export interface LoadedFixture {
  url: string;
  artifacts: Artifacts;
  probes: Probes;
}

/** Serves test/fixtures/sites/<name> (or an absolute root) and gathers its start page. */
export async function loadFixture(t: { teardown(fn: () => unknown): void }, name: string, pagePath = ''): Promise<LoadedFixture> {
  const site = await startStaticSite(path.isAbsolute(name) ? name : fixtureRoot(name));
  t.teardown(() => site.close());
  const browser = await testBrowserPool().acquire();
  const url = site.url + pagePath;
  const artifacts = await gather(url, { browser, guard: LOOPBACK_GUARD });
  return { url, artifacts, probes: createProbes(LOOPBACK_GUARD) };
}

/** Artifacts of a page at `url` nobody loaded: every field empty (axe and Lighthouse null), then `fields`. */
export function makeArtifacts(url: string, fields: Partial<Artifacts> = {}): Artifacts {
  return {
    requestedUrl: url,
    finalUrl: url,
    mainDocument: { url, status: 200, headers: {}, html: '' },
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
    ...fields,
  };
}

/** Artifacts for a probe-only case: the start page at `url` as served (one guarded probe), nothing from a browser. */
export async function servedArtifacts(url: string, probes: Probes, htmlLang: string): Promise<Artifacts> {
  const page = await probes.fetch(url);
  return makeArtifacts(url, { mainDocument: { url, status: page.status, headers: page.headers, html: page.body }, htmlLang });
}
