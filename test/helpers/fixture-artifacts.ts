/**
 * Arrange a real fixture website on loopback and load it once in a real Chromium through the
 * gather step, as the runner does. The guard allowlists loopback, as the test suite must.
 * For cases no browser loads (probe-only plugins, hand-made edge cases), makeArtifacts is the one
 * factory of an artifacts object: tests never spell out the whole shape themselves.
 */
import { existsSync } from 'node:fs';
import { open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import tap from 'tap';
import { PROJECT_ROOT, findChromium } from '../../core/config.js';
import { emptyArtifacts, probedArtifacts } from '../../core/engine.js';
import { gather } from '../../core/gather/gather.js';
import { createProbes } from '../../core/net/probes.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import type { Artifacts, Probes } from '../../core/plugin-api.js';
import { BrowserPool, ConnectedBrowserPool } from '../../runners/browser-pool.js';
import { suiteTrust, testRecords, testResolver, testWorld, type WorldSite } from './world/index.js';

/**
 * The guard of the suite's page loads: this process's world answers names (its DNS server, as
 * WEBPERF_DNS_SERVERS would make the service ask it), the suite's CA is trusted, and loopback,
 * where the world's hosts live, is allowlisted.
 */
export const LOOPBACK_GUARD = new TargetGuard(['127.0.0.0/8', '::1/128'], { resolver: testResolver, records: testRecords, trust: suiteTrust() });

export function fixtureRoot(name: string): string {
  return path.join(PROJECT_ROOT, 'test', 'fixtures', 'sites', name);
}

let pool: BrowserPool | null = null;
/** The test process's Chromium: its share's (lent by test/run.ts) or one of its own, let go when the file ends. */
export function testBrowserPool(): BrowserPool {
  if (!pool) {
    // The share's Chromium when test/run.ts lends one (test/helpers/shared-chromium.ts), else one of this process's own.
    const lent = process.env.WEBPERF_TEST_CHROMIUM_WS;
    const created = lent ? new ConnectedBrowserPool(lent) : new BrowserPool(findChromium(process.env.CHROMIUM_PATH), null, suiteTrust().chromiumArgs);
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

const served = new Map<string, Promise<WorldSite>>();

/**
 * test/fixtures/sites/<name> (or an absolute root) served in this process's world as
 * `https://<name>.test/` (port 443, the suite's CA, http on port 80 redirecting), once per process.
 */
export function fixtureSite(name: string): Promise<WorldSite> {
  let site = served.get(name);
  const shared = process.env.WEBPERF_TEST_FIXTURE_SITES ? (JSON.parse(process.env.WEBPERF_TEST_FIXTURE_SITES) as Record<string, string>)[name] : undefined;
  if (!site && shared) {
    // Served for the whole run by test/run.ts, and in every world's zone: not served again.
    const host = new URL(shared).hostname;
    const address = (JSON.parse(process.env.WEBPERF_TEST_SHARED_HOSTS ?? '{}') as Record<string, string>)[host];
    site = Promise.resolve({ name: host, names: [host], address, url: shared, origin: new URL(shared).origin, httpUrl: `http://${host}/`, close: async () => {} });
    served.set(name, site);
  }
  if (!site) {
    const root = path.isAbsolute(name) ? name : fixtureRoot(name);
    site = testWorld().then((world) => world.site(`${path.basename(root).toLowerCase().replace(/[^a-z0-9-]/g, '-')}.test`, { root }));
    served.set(name, site);
  }
  return site;
}

/**
 * A load for test types that need neither Lighthouse's categories nor axe (every type but 30 and
 * 18; gatherNeeds in core/gather/gather.ts): the same page load, network log, HTML, scripts,
 * stylesheets and cookies, without the trace, at about half the cost. `artifacts.lighthouse` and
 * `artifacts.axe` are then null.
 */
export const LIGHT_LOAD = { lighthouse: false, axe: false } as const;

/**
 * Serves test/fixtures/sites/<name> (or an absolute root) as https://<name>.test/ and gathers its
 * start page: in full, or as `needs` says (LIGHT_LOAD for a file whose types need neither
 * Lighthouse nor axe). The shared fixtures (good, flawed) are always gathered in full, once a run.
 */
export async function loadFixture(_t: { teardown(fn: () => unknown): void }, name: string, pagePath = '', needs?: { lighthouse: boolean; axe: boolean }): Promise<LoadedFixture> {
  const shared = sharedFixtureUrl(name);
  if (shared) {
    const url = shared + pagePath;
    return { url, artifacts: await sharedGather(`${name}${pagePath}`, url), probes: createProbes(LOOPBACK_GUARD) };
  }
  const site = await fixtureSite(name);
  const browser = await testBrowserPool().acquire();
  const url = site.url + pagePath;
  const artifacts = await gather(url, { browser, guard: LOOPBACK_GUARD, needs });
  return { url, artifacts, probes: createProbes(LOOPBACK_GUARD) };
}

/**
 * The fixture sites that many test files gather (test/run.ts serves them for the whole run, see
 * SHARED_FIXTURES there): their start page is loaded once per `npm test` run, in a real Chromium
 * through the real gather, by whichever file asks first; the other files read the same artifacts.
 * Every file gathering them again was a dozen identical Lighthouse runs per run.
 */
function sharedFixtureUrl(name: string): string | null {
  const sites = process.env.WEBPERF_TEST_FIXTURE_SITES;
  if (!sites || !process.env.WEBPERF_TEST_GATHER_CACHE) return null;
  return (JSON.parse(sites) as Record<string, string>)[name] ?? null;
}

/** Longest a file waits for another file's gather of the same page before it gathers itself. */
const SHARED_GATHER_WAIT_MS = 240_000;

async function sharedGather(key: string, url: string): Promise<Artifacts> {
  const file = path.join(process.env.WEBPERF_TEST_GATHER_CACHE!, `${encodeURIComponent(key)}.json`);
  const read = async () => JSON.parse(await readFile(file, 'utf8')) as Artifacts;
  let lock: FileHandle | null = null;
  try {
    // The first file to come creates the lock and gathers; the others wait for its result.
    lock = await open(`${file}.lock`, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const deadline = Date.now() + SHARED_GATHER_WAIT_MS;
    while (Date.now() < deadline) {
      if (existsSync(file)) return read();
      if (!existsSync(`${file}.lock`)) return sharedGather(key, url); // the gatherer failed: try anew
      await setTimeout(100);
    }
    // The gathering file died without a result (killed at its time limit): gather here, uncached.
    return gather(url, { browser: await testBrowserPool().acquire(), guard: LOOPBACK_GUARD });
  }
  try {
    if (existsSync(file)) return await read();
    const artifacts = await gather(url, { browser: await testBrowserPool().acquire(), guard: LOOPBACK_GUARD });
    // Written whole, then renamed: a waiting file never reads half a file.
    await writeFile(`${file}.tmp`, JSON.stringify(artifacts));
    await rename(`${file}.tmp`, file);
    return await read();
  } finally {
    await lock.close();
    await rm(`${file}.lock`, { force: true });
  }
}

/** Artifacts of a page at `url` nobody loaded, served with status 200: every field empty (axe and Lighthouse null), then `fields`. */
export function makeArtifacts(url: string, fields: Partial<Artifacts> = {}): Artifacts {
  return emptyArtifacts(url, { mainDocument: { url, status: 200, headers: {}, html: '' }, ...fields });
}

/** Artifacts for a probe-only case: the start page at `url` as the engine's probe reads it, nothing from a browser. */
export async function servedArtifacts(url: string, probes: Probes, htmlLang: string): Promise<Artifacts> {
  const probed = await probedArtifacts(url, probes);
  if (!probed) throw new Error(`the probe could not read ${url}`);
  return { ...probed, htmlLang };
}
