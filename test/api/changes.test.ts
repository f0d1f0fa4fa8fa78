/**
 * GET /changes/{siteId} (issue 31): what changed between runs of a website, over the real API and
 * a real PostgreSQL, from results stored as a runner stores them (saveRunResults keeps each
 * finding): the latest pair per type, a date range with its pagination, two run ids (a private
 * one-off test against a public run), the findings added, resolved and changed with their texts
 * in the asked language, the rating changes, results stored before findings were kept, and every
 * refusal with its code and body.
 */
import t from 'tap';
import type { Finding } from '../../core/plugin-api.js';
import type { TestOutcome } from '../../core/pipeline.js';
import { createKey } from '../../core/store/keys.js';
import { buildTestApi } from '../helpers/api.js';
import { outcome, seedRun, seedSite } from '../helpers/seed.js';

const api = await buildTestApi(t, { rateLimitPerMinute: 0 });
const { app, db } = api;
const A = await seedSite(db, { title: 'Alfa kommun', url: 'https://alfa.example/' });
const B = await seedSite(db, { title: 'Beta region', url: 'https://beta.example/' });
const keyA = (await createKey(db, { kind: 'standard', siteIds: [A] })).key;
const keyB = (await createKey(db, { kind: 'standard', siteIds: [B] })).key;
const keyAdmin = (await createKey(db, { kind: 'admin', siteIds: [] })).key;
const get = (url: string, key = keyA) => app.inject({ method: 'GET', url, headers: { 'api-key': key } });

const finding = (rule: string, severity: Finding['severity'], count: number, sv: string, en: string, category: Finding['category'] = 'a11y', locator?: string): Finding =>
  ({ rule, category, severity, count, text: { sv, en }, ...(locator ? { locator } : {}) });
const withFindings = (o: TestOutcome, findings: Finding[]): TestOutcome => ({ ...o, findings });
const day = (d: string) => new Date(`${d}T08:00:00Z`);

// Site A: three public runs of accessibility (10) and HTTP (21), a private one-off test after them.
const contrast = (n: number) => finding('color-contrast', 'error', n, `${n} texter har för låg kontrast`, `${n} texts have too little contrast`);
const alt = finding('image-alt', 'error', 1, 'En bild saknar alternativtext', 'An image has no alternative text');
const hsts = finding('hsts-missing', 'error', 1, 'HSTS saknas', 'HSTS is missing', 'infosec');
const cookie = (name: string) => finding('cookie-secure', 'warning', 1, `Kakan ${name} saknar Secure`, `The cookie ${name} lacks Secure`, 'infosec', name);
const run1 = await seedRun(db, A, { url: 'https://alfa.example/', testDate: day('2026-10-01'), outcomes: [
  withFindings(outcome(10, 4.6, { a11y: 4.6 }), [contrast(2)]),
  withFindings(outcome(21, 5, { infosec: 5 }), [cookie('sid'), finding('https', 'resolved', 1, 'HTTPS', 'HTTPS', 'infosec')]),
] });
const run2 = await seedRun(db, A, { url: 'https://alfa.example/', testDate: day('2026-11-01'), outcomes: [
  withFindings(outcome(10, 4.6, { a11y: 4.6 }), [contrast(2)]),
  withFindings(outcome(21, 4.5, { infosec: 4.5 }), [cookie('sid'), hsts]),
] });
const run3 = await seedRun(db, A, { url: 'https://alfa.example/', testDate: day('2026-11-20'), outcomes: [
  withFindings(outcome(10, 3.9, { a11y: 3.9 }), [contrast(16), alt]),
  withFindings(outcome(21, 4.5, { infosec: 4.5 }), [cookie('lang'), hsts]),
] });
const once = await seedRun(db, A, { url: 'https://alfa.example/ny', private: true, testDate: day('2026-11-21'), outcomes: [withFindings(outcome(10, 4.8, { a11y: 4.8 }), [])] });
// Site B: an old result stored before findings were kept, then a new one.
const old = await seedRun(db, B, { url: 'https://beta.example/', testDate: day('2026-09-01'), outcomes: [outcome(10, 4, { a11y: 4 })] });
await db.updateTable('test_results').set({ findings: null }).where('run_id', '=', old.runId).execute();
const runB = await seedRun(db, B, { url: 'https://beta.example/', testDate: day('2026-11-02'), outcomes: [withFindings(outcome(10, 4, { a11y: 4 }), [alt])] });

type Pair = { type_of_test: number; from: { run_id: number; test_date: string; ratings: Record<string, number | null> }; to: { run_id: number }; rating_change: Record<string, number | null>; findings_known: boolean; changes: { change: string; key: string; before: unknown; after: unknown; text: string; locator: string | null }[] };
const summary = (p: Pair) => [p.type_of_test, p.from.run_id, p.to.run_id, p.rating_change.overall, p.changes.map((c) => `${c.change} ${c.key}`)];

t.test('since the last test: per type, its latest public result against the one before it', async (t) => {
  const res = await get(`/changes/${A}?lang=en`);
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.strictSame([body.api_version, body.uri, body.total, body.page, body.per_page, body.result_count], ['0.1', `http://webperf.test/item/${A}`, 2, 1, 20, 2]);
  t.strictSame(body.data.map(summary), [
    [10, run2.runId, run3.runId, -0.7, ['changed a11y color-contrast', 'added a11y image-alt']],
    [21, run2.runId, run3.runId, 0, ['added infosec cookie-secure lang', 'resolved infosec cookie-secure sid']],
  ]);
  const [a11y] = body.data as Pair[];
  t.strictSame(a11y.changes[0], { change: 'changed', key: 'a11y color-contrast', rule: 'color-contrast', category: 'a11y', locator: null, before: { severity: 'error', count: 2 }, after: { severity: 'error', count: 16 }, text: '16 texts have too little contrast' });
  t.strictSame([a11y.rating_change, a11y.from.ratings, a11y.findings_known], [{ overall: -0.7, a11y: -0.7, infosec: null, pagespeed: null, webstandard: null }, { overall: 4.6, a11y: 4.6, infosec: null, pagespeed: null, webstandard: null }, true]);
  const sv = (await get(`/changes/${A}?lang=sv&testnums=21`)).json();
  t.strictSame(sv.data.map((p: Pair) => p.changes.map((c) => [c.text, c.locator])), [[['Kakan lang saknar Secure', 'lang'], ['Kakan sid saknar Secure', 'sid']]], 'in Swedish; testnums keeps type 21');
  t.equal((await get(`/0.1/changes/${A}?lang=en`)).json().total, 2, 'under /0.1 too');
});

t.test('a date range: every consecutive pair whose later result falls in it, newest first, paginated', async (t) => {
  const all = (await get(`/changes/${A}?since=2026-10-15&until=2026-11-30&lang=en`)).json();
  t.strictSame([all.total, all.data.map((p: Pair) => [p.type_of_test, p.from.run_id, p.to.run_id])], [4, [[10, run2.runId, run3.runId], [21, run2.runId, run3.runId], [10, run1.runId, run2.runId], [21, run1.runId, run2.runId]]]);
  const nov1 = all.data[2] as Pair;
  t.strictSame(nov1.changes, [], 'accessibility unchanged from October to November 1');
  t.strictSame(all.data[3].changes.map((c: Pair['changes'][0]) => `${c.change} ${c.key}`), ['added infosec hsts-missing'], 'HSTS removed: the passed HTTPS check is no change');
  const page2 = (await get(`/changes/${A}?since=2026-10-15&per_page=3&page=2`)).json();
  t.strictSame([page2.total, page2.page, page2.per_page, page2.result_count, page2.data.map((p: Pair) => [p.type_of_test, p.to.run_id])], [4, 2, 3, 1, [[21, run2.runId]]]);
  const until = (await get(`/changes/${A}?until=2026-11-01`)).json();
  t.strictSame(until.data.map((p: Pair) => [p.type_of_test, p.to.run_id]), [[10, run2.runId], [21, run2.runId]], 'until is inclusive (the whole day)');
  t.equal((await get(`/changes/${A}?since=2026-12-01`)).json().total, 0, 'nothing in the range: an empty page');
});

t.test('two run ids: a private one-off test against the last public run', async (t) => {
  const res = (await get(`/changes/${A}?from_run=${run3.runId}&to_run=${once.runId}&lang=en`)).json();
  t.strictSame(res.data.map(summary), [[10, run3.runId, once.runId, 0.9, ['resolved a11y color-contrast', 'resolved a11y image-alt']]], 'only type 10 ran in both');
});

t.test('results stored before findings were kept: findings_known false, no changes; a result with an error is left out', async (t) => {
  const res = (await get(`/changes/${B}`, keyB)).json();
  t.strictSame(res.data.map((p: Pair) => [p.from.run_id, p.to.run_id, p.findings_known, p.changes]), [[old.runId, runB.runId, false, []]]);
  // A later run whose page could not be loaded: no judgement, so the pair stays the judgements either side.
  const failed = await seedRun(db, B, { url: 'https://beta.example/', testDate: day('2026-11-03'), outcomes: [{ ...outcome(10, -1), error: 'The website could not be reached' }] });
  const after = (await get(`/changes/${B}`, keyB)).json();
  t.strictSame(after.data.map((p: Pair) => [p.from.run_id, p.to.run_id]), [[old.runId, runB.runId]]);
  t.equal((await get(`/changes/${B}?from_run=${runB.runId}&to_run=${failed.runId}`, keyB)).json().total, 0, 'nor is it paired by run ids');
});

t.test('refusals: each with its code and body', async (t) => {
  const cases: [string, string, number, string, string][] = [
    ['no key', `/changes/${A}`, 401, 'KEY_MISSING', ''],
    ['another site\'s key', `/changes/${A}`, 403, 'FORBIDDEN_SITE', keyB],
    ['admin, no such site', '/changes/999999', 404, 'SITE_NOT_FOUND', keyAdmin],
    ['not a date', `/changes/${A}?since=2026-13-01`, 400, 'CHANGES_QUERY_INVALID', keyA],
    ['since after until', `/changes/${A}?since=2026-11-02&until=2026-11-01`, 400, 'CHANGES_QUERY_INVALID', keyA],
    ['dates and runs', `/changes/${A}?since=2026-11-01&from_run=${run1.runId}&to_run=${run2.runId}`, 400, 'CHANGES_QUERY_INVALID', keyA],
    ['one run id', `/changes/${A}?from_run=${run1.runId}`, 400, 'CHANGES_QUERY_INVALID', keyA],
    ['a run of another site', `/changes/${A}?from_run=${run1.runId}&to_run=${runB.runId}`, 404, 'RUN_NOT_FOUND', keyA],
    ['no such run', `/changes/${A}?from_run=${run1.runId}&to_run=99999999`, 404, 'RUN_NOT_FOUND', keyA],
    ['a bad test number', `/changes/${A}?testnums=10,abc`, 400, 'TESTNUMS_INVALID', keyA],
    ['a test type no catalogue knows', `/changes/${A}?testnums=12345`, 400, 'TESTNUMS_INVALID', keyA],
    ['too many per page', `/changes/${A}?per_page=101`, 400, 'CHANGES_QUERY_INVALID', keyA],
    ['page 0', `/changes/${A}?page=0`, 400, 'CHANGES_QUERY_INVALID', keyA],
    ['bad language', `/changes/${A}?lang=de`, 400, 'UNSUPPORTED_LANG', keyA],
  ];
  for (const [what, url, status, code, key] of cases) {
    const res = key ? await get(url, key) : await app.inject({ method: 'GET', url });
    t.strictSame([res.statusCode, res.json().error, res.json().statusCode], [status, code, status], `${what}: ${res.json().message}`);
  }
  t.equal((await get(`/changes/${A}?from_run=${run1.runId}&to_run=${runB.runId}`)).json().message, `Run ${runB.runId} is not a run of website ${A}`);
});

t.test('the OpenAPI description documents the route with an example', async (t) => {
  const doc = (await app.inject('/openapi.json')).json();
  const op = doc.paths['/changes/{siteId}']?.get;
  t.ok(op, 'GET /changes/{siteId} is described');
  t.match(op.description, /Costs no credits/);
  t.strictSame(op.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name).sort(), ['from_run', 'lang', 'page', 'per_page', 'since', 'testnums', 'to_run', 'until']);
  const ok = op.responses['200'].content['application/json'];
  t.equal((ok.example ?? ok.schema.example).data[0].changes[1].key, 'a11y image-alt', 'with an example');
});

t.test('kept as /stats/ is: an ETag and 304, and a new result of the site is seen', async (t) => {
  const first = await get(`/changes/${A}?lang=en`);
  const etag = first.headers.etag as string;
  t.match(etag, /^"/);
  const again = await app.inject({ method: 'GET', url: `/changes/${A}?lang=en`, headers: { 'api-key': keyA, 'if-none-match': etag } });
  t.equal(again.statusCode, 304);
  const run4 = await seedRun(db, A, { url: 'https://alfa.example/', testDate: day('2026-11-25'), outcomes: [withFindings(outcome(10, 4.2, { a11y: 4.2 }), [contrast(16)])] });
  const until = Date.now() + 5_000;
  let seen: Pair[] = [];
  while (Date.now() < until) {
    seen = (await get(`/changes/${A}?lang=en&testnums=10`)).json().data;
    if (seen[0]?.to.run_id === run4.runId) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.strictSame(seen.map(summary), [[10, run3.runId, run4.runId, 0.3, ['resolved a11y image-alt']]], 'the new run is the later side now');
});
