/**
 * The demo page served as real sites are, for the benchmarks that load it: https://demo.test/ on
 * port 443 and http://demo-http.test/ on port 80, hosts of a test world (test/helpers/world: a
 * loopback address each, a certificate from a CA made for the run), each name a DNS zone the world
 * serves authoritatively from a root of its own, so that DNS (32) runs Zonemaster on it.
 */
import path from 'node:path';
import { createTestCa } from '../test/helpers/world/ca.js';
import { DEMO_ROOT } from '../runners/demo.js';
import { startAuthoritativeDns } from '../test/helpers/world/authoritative-dns.js';
import { startWorld, type World } from '../test/helpers/world/index.js';

export type Scheme = 'http' | 'https';

export interface DemoSites {
  world: World;
  urls: Record<Scheme, string>;
  sites: Record<Scheme, { name: string; address: string }>;
  /** Stops the DNS zones and the world, and restores the environment. */
  stop(): Promise<void>;
}

/** Starts the world and both demo sites; `dir` holds the run's CA unless the caller made one. */
export async function startDemoSites(dir: string): Promise<DemoSites> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    // The world's CA: one made for this run unless the caller made one (as `npm test` does).
    if (!process.env.WEBPERF_TEST_CA_DIR) {
      await createTestCa(path.join(dir, 'ca'));
      process.env.WEBPERF_TEST_CA_DIR = path.join(dir, 'ca');
      stops.push(async () => delete process.env.WEBPERF_TEST_CA_DIR);
    }
    const world = await startWorld();
    stops.push(() => world.close());
    const httpSite = await world.site('demo-http.test', { root: DEMO_ROOT, https: false });
    const httpsSite = await world.site('demo.test', { root: DEMO_ROOT });
    const zones = await startAuthoritativeDns({ zones: [{ name: 'demo-http.test', address: httpSite.address }, { name: 'demo.test', address: httpsSite.address }] });
    stops.push(() => zones.close());
    for (const zone of ['demo-http.test', 'demo.test']) {
      const servers = zones.zoneNs(zone);
      world.record(zone, { NS: servers.map((n) => n.name) });
      for (const n of servers) world.record(n.name, { A: [n.address] });
    }
    const hintsBefore = process.env.WEBPERF_DNS_ROOT_HINTS;
    process.env.WEBPERF_DNS_ROOT_HINTS = zones.hintsFile;
    stops.push(async () => {
      if (hintsBefore === undefined) delete process.env.WEBPERF_DNS_ROOT_HINTS;
      else process.env.WEBPERF_DNS_ROOT_HINTS = hintsBefore;
    });
    return {
      world,
      urls: { http: httpSite.url, https: httpsSite.url },
      sites: { http: { name: httpSite.name, address: httpSite.address }, https: { name: httpsSite.name, address: httpsSite.address } },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
