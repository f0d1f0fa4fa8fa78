/**
 * One whole slow-clients run, shared by the chaos scenario (chaos/scenarios/input-slow-clients.ts)
 * and the CI test (test/chaos/slow-clients.test.ts): the real API in its own process with the
 * given HTTP limits (WEBPERF_HTTP_*), the latency of normal requests without and then with
 * `slowCount` slow connections open, how each slow connection ended, and two bodies larger than
 * any limit (declared, and chunked without a length).
 */
import { createDb } from '../../core/db/database.js';
import { measure, openSlow, sendOversize, SLOW_KINDS, type Latency, type OversizeEnd, type SlowConnection, type SlowEnd, type SlowKind } from './slow-clients.js';
import { startApiProcess } from './service-process.js';
import { getJson, seedWorld, serveFuzzSites } from './world.js';

export interface SlowClientsResult {
  baseline: Latency;
  underSlow: Latency;
  /** The fewest slow connections open at any time during the measurement under them. */
  openDuringMeasure: number;
  ends: SlowEnd[];
  /** Per kind: how many the server closed, and the statuses it answered them with. */
  byKind: Record<SlowKind, { opened: number; closed: number; statuses: Record<string, number>; maxMs: number }>;
  oversize: OversizeEnd;
  oversizeChunked: OversizeEnd;
  healthy: boolean;
}

export async function runSlowClients(options: {
  databaseUrl: string;
  /** WEBPERF_HTTP_* settings of the API process (default: the product's defaults). */
  env?: Record<string, string>;
  slowCount: number;
  normalRequests: number;
  /** A trickling connection sends one byte this often. */
  intervalMs: number;
  /** A slow connection still open after this long counts as not cut off. */
  giveUpMs: number;
  log?: (line: string) => void;
}): Promise<SlowClientsResult> {
  const log = options.log ?? (() => {});
  const sites = await serveFuzzSites();
  const api = await startApiProcess(options.databaseUrl, { WEBPERF_RATE_LIMIT: '1000000000', ...sites.env, ...options.env }).catch(async (err: unknown) => {
    await sites.close();
    throw err;
  });
  const db = createDb(options.databaseUrl, { max: 2 });
  try {
    const world = await seedWorld(db, api.port, 1, sites);
    // Normal requests: health, open data and premium reads (each premium one reads the key and the database).
    const paths = ['/health', `/item/${world.siteId}`, '/categories/', `/stats/${world.siteId}`];
    const normal = { headers: { 'api-key': world.keys.standard, 'site-id': String(world.siteId) } };
    await measure(api.url, paths, 40, normal);
    const baseline = await measure(api.url, paths, options.normalRequests, normal);
    log(`baseline: p50 ${baseline.p50} ms, p99 ${baseline.p99} ms over ${baseline.n} requests`);

    const lixHead = (length: number | 'chunked') =>
      `POST /tools/lix/ HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\napi-key: ${world.keys.standard}\r\nsite-id: ${world.siteId}\r\n` +
      `content-type: application/x-www-form-urlencoded\r\n${length === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${length}`}\r\n\r\n`;
    // A slow connection the server cuts off is replaced at once while normal requests are
    // measured (as a slowloris attacker does), so that all `slowCount` stay open meanwhile.
    const slow: SlowConnection[] = [];
    let open = 0;
    let replenish = true;
    let minOpen = Infinity;
    const openOne = (kind: SlowKind) => {
      const s = openSlow(api.port, kind, { intervalMs: options.intervalMs, giveUpMs: options.giveUpMs, bodyRequestHead: `${lixHead(50_000)}content=` });
      slow.push(s);
      open++;
      void s.ended.then(() => {
        open--;
        if (replenish) openOne(kind);
      });
    };
    for (let i = 0; i < options.slowCount; i++) openOne(SLOW_KINDS[i % SLOW_KINDS.length]);
    // Let them connect and start trickling before measuring under them.
    await new Promise((r) => setTimeout(r, 300));
    const watch = setInterval(() => (minOpen = Math.min(minOpen, open)), 20);
    const underSlow = await measure(api.url, paths, options.normalRequests, normal);
    clearInterval(watch);
    replenish = false;
    const openDuringMeasure = Math.min(minOpen, open);
    log(`with at least ${openDuringMeasure} of ${options.slowCount} slow connections open: p50 ${underSlow.p50} ms, p99 ${underSlow.p99} ms, ${underSlow.errors} errors`);

    const [oversize, oversizeChunked] = await Promise.all([
      sendOversize(api.port, lixHead(1_000_000_000), options.giveUpMs),
      sendOversize(api.port, lixHead('chunked'), options.giveUpMs, true),
    ]);
    log(`oversized bodies: ${oversize.response?.status ?? 'no answer'} after ${oversize.bytesSent} bytes, chunked ${oversizeChunked.response?.status ?? 'no answer'} after ${oversizeChunked.bytesSent} bytes`);

    // Replacements opened until the end of the measurement are awaited too.
    let ends: SlowEnd[] = [];
    while (ends.length < slow.length) ends = await Promise.all(slow.map((s) => s.ended));
    const byKind = Object.fromEntries(SLOW_KINDS.map((k) => [k, { opened: 0, closed: 0, statuses: {} as Record<string, number>, maxMs: 0 }])) as SlowClientsResult['byKind'];
    for (const e of ends) {
      const k = byKind[e.kind];
      k.opened++;
      if (e.closedByServer) k.closed++;
      const status = e.response ? String(e.response.status) : 'none';
      k.statuses[status] = (k.statuses[status] ?? 0) + 1;
      k.maxMs = Math.max(k.maxMs, e.ms);
    }
    for (const kind of SLOW_KINDS) log(`${kind}: ${byKind[kind].closed} of ${byKind[kind].opened} closed by the server (at most after ${byKind[kind].maxMs} ms), answers ${JSON.stringify(byKind[kind].statuses)}`);
    let healthy = false;
    try {
      healthy = (await getJson<{ status: string }>(`${api.url}/health`)).status === 'ok' && api.alive();
    } catch {
      healthy = false;
    }
    return { baseline, underSlow, openDuringMeasure, ends, byKind, oversize, oversizeChunked, healthy };
  } finally {
    await db.destroy();
    await api.stop();
    await sites.close();
  }
}
