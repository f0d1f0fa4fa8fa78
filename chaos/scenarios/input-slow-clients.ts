/**
 * Slow and abusive clients against the real API in its own process, with the product's default
 * HTTP limits (config.http): 200 connections that send nothing, trickle their headers or body a
 * byte every second, or sit idle after one request, and two bodies larger than any limit. Measured:
 * p99 of normal requests without and with the 200 slow connections open; goals: no normal request
 * fails, every slow connection is cut off by the server within its limit, the oversized bodies get
 * a 413 and lose their connection, the process stays healthy.
 */
import { loadConfig } from '../../core/config.js';
import type { ChaosRow, ChaosScenario } from '../scenario.js';
import { runSlowClients } from '../bad-input/slow-clients-run.js';
import { startScratchDatabase } from '../bad-input/service-process.js';
import { SLOW_KINDS } from '../bad-input/slow-clients.js';

const SLOW = 200;
const NORMAL = 1_000;

const scenario: ChaosScenario = {
  name: 'input-slow-clients',
  budgetMs: 10 * 60_000,
  async run({ log }) {
    const limits = loadConfig({}).http;
    // The longest a slow connection may legitimately live: the request limit, the idle limit or
    // the keep-alive limit, plus one check interval and a margin for a loaded machine.
    const cutOffMs = Math.max(limits.requestTimeoutMs, limits.idleTimeoutMs, limits.keepAliveTimeoutMs) + limits.checkIntervalMs + 10_000;
    const database = await startScratchDatabase();
    try {
      const r = await runSlowClients({ databaseUrl: database.url, slowCount: SLOW, normalRequests: NORMAL, intervalMs: 1_000, giveUpMs: cutOffMs, log });
      const row = (area: ChaosRow['area'], scenario: string, figure: string, value: string, ok: boolean): ChaosRow => ({ area, scenario, figure, value, dataLost: 0, ok });
      const closed = r.ends.filter((e) => e.closedByServer).length;
      const opened = r.ends.length;
      const limitsText = `headers ${limits.headersTimeoutMs / 1000} s, request ${limits.requestTimeoutMs / 1000} s, keep-alive ${limits.keepAliveTimeoutMs / 1000} s, idle ${limits.idleTimeoutMs / 1000} s`;
      const rows = [
        row('slow clients', `${NORMAL} normal requests, no slow connections`, 'p50 / p99', `${r.baseline.p50} / ${r.baseline.p99} ms`, r.baseline.errors === 0),
        row('slow clients', `${NORMAL} normal requests while ${SLOW} slow connections are open (at least ${r.openDuringMeasure} at every moment; cut-off ones replaced)`, 'p50 / p99', `${r.underSlow.p50} / ${r.underSlow.p99} ms`, r.underSlow.errors === 0 && r.openDuringMeasure >= SLOW * 0.95),
        row('slow clients', 'normal requests failed while slow connections were open', 'errors', String(r.underSlow.errors), r.underSlow.errors === 0),
        row('slow clients', `slow connections cut off by the server (${limitsText})`, 'closed', `${closed} / ${opened}`, closed === opened),
      ];
      for (const kind of SLOW_KINDS) {
        const k = r.byKind[kind];
        rows.push(row('slow clients', `${kind}: ${k.opened} connections, answers before the close, longest life`, 'answers', `${Object.entries(k.statuses).map(([s, n]) => `${n}× ${s}`).join(', ')}; ${(k.maxMs / 1000).toFixed(1)} s`, k.closed === k.opened));
      }
      for (const [name, o] of [['declared 1 GB', r.oversize], ['chunked, no length', r.oversizeChunked]] as const) {
        const mbOf = (n: number | null) => `${((n ?? 0) / 1024 / 1024).toFixed(1)} MB`;
        rows.push(row('slow clients', `body larger than any limit (${name})`, 'answer; closed after', `${o.response?.status ?? 'none'} after ${mbOf(o.answeredAfterBytes)}; closed after ${mbOf(o.bytesSent)}`, o.response?.status === 413 && o.closedByServer && o.bytesSent < 64 * 1024 * 1024));
      }
      rows.push(row('slow clients', 'API process after the run', '/health', r.healthy ? '200 ok' : 'not ok', r.healthy));
      return rows;
    } finally {
      await database.stop();
    }
  },
};

export default scenario;
