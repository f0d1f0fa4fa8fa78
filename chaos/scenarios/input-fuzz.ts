/**
 * Bad input: a fuzz run derived from the service's own /openapi.json and route table, at least
 * 10,000 requests over every route and method, with every kind of key and a signed-in portal
 * user, and every family of malformation (chaos/bad-input/fuzz.ts), against the real API in its
 * own process over a scratch embedded PostgreSQL. Goals: zero 5xx, zero connections dropped or
 * left without an answer, every error answer in the documented body with a catalogue code, the
 * process healthy afterwards and its memory back near where it started, the signed-in caller
 * really in the portal (and still signed in at the end).
 */
import type { ChaosRow, ChaosScenario } from '../scenario.js';
import { FAMILIES, KEY_KINDS } from '../bad-input/fuzz.js';
import { MEMORY_SLACK, runInputFuzz } from '../bad-input/input-fuzz-run.js';
import { startScratchDatabase } from '../bad-input/service-process.js';

/** Requests per route × key kind × family: with ~140 routes, 2 gives over 13,000 requests. */
const PER_CELL = 2;
const SEED = 20261123;
const MIN_REQUESTS = 10_000;
/** Pages the signed-in caller must reach (200) with a well-formed request. */
const PORTAL_PAGES = ['GET /portal/', 'GET /portal/keys', 'GET /portal/sites/{id}'];

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

const scenario: ChaosScenario = {
  name: 'input-fuzz',
  budgetMs: 20 * 60_000,
  async run({ signal, log }) {
    const database = await startScratchDatabase();
    try {
      const r = await runInputFuzz({ databaseUrl: database.url, perCell: PER_CELL, seed: SEED, signal, log });
      const { report } = r;
      const cells = `${r.targets.length} routes × ${KEY_KINDS.length} key kinds × ${FAMILIES.length} families, seed ${SEED}`;
      const portalAnswers = PORTAL_PAGES.map((route) => report.validAnswers[`session ${route}`]);
      const row = (scenario: string, figure: string, value: string, ok: boolean): ChaosRow => ({ area: 'bad input', scenario, figure, value, dataLost: 0, ok });
      return [
        row(`fuzz from /openapi.json and the route table (${cells})`, 'requests', report.requests.toLocaleString('en'), report.requests >= MIN_REQUESTS),
        row('fuzz: answers 5xx', '5xx', String(report.broken['5xx']), report.broken['5xx'] === 0),
        row('fuzz: connections dropped or hung without an answer', 'dropped + hung', String(report.broken.dropped + report.broken.hang), report.broken.dropped + report.broken.hang === 0),
        row('fuzz: error answers not in the documented body with a catalogue code', 'wrong bodies', String(report.broken['error body']), report.broken['error body'] === 0),
        row('fuzz: API process after the run', '/health', r.healthy ? '200 ok' : 'not ok', r.healthy),
        row(`fuzz: API heap after GC, before → after (slack ${mb(MEMORY_SLACK.heapUsed)})`, 'heap', `${mb(r.memoryBefore.heapUsed)} → ${mb(r.memoryAfter.heapUsed)}`, r.memoryAfter.heapUsed <= r.memoryBefore.heapUsed + MEMORY_SLACK.heapUsed),
        row(`fuzz: API RSS, before → after (slack ${mb(MEMORY_SLACK.rss)})`, 'RSS', `${mb(r.memoryBefore.rss)} → ${mb(r.memoryAfter.rss)}`, r.memoryAfter.rss <= r.memoryBefore.rss + MEMORY_SLACK.rss),
        row(`fuzz: signed-in portal caller (session cookie and CSRF token): well-formed ${PORTAL_PAGES.join(', ')}`, 'answers', portalAnswers.join(', '), portalAnswers.every((status) => status === 200)),
        row('fuzz: signed-in portal caller: own session after the run', 'GET /portal/', r.sessionKept ? '200 (signed in)' : 'signed out', r.sessionKept),
        row('fuzz: throughput (each request on a new connection)', 'requests/s', String(Math.round(report.requests / (report.ms / 1000))), true),
      ];
    } finally {
      await database.stop();
    }
  },
};

export default scenario;
