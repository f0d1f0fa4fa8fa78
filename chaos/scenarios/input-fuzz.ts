/**
 * Bad input: a fuzz run derived from the service's own /openapi.json and route table, at least
 * 10,000 requests over every route and method, with every kind of key and a signed-in portal
 * user, and every family of malformation (chaos/bad-input/fuzz.ts; oversized request lines and
 * headers on purpose, each with and without a body), against the real API in its
 * own process over a scratch embedded PostgreSQL. Goals: zero 5xx, zero connections dropped or
 * left without an answer, every error answer in the documented body with a catalogue code, the
 * process healthy afterwards and its memory at rest back near where it started after each of two
 * rounds (input-fuzz-run.ts says why at rest), the signed-in caller
 * really in the portal (and still signed in at the end).
 */
import type { ChaosRow, ChaosScenario } from '../scenario.js';
import { FAMILIES, KEY_KINDS } from '../bad-input/fuzz.js';
import { MEMORY_SLACK, runInputFuzz } from '../bad-input/input-fuzz-run.js';
import { startScratchDatabase, type Memory } from '../bad-input/service-process.js';

/** Requests per route × key kind × family: with ~190 routes, 2 gives over 21,000 requests a round. */
const PER_CELL = 2;
/** Two rounds, so that the table shows whether memory at rest climbs from one to the next. */
const ROUNDS = 2;
/** Without requests this long before memory is read: V8 gives back the heap it grew to ~8 s after a burst. */
const REST_MS = 12_000;
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
      const r = await runInputFuzz({ databaseUrl: database.url, perCell: PER_CELL, seed: SEED, rounds: ROUNDS, restMs: REST_MS, signal, log });
      const { report } = r;
      const cells = `${r.targets.length} routes × ${KEY_KINDS.length} key kinds × ${FAMILIES.length} families, ${ROUNDS} rounds, seeds ${r.rounds.map((x) => x.seed).join(', ')}`;
      const series = (pick: (m: Memory) => number) => [r.memoryBefore, ...r.rounds.map((x) => x.memoryAtRest)].map((m) => mb(pick(m))).join(' → ');
      const rest = `at rest (${REST_MS / 1000} s without requests, then a full GC), before → after each round`;
      const portalAnswers = PORTAL_PAGES.map((route) => report.validAnswers[`session ${route}`]);
      const row = (scenario: string, figure: string, value: string, ok: boolean): ChaosRow => ({ area: 'bad input', scenario, figure, value, dataLost: 0, ok });
      return [
        row(`fuzz from /openapi.json and the route table (${cells})`, 'requests', report.requests.toLocaleString('en'), report.requests >= MIN_REQUESTS),
        row('fuzz: answers 5xx', '5xx', String(report.broken['5xx']), report.broken['5xx'] === 0),
        row('fuzz: connections dropped or hung without an answer', 'dropped + hung', String(report.broken.dropped + report.broken.hang), report.broken.dropped + report.broken.hang === 0),
        row('fuzz: error answers not in the documented body with a catalogue code', 'wrong bodies', String(report.broken['error body']), report.broken['error body'] === 0),
        row(
          'fuzz: oversized on purpose (request line of 100 kB, a 70,000-byte header, each with and without a 256 kB multipart body; the client keeps sending): whole 414 / 431 read, no reset',
          'answered / sent',
          `${report.oversized.answered.toLocaleString('en')} / ${report.oversized.sent.toLocaleString('en')} (${Object.entries(report.oversized.statuses).map(([c, by]) => `${c}: ${Object.entries(by).map(([status, n]) => `${status} ×${n}`).join(', ')}`).join('; ')})`,
          report.oversized.sent > 0 && report.oversized.answered === report.oversized.sent && report.broken['wrong status'] === 0,
        ),
        row('fuzz: API process after the run', '/health', r.healthy ? '200 ok' : 'not ok', r.healthy),
        row(`fuzz: API heap used ${rest} (slack ${mb(MEMORY_SLACK.heapUsed)})`, 'heap', series((m) => m.heapUsed), r.heapBack),
        row(`fuzz: API RSS ${rest} (slack ${mb(MEMORY_SLACK.rss)})`, 'RSS', series((m) => m.rss), r.rssBack),
        row('fuzz: API RSS and heap total right after each round (after a full GC, before the rest)', 'RSS / heap total', r.rounds.map((x) => `${mb(x.memoryRightAfter.rss)} / ${mb(x.memoryRightAfter.heapTotal)}`).join(', '), true),
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
