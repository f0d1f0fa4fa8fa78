import t, { type Test } from 'tap';
import type { TestOutcome } from '../../core/pipeline.js';
import { createKey, revokeKey } from '../../core/store/keys.js';
import { buildTestApi } from '../helpers/api.js';
import { NOT_RATED, outcome, seedCategory, seedCredits, seedLevel, seedRun, seedSite } from '../helpers/seed.js';

// Arrange once: the real API over a fresh PostgreSQL database, four sites, five keys, results.
// The rate limit (its own tests) is off: these tests call the same routes many times with one key.
const api = await buildTestApi(t, { rateLimitPerMinute: 0 });
const { app, db } = api;
const BASE = 'http://webperf.test';

await seedLevel(db, 'gold', 500);
const A = await seedSite(db, { title: 'Alfa kommun', url: 'https://alfa.example/', premiumLevel: 'gold', categories: ['Kommuner'] });
const B = await seedSite(db, { title: 'Beta region', url: 'https://beta.example/', premiumLevel: 'gold', monthlyQuota: 100, categories: ['Regioner'] });
const C = await seedSite(db, { title: 'Gamma AB', url: 'https://gamma.example/' });
const D = await seedSite(db, { title: 'Delta kommun', url: 'https://delta.example/', categories: ['Kommuner'] });
const KOMMUNER = await seedCategory(db, 'Kommuner');
const REGIONER = await seedCategory(db, 'Regioner');
const TOM = await seedCategory(db, 'Tom kategori');
const MISSING = 999_999;

const keyA = (await createKey(db, { kind: 'standard', siteIds: [A], label: 'alfa' })).key;
const keyAgency = (await createKey(db, { kind: 'agency', siteIds: [A, B], label: 'byrå' })).key;
const keyAdmin = (await createKey(db, { kind: 'admin', siteIds: [], label: 'admin' })).key;
const keyC = (await createKey(db, { kind: 'standard', siteIds: [C], label: 'gamma' })).key;
const revoked = await createKey(db, { kind: 'standard', siteIds: [A], label: 'old' });
await revokeKey(db, revoked.prefix);

// Site A: an older and a newer public result for test type 30, others in either run.
const JAN = new Date('2025-01-15T10:00:00Z');
const FEB = new Date('2025-02-10T08:30:00Z');
const o18 = outcome(18, 2.5, { infosec: 2.5 });
const o21 = outcome(21, 4, { webstandard: 4 });
const o30old = outcome(30, 3.5, { a11y: 3, pagespeed: 4 }, { old: true });
const o9 = outcome(9, NOT_RATED);
const o30 = outcome(30, 4.25, { a11y: 4.5, pagespeed: 4 }, { score: 0.85, audits: ['a', 'b'], nested: { ok: true } });
const o100 = outcome(100, 3.51, { pagespeed: 3.51 });
const r1 = await seedRun(db, A, { url: 'https://alfa.example/', outcomes: [o18, o21, o30old], testDate: JAN });
await seedRun(db, A, { url: 'https://alfa.example/', outcomes: [o9, o30, o100], testDate: FEB });
// Site D (same category): one public result.
await seedRun(db, D, { url: 'https://delta.example/', outcomes: [outcome(30, 3, { a11y: 3, pagespeed: 2 })], testDate: new Date('2025-02-11T12:00:00Z') });
// Private tests of A: done, queued, done again for the same address (newer than every public result).
const p21 = outcome(21, 2, { webstandard: 2 }, { private: true });
const p30 = outcome(30, 1.5, { a11y: 1.5, pagespeed: 1.5 });
const p3 = await seedRun(db, A, {
  url: 'https://alfa.example/kontakt', private: true, outcomes: [p30, p21],
  createdAt: new Date('2025-02-20T09:00:00Z'), testDate: new Date('2025-02-20T09:20:00Z'), finishedAt: new Date('2025-02-20T09:21:00Z'),
});
const p4 = await seedRun(db, A, { url: 'https://alfa.example/om', private: true, createdAt: new Date('2025-02-21T10:00:00Z'), status: 'queued' });
const p5 = await seedRun(db, A, {
  url: 'https://alfa.example/kontakt', private: true, outcomes: [outcome(30, 1.25, { a11y: 1.25 })],
  createdAt: new Date('2025-02-22T11:15:30Z'), testDate: new Date('2025-02-22T11:40:00Z'), finishedAt: new Date('2025-02-22T11:41:00Z'),
});
const pRunning = await seedRun(db, A, { url: 'https://alfa.example/pagar', private: true, createdAt: new Date('2025-02-19T07:00:00Z'), status: 'running' });
// Site B has only a private test.
const pB = await seedRun(db, B, { url: 'https://beta.example/x', private: true, outcomes: [outcome(30, 5, { a11y: 5 })], createdAt: new Date('2025-02-23T08:00:00Z'), testDate: new Date('2025-02-23T08:10:00Z') });

interface Call {
  key?: string;
  headers?: Record<string, string>;
}

async function get(url: string, call: Call = {}) {
  const res = await app.inject({ method: 'GET', url, headers: { ...(call.key ? { 'api-key': call.key } : {}), ...(call.headers ?? {}) } });
  return { status: res.statusCode, body: res.json() as any, headers: res.headers };
}

function resultEntry(o: TestOutcome, date: Date, lang: 'sv' | 'en' = 'sv') {
  const r = o.reports[lang];
  return {
    type_of_test: o.typeOfTest,
    rating: o.rating,
    test_date: date.toISOString(),
    check_report: r.overall,
    check_report_a11y: r.a11y,
    check_report_perf: r.perf,
    check_report_sec: r.sec,
    check_report_stand: r.stand,
    json_check_data: JSON.stringify(o.data),
  };
}

/** json_check_data is a string holding JSON: compare its parsed value, then the rest exactly. */
function sameResults(t: Test, actual: any[], expected: ReturnType<typeof resultEntry>[], msg: string) {
  t.equal(actual.length, expected.length, `${msg}: count`);
  actual.forEach((a, i) => {
    t.type(a.json_check_data, 'string', `${msg}: json_check_data of ${a.type_of_test} is a string`);
    t.same(JSON.parse(a.json_check_data), JSON.parse(expected[i].json_check_data), `${msg}: json_check_data of ${a.type_of_test}`);
    t.strictSame({ ...a, json_check_data: '' }, { ...expected[i], json_check_data: '' }, `${msg}: entry ${i}`);
  });
}

const isoNow = (s: string) => typeof s === 'string' && Math.abs(Date.parse(s) - Date.now()) < 60_000 && new Date(s).toISOString() === s;

t.test('GET /stats/ lists the sites a key reaches, by site_id', async (t) => {
  const entry = (id: number, title: string, url: string, latest: string | null) => ({ site_id: id, title, url, uri: `${BASE}/item/${id}`, latest_test_date: latest });
  const a = entry(A, 'Alfa kommun', 'https://alfa.example/', FEB.toISOString());
  const b = entry(B, 'Beta region', 'https://beta.example/', null);
  const c = entry(C, 'Gamma AB', 'https://gamma.example/', null);
  const d = entry(D, 'Delta kommun', 'https://delta.example/', '2025-02-11T12:00:00.000Z');
  for (const prefix of ['', '/0.1']) {
    const own = await get(`${prefix}/stats/`, { key: keyA });
    t.strictSame([own.status, own.body], [200, [a]], `${prefix} standard key: its site`);
    t.strictSame((await get(`${prefix}/stats/`, { key: keyAgency })).body, [a, b], `${prefix} agency key: its portfolio`);
    t.strictSame((await get(`${prefix}/stats/`, { key: keyAdmin })).body, [a, b, c, d], `${prefix} admin key: every site`);
    t.strictSame((await get(`${prefix}/stats/`, { key: keyC })).body, [c], `${prefix} another standard key`);
    t.strictSame(await get(`${prefix}/stats/`).then((r) => [r.status, r.body.error]), [401, 'KEY_MISSING']);
    t.strictSame(await get(`${prefix}/stats/`, { key: 'wpk_000000000000_' + 'x'.repeat(43) }).then((r) => [r.status, r.body.error]), [401, 'KEY_INVALID']);
    t.strictSame(await get(`${prefix}/stats/`, { key: revoked.key }).then((r) => [r.status, r.body.error]), [401, 'KEY_INVALID']);
  }
});

t.test('GET /stats/{siteId}: the latest public result per test type', async (t) => {
  for (const prefix of ['', '/0.1']) {
    const res = await get(`${prefix}/stats/${A}`, { key: keyA });
    t.equal(res.status, 200);
    t.strictSame(Object.keys(res.body), ['api_version', 'uri', 'result_count', 'timestamp', 'data'], 'envelope fields, in order');
    t.equal(res.body.api_version, '0.1');
    t.equal(res.body.uri, `${BASE}/item/${A}`);
    t.equal(res.body.result_count, 5);
    t.equal(res.body.timestamp, FEB.toISOString(), 'timestamp: the latest test_date');
    // 9 and 100 from the newer run, 18 and 21 from the older, 30: the newer of the two; never the private ones.
    sameResults(t, res.body.data, [resultEntry(o9, FEB), resultEntry(o18, JAN), resultEntry(o21, JAN), resultEntry(o30, FEB), resultEntry(o100, FEB)], `${prefix}/stats/A`);
    t.equal(res.body.data[0].rating, -1, 'not rated: -1');
    t.equal(res.body.data[0].json_check_data, '{}', 'empty json_check_data is the text {}');
    t.equal(res.body.data[3].check_report, 'Testtyp 30\nBetyg: 4.25', 'Swedish by default');
    t.equal(res.body.data[3].check_report_a11y, 'Tillgänglighet: Betyg: 4.50');
  }
  const ours = await get(`/stats/${A}`, { key: keyAgency });
  t.equal(ours.status, 200, 'agency key reaches its portfolio');
  const admin = await get(`/stats/${A}`, { key: keyAdmin });
  t.equal(admin.status, 200, 'admin key reaches every site');
  t.strictSame(admin.body.data, ours.body.data);

  const none = await get(`/stats/${B}`, { key: keyAgency });
  t.equal(none.status, 200);
  t.strictSame({ ...none.body, timestamp: '' }, { api_version: '0.1', uri: `${BASE}/item/${B}`, result_count: 0, timestamp: '', data: [] }, 'only a private test: no data');
  t.ok(isoNow(none.body.timestamp), 'no result: timestamp is now');
});

t.test('GET /stats/{siteId}: report language', async (t) => {
  const en = [resultEntry(o9, FEB, 'en'), resultEntry(o18, JAN, 'en'), resultEntry(o21, JAN, 'en'), resultEntry(o30, FEB, 'en'), resultEntry(o100, FEB, 'en')];
  const sv = [resultEntry(o9, FEB), resultEntry(o18, JAN), resultEntry(o21, JAN), resultEntry(o30, FEB), resultEntry(o100, FEB)];
  sameResults(t, (await get(`/stats/${A}?lang=en`, { key: keyA })).body.data, en, 'lang=en');
  sameResults(t, (await get(`/0.1/stats/${A}?lang=fi`, { key: keyA })).body.data, en, 'lang=fi falls back to en');
  sameResults(t, (await get(`/stats/${A}`, { key: keyA, headers: { 'accept-language': 'en-GB,en;q=0.9' } })).body.data, en, 'Accept-Language en-GB');
  sameResults(t, (await get(`/stats/${A}`, { key: keyA, headers: { 'accept-language': 'nb-NO' } })).body.data, en, 'Accept-Language nb (no) → en');
  sameResults(t, (await get(`/stats/${A}?lang=sv`, { key: keyA, headers: { 'accept-language': 'en' } })).body.data, sv, 'the query wins over Accept-Language');
  sameResults(t, (await get(`/stats/${A}`, { key: keyA, headers: { 'accept-language': 'de, fr' } })).body.data, sv, 'unsupported Accept-Language → sv');
  t.equal((await get(`/stats/${A}?lang=en`, { key: keyA })).body.data[3].check_report_perf, 'Performance: Rating: 4.00');
  const bad = await get(`/stats/${A}?lang=de`, { key: keyA });
  t.strictSame([bad.status, bad.body], [400, { statusCode: 400, error: 'UNSUPPORTED_LANG', message: 'Unsupported lang "de": use one of sv, en, da, no, fi, is' }]);
});

t.test('GET /stats_per_month/{siteId}: monthly scores, rounded to 2 places, by month then type', async (t) => {
  const ids = await db.selectFrom('monthly_scores').select(['id', 'timeperiod', 'type_of_score']).where('site_id', '=', A).execute();
  const id = (tp: string, type: string) => Number(ids.find((r) => r.timeperiod === tp && r.type_of_score === type)!.id);
  const row = (tp: string, type: string, score: number) => ({ data_id: id(tp, type), score, timeperiod: tp, type_of_score: type });
  const expected = [
    row('2025-01', 'kat-a11y', 3),
    row('2025-01', 'kat-infosec', 2.5),
    row('2025-01', 'kat-perf', 4),
    row('2025-01', 'kat-total', 3.33), // (2.5 + 4 + 3.5) / 3
    row('2025-01', 'kat-webstandard', 4),
    row('2025-02', 'kat-a11y', 4.5),
    row('2025-02', 'kat-perf', 3.76), // (4 + 3.51) / 2 = 3.755: half away from zero
    row('2025-02', 'kat-total', 3.88), // (4.25 + 3.51) / 2; test 9 is not rated and left out
  ];
  const { max } = await db.selectFrom('monthly_scores').select((eb) => eb.fn.max('updated_at').as('max')).where('site_id', '=', A).executeTakeFirstOrThrow();
  for (const prefix of ['', '/0.1']) {
    const res = await get(`${prefix}/stats_per_month/${A}`, { key: keyA });
    t.equal(res.status, 200);
    t.strictSame(res.body, { api_version: '0.1', uri: `${BASE}/item/${A}`, result_count: 8, timestamp: new Date(max).toISOString(), data: expected }, `${prefix}/stats_per_month/A`);
  }
  const none = await get(`/stats_per_month/${C}`, { key: keyC });
  t.strictSame({ ...none.body, timestamp: '' }, { api_version: '0.1', uri: `${BASE}/item/${C}`, result_count: 0, timestamp: '', data: [] }, 'no scores yet');
  t.ok(isoNow(none.body.timestamp));
  const b = await get(`/stats_per_month/${B}`, { key: keyAgency });
  t.equal(b.body.result_count, 0, 'private results never reach the monthly scores');
});

t.test('GET /private_stats/{siteId}: the private tests, newest first', async (t) => {
  const entry = (runId: number, added: string, url: string) => ({ date_added: added, uri: `${BASE}/private_stats/${A}/${runId}`, url });
  const e5 = entry(p5.runId, '2025-02-22 11:15:30', 'https://alfa.example/kontakt');
  const e4 = entry(p4.runId, '2025-02-21 10:00:00', 'https://alfa.example/om');
  const e3 = entry(p3.runId, '2025-02-20 09:00:00', 'https://alfa.example/kontakt');
  const eRun = entry(pRunning.runId, '2025-02-19 07:00:00', 'https://alfa.example/pagar');
  for (const prefix of ['', '/0.1']) {
    const res = await get(`${prefix}/private_stats/${A}`, { key: keyA, headers: { 'site-id': String(A) } });
    t.strictSame(res.body, {
      api_version: '0.1',
      uri: `${BASE}/item/${A}`,
      result_count: 3, // distinct URLs: kontakt (twice), om, pagar
      timestamp: '2025-02-22T11:41:00.000Z', // the newest test finished then
      data: [e5, e4, e3, eRun],
    }, `${prefix}/private_stats/A`);
  }
  t.strictSame((await get(`/private_stats/${A}`, { key: keyAgency })).body.data, [e5, e4, e3, eRun], 'site-id header may be omitted');

  const om = await get(`/private_stats/${A}?urls=${encodeURIComponent('https://alfa.example/om')}`, { key: keyA });
  t.strictSame({ count: om.body.result_count, data: om.body.data, ts: om.body.timestamp }, { count: 1, data: [e4], ts: '2025-02-21T10:00:00.000Z' }, 'urls filters to one address');
  const two = await get(`/private_stats/${A}?urls=${encodeURIComponent('https://alfa.example/om, https://alfa.example/kontakt')}`, { key: keyA });
  t.strictSame({ count: two.body.result_count, data: two.body.data }, { count: 2, data: [e5, e4, e3] }, 'urls filters to two addresses');
  const nothing = await get(`/private_stats/${A}?urls=${encodeURIComponent('https://alfa.example/nej')}`, { key: keyA });
  t.strictSame({ count: nothing.body.result_count, data: nothing.body.data }, { count: 0, data: [] });
  const eleven = Array.from({ length: 11 }, (_, i) => `https://alfa.example/${i}`).join(',');
  const many = await get(`/private_stats/${A}?urls=${encodeURIComponent(eleven)}`, { key: keyA });
  t.strictSame([many.status, many.body], [400, { statusCode: 400, error: 'URLS_INVALID', message: 'urls takes at most 10 addresses, got 11' }]);
  const junk = await get(`/private_stats/${A}?urls=kontakt`, { key: keyA });
  t.strictSame([junk.status, junk.body.error, junk.body.message], [400, 'URLS_INVALID', 'urls: "kontakt" is not an absolute http(s) address']);

  const body = await app.inject({ method: 'GET', url: `/private_stats/${A}`, headers: { 'api-key': keyA, 'content-type': 'application/json' }, payload: JSON.stringify({ urls: 'https://alfa.example/om' }) });
  t.equal(body.statusCode, 200);
  t.equal(body.json().data.length, 4, 'a GET body is ignored');

  const mismatch = await get(`/private_stats/${A}`, { key: keyAgency, headers: { 'site-id': String(B) } });
  t.strictSame([mismatch.status, mismatch.body], [400, { statusCode: 400, error: 'SITE_ID_INVALID', message: `The site-id header (${B}) does not match the site in the path (${A})` }]);
  const junkHeader = await get(`/private_stats/${A}`, { key: keyA, headers: { 'site-id': 'alfa' } });
  t.strictSame([junkHeader.status, junkHeader.body.error], [400, 'SITE_ID_INVALID']);

  const b = await get(`/private_stats/${B}`, { key: keyAgency });
  t.strictSame(b.body.data, [{ date_added: '2025-02-23 08:00:00', uri: `${BASE}/private_stats/${B}/${pB.runId}`, url: 'https://beta.example/x' }], "B's list holds only B's test");
  const c = await get(`/private_stats/${C}`, { key: keyC });
  t.strictSame({ ...c.body, timestamp: '' }, { api_version: '0.1', uri: `${BASE}/item/${C}`, result_count: 0, timestamp: '', data: [] });
});

t.test('GET /private_stats/{siteId}/{testId}: one private test', async (t) => {
  for (const prefix of ['', '/0.1']) {
    const res = await get(`${prefix}/private_stats/${A}/${p3.runId}`, { key: keyA });
    t.equal(res.status, 200);
    t.strictSame(Object.keys(res.body), ['api_version', 'uri', 'result_count', 'timestamp', 'status', 'tested_url', 'data']);
    t.strictSame({ ...res.body, data: [] }, {
      api_version: '0.1', uri: `${BASE}/item/${A}`, result_count: 2, timestamp: '2025-02-20T09:20:00.000Z', status: 'done', tested_url: 'https://alfa.example/kontakt', data: [],
    });
    sameResults(t, res.body.data, [resultEntry(p21, new Date('2025-02-20T09:20:00Z')), resultEntry(p30, new Date('2025-02-20T09:20:00Z'))], `${prefix} private test`);
  }
  const en = await get(`/private_stats/${A}/${p3.runId}?lang=en`, { key: keyA, headers: { 'site-id': String(A) } });
  sameResults(t, en.body.data, [resultEntry(p21, new Date('2025-02-20T09:20:00Z'), 'en'), resultEntry(p30, new Date('2025-02-20T09:20:00Z'), 'en')], 'lang=en');

  const queued = await get(`/private_stats/${A}/${p4.runId}`, { key: keyA });
  t.strictSame([queued.status, queued.body], [200, {
    api_version: '0.1', uri: `${BASE}/item/${A}`, result_count: 0, timestamp: '2025-02-21T10:00:00.000Z', status: 'queued', tested_url: 'https://alfa.example/om', data: [],
  }], 'queued: 200, status queued, empty data, timestamp = requested');
  const running = await get(`/private_stats/${A}/${pRunning.runId}`, { key: keyA });
  t.strictSame([running.status, running.body.status, running.body.data], [200, 'running', []]);

  const notFound = (res: { status: number; body: any }, msg: string) => t.strictSame([res.status, res.body.error], [404, 'NOT_FOUND'], msg);
  notFound(await get(`/private_stats/${A}/${r1.runId}`, { key: keyA }), 'a public run is no private test');
  notFound(await get(`/private_stats/${B}/${p3.runId}`, { key: keyAgency }), "A's test under B: 404, even for a key reaching both");
  notFound(await get(`/private_stats/${A}/${pB.runId}`, { key: keyAgency }), "B's test under A: 404");
  notFound(await get(`/private_stats/${A}/987654321`, { key: keyA }), 'unknown test id');
  notFound(await get(`/private_stats/${MISSING}/${p3.runId}`, { key: keyAdmin }), 'admin, missing site');
  const other = await get(`/private_stats/${C}/${p3.runId}`, { key: keyC });
  t.strictSame([other.status, other.body.message], [404, `No private test ${p3.runId} for the website ${C}`], "another site's test is never revealed");
  const forbidden = await get(`/private_stats/${A}/${p3.runId}`, { key: keyC });
  t.strictSame([forbidden.status, forbidden.body.error], [403, 'FORBIDDEN_SITE']);
  const badTest = await get(`/private_stats/${A}/abc`, { key: keyA });
  t.strictSame([badTest.status, badTest.body.error], [400, 'VALIDATION']);
  const mismatch = await get(`/private_stats/${A}/${p3.runId}`, { key: keyA, headers: { 'site-id': String(C) } });
  t.strictSame([mismatch.status, mismatch.body.error], [400, 'SITE_ID_INVALID']);
});

t.test('GET /categories/: category averages from category_scores', async (t) => {
  const { max } = await db.selectFrom('category_scores').select((eb) => eb.fn.max('updated_at').as('max')).executeTakeFirstOrThrow();
  const expected = {
    api_version: '0.1',
    timestamp: new Date(max).toISOString(),
    categories: [
      // A: a11y 4.5, infosec 2.5, pagespeed (4 + 3.51) / 2, webstandard 4, overall (2.5 + 4 + 4.25 + 3.51) / 4 = 3.565
      // D: a11y 3, pagespeed 2, overall 3
      { cat_id: KOMMUNER, title: 'Kommuner', rating_a11y: 3.75, rating_infosec: 2.5, rating_pagespeed: 2.88, rating_webstandard: 4, rating_overall: 3.2825 },
      { cat_id: REGIONER, title: 'Regioner', rating_a11y: null, rating_infosec: null, rating_pagespeed: null, rating_webstandard: null, rating_overall: null },
      { cat_id: TOM, title: 'Tom kategori', rating_a11y: null, rating_infosec: null, rating_pagespeed: null, rating_webstandard: null, rating_overall: null },
    ],
  };
  for (const prefix of ['', '/0.1']) {
    for (const key of [keyA, keyC, keyAgency, keyAdmin]) {
      const res = await get(`${prefix}/categories/`, { key });
      t.strictSame([res.status, res.body], [200, expected], `${prefix}/categories/ with any valid key`);
    }
    t.strictSame(await get(`${prefix}/categories/`).then((r) => [r.status, r.body.error]), [401, 'KEY_MISSING']);
    t.strictSame(await get(`${prefix}/categories/`, { key: revoked.key }).then((r) => [r.status, r.body.error]), [401, 'KEY_INVALID']);
  }
});

t.test('GET /quota/: rolling 30-day window', async (t) => {
  await seedCredits(db, A, 200, 31); // no longer counts
  await seedCredits(db, A, 15, 29);
  await seedCredits(db, A, 30, 0);
  await seedCredits(db, B, 120, 1);
  const quota = (siteId: number, monthly: number, used: number, available: number) => ({
    api_version: '0.1', site_id: siteId, monthly_quota: monthly, effective_limit: monthly, used, available, period_days: 30,
  });
  for (const prefix of ['', '/0.1']) {
    const a = await get(`${prefix}/quota/`, { key: keyA, headers: { 'site-id': String(A) } });
    t.equal(a.status, 200);
    t.ok(isoNow(a.body.timestamp), 'timestamp: server time');
    t.strictSame({ ...a.body, timestamp: undefined }, { ...quota(A, 500, 45, 455), timestamp: undefined }, 'level quota; the 31-day-old booking is out');
    const b = await get(`${prefix}/quota/`, { key: keyAgency, headers: { 'site-id': String(B) } });
    t.strictSame({ ...b.body, timestamp: undefined }, { ...quota(B, 100, 120, 0), timestamp: undefined }, "the site's own quota wins; available never below 0");
    const c = await get(`${prefix}/quota/`, { key: keyC, headers: { 'site-id': String(C) } });
    t.strictSame({ ...c.body, timestamp: undefined }, { ...quota(C, 0, 0, 0), timestamp: undefined }, 'no level, no quota: 0');
    for (const v of Object.values(a.body)) if (typeof v === 'number') t.ok(Number.isInteger(v), 'integers');
  }
  const err = async (call: Call, status: number, code: string, msg: string) => {
    const res = await get('/quota/', call);
    t.strictSame([res.status, res.body.statusCode, res.body.error], [status, status, code], msg);
    return res;
  };
  await err({ headers: { 'site-id': String(A) } }, 401, 'KEY_MISSING', 'no key');
  await err({ key: 'nope', headers: { 'site-id': String(A) } }, 401, 'KEY_INVALID', 'invalid key');
  await err({}, 401, 'KEY_MISSING', 'no key and no site-id: the key first');
  await err({ key: keyA }, 400, 'SITE_ID_MISSING', 'site-id missing');
  await err({ key: keyA, headers: { 'site-id': 'x1' } }, 400, 'SITE_ID_INVALID', 'site-id not an integer');
  await err({ key: keyA, headers: { 'site-id': '0' } }, 400, 'SITE_ID_INVALID', 'site-id 0');
  await err({ key: keyA, headers: { 'site-id': String(C) } }, 403, 'FORBIDDEN_SITE', 'an existing site the key does not reach');
  await err({ key: keyA, headers: { 'site-id': String(MISSING) } }, 403, 'FORBIDDEN_SITE', 'a missing site the key does not reach: 403 too');
  const missing = await err({ key: keyAdmin, headers: { 'site-id': String(MISSING) } }, 404, 'SITE_NOT_FOUND', 'admin key, missing site');
  t.equal(missing.body.message, `The website ${MISSING} does not exist`);
  const admin = await get('/quota/', { key: keyAdmin, headers: { 'site-id': String(A) } });
  t.strictSame([admin.status, admin.body.used], [200, 45], 'admin key reaches every site');
});

t.test('errors common to the routes that name a site', async (t) => {
  const routes = [
    { path: (id: string) => `/stats/${id}`, missing: 'SITE_NOT_FOUND' },
    { path: (id: string) => `/stats_per_month/${id}`, missing: 'SITE_NOT_FOUND' },
    { path: (id: string) => `/private_stats/${id}`, missing: 'SITE_NOT_FOUND' },
    { path: (id: string) => `/private_stats/${id}/${p3.runId}`, missing: 'NOT_FOUND' },
  ];
  for (const prefix of ['', '/0.1']) {
    for (const route of routes) {
      const url = (id: string | number) => prefix + route.path(String(id));
      const check = async (u: string, call: Call, status: number, code: string, msg: string) => {
        const res = await get(u, call);
        t.strictSame([res.status, res.body.statusCode, res.body.error, typeof res.body.message], [status, status, code, 'string'], `${u}: ${msg}`);
      };
      await check(url(A), {}, 401, 'KEY_MISSING', 'no key');
      await check(url(A), { key: 'wpk_bad' }, 401, 'KEY_INVALID', 'malformed key');
      await check(url(A), { key: revoked.key }, 401, 'KEY_INVALID', 'revoked key');
      await check(url(A), { key: keyC }, 403, 'FORBIDDEN_SITE', 'key of another site');
      await check(url(MISSING), { key: keyA }, 403, 'FORBIDDEN_SITE', 'missing site, key without it');
      await check(url(MISSING), { key: keyAgency }, 403, 'FORBIDDEN_SITE', 'missing site, agency key');
      await check(url(MISSING), { key: keyAdmin }, 404, route.missing, 'missing site, admin key');
      for (const bad of ['abc', '0', '-1', '1.5', '2147483648']) await check(url(bad), { key: keyAdmin }, 400, 'VALIDATION', `path id ${bad}`);
      const ok = await get(url(A), { key: keyAdmin });
      t.equal(ok.status, 200, `${url(A)}: admin key`);
    }
  }
});

t.test('the /0.1 copies answer exactly as the unversioned routes', async (t) => {
  const paths = [`/stats/`, `/stats/${A}?lang=en`, `/stats_per_month/${A}`, `/private_stats/${A}`, `/private_stats/${A}/${p3.runId}`, `/categories/`];
  for (const p of paths) {
    const [plain, versioned] = [await get(p, { key: keyAgency }), await get(`/0.1${p}`, { key: keyAgency })];
    t.equal(plain.status, 200, p);
    t.strictSame(versioned.body, plain.body, `/0.1${p}`);
  }
});

t.test('OpenAPI documents each read route once, with its security', async (t) => {
  const doc = (await get('/openapi.json')).body;
  const paths = ['/stats/', '/stats/{siteId}', '/stats_per_month/{siteId}', '/private_stats/{siteId}', '/private_stats/{siteId}/{testId}', '/categories/', '/quota/'];
  for (const p of paths) {
    const op = doc.paths[p]?.get;
    t.ok(op, `${p} documented`);
    t.strictSame(op.tags, ['premium']);
    t.strictSame(op.security, [{ ApiKeyAuth: [] }, { AdminApiKey: [] }]);
    t.ok(op.responses['200'] && op.responses['401'], `${p}: 200 and 401 described`);
    t.notOk(doc.paths[`/0.1${p}`], `/0.1${p} not repeated`);
  }
  t.match(doc.paths['/private_stats/{siteId}'].get.description, /urls.*query parameter/);
  t.ok(doc.paths['/quota/'].get.parameters.some((p: any) => p.in === 'header' && p.name === 'site-id'));
});
