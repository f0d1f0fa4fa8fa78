/**
 * Bad input in CI: the fuzz of chaos/scenarios/input-fuzz.ts with one request per route × key kind
 * × malformation family (every cell at least once), over real HTTP on loopback against the real
 * API in its own process and a real PostgreSQL. `npm run chaos -- input-fuzz` sends more.
 */
import t from 'tap';
import { FAMILIES, KEY_KINDS } from '../../chaos/bad-input/fuzz.js';
import { runInputFuzz } from '../../chaos/bad-input/input-fuzz-run.js';
import { createTestDb } from '../helpers/db.js';

t.test('fuzzing every route with every key kind and malformation: no 5xx, no drop, documented errors, healthy after', async (t) => {
  const { url } = await createTestDb(t);
  // The light warm-up saves ~1,000 requests in CI; the RSS comparison needs the full one (chaos run).
  const r = await runInputFuzz({ databaseUrl: url, perCell: 1, seed: 4242, lightWarmUp: true });
  const { report } = r;
  const routes = new Set(r.targets.map((x) => `${x.method} ${x.path}`));
  for (const route of ['GET /item/{id}', 'POST /tools/lix/', 'PUT /webhook/', 'POST /audit/', 'GET /private_stats/{siteId}/{testId}', 'GET /health']) {
    t.ok(routes.has(route), `${route} comes from /openapi.json`);
  }
  for (const route of ['POST /0.1/retest/', 'HEAD /item/{id}', 'GET /docs/static/{*}']) t.ok(routes.has(route), `${route}, absent from /openapi.json, comes from the route table`);
  t.equal(report.cells, r.targets.length * KEY_KINDS.length * FAMILIES.length, 'every route × key kind × family');
  t.equal(report.requests, report.cells, 'one request per cell, each answered or judged');
  const findings = report.findings.map((f) => `${f.rule} ${f.route} key=${f.key} family=${f.family} seed=${f.seed}: ${f.detail.slice(0, 200)}`);
  t.same(report.broken, { '5xx': 0, dropped: 0, hang: 0, 'error body': 0, 'wrong status': 0 }, 'no 5xx, no connection without an answer, every error in the documented body', { findings, apiErrors: r.apiErrors.slice(-5) });
  // Sent on purpose, every route all four: request line and header over the limit, each with and without a body.
  t.equal(report.oversized.sent, r.targets.length * KEY_KINDS.length, 'an oversized request in every route × key kind cell');
  t.equal(report.oversized.answered, report.oversized.sent, 'every oversized request had its whole 414 or 431 read, never a reset', { statuses: report.oversized.statuses });
  t.same(Object.keys(report.oversized.statuses).sort(), ['header', 'header+body', 'line', 'line+body'], 'all four cases were sent');
  t.ok((report.statuses[200] ?? 0) > 0 && (report.statuses[400] ?? 0) > 0 && (report.statuses[401] ?? 0) > 0 && (report.statuses[403] ?? 0) > 0, 'the keys and values reached both the routes and their refusals', { statuses: report.statuses });
  // The signed-in portal caller reached the portal's pages and forms (a signed-out one is sent
  // to the sign-in form), and the sign-out it sent ended a spare session, not its own.
  const answers = report.validAnswers;
  t.same(
    Object.fromEntries(['GET /portal/', 'GET /portal/keys', 'GET /portal/account', 'GET /portal/sites/{id}', 'GET /portal/sites/{id}/webhook', 'GET /portal/webanalytics.csv', 'POST /portal/keys', 'POST /portal/sign-out'].map((route) => [route, answers[`session ${route}`]])),
    { 'GET /portal/': 200, 'GET /portal/keys': 200, 'GET /portal/account': 200, 'GET /portal/sites/{id}': 200, 'GET /portal/sites/{id}/webhook': 200, 'GET /portal/webanalytics.csv': 200, 'POST /portal/keys': 200, 'POST /portal/sign-out': 303 },
    'the signed-in caller reaches the portal pages and forms',
  );
  t.same([answers['none GET /portal/keys'], answers['none POST /portal/keys'], answers['admin GET /portal/keys']], [303, 403, 303], 'without a session: sent to sign in, a form refused (no CSRF secret), an api-key is no session');
  // The seeded site is https://fuzz.test/, a host of a test world the API asks names of: a
  // well-formed webhook address on it passes the guard (its name resolved, its origin allowlisted).
  t.equal(answers['standard PUT /webhook/'], 200, 'a well-formed webhook address is stored');
  t.ok(r.sessionKept, 'the signed-in caller is still signed in after the run');
  t.ok(r.healthy, '/health answers 200 ok afterwards and the process still runs');
  t.comment(`API memory before → after: heap ${r.memoryBefore.heapUsed} → ${r.memoryAfter.heapUsed}, RSS ${r.memoryBefore.rss} → ${r.memoryAfter.rss}; ${report.requests} requests in ${report.ms} ms`);
  t.ok(r.heapBack, 'the heap after a full GC is back near the start', { before: r.memoryBefore, after: r.memoryAfter });
});
