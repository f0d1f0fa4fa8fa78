import t from 'tap';
import YAML from 'yaml';
import { buildTestApi } from '../helpers/api.js';
import { importPublicSector, readPublicSectorCsv } from '../../core/store/sites.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { queueRun, saveRunResults } from '../../core/store/runs.js';
import type { TestOutcome } from '../../core/pipeline.js';
import { STATIC_TEST_TYPES } from '../../core/catalogue.js';

const api = await buildTestApi(t);
const { app, db } = api;
/** What /v1/tests must list: every registered plugin's type plus the static entries, by id. */
const expectedTypes = [
  ...api.registry.all().map((p) => ({ id: p.meta.id, active: p.meta.active })),
  ...STATIC_TEST_TYPES.map((s) => ({ id: s.id, active: s.active })),
].sort((a, b) => a.id - b.id);
const activeIds = expectedTypes.filter((x) => x.active).map((x) => x.id);
await importPublicSector(db);
const csv = await readPublicSectorCsv();

function outcome(typeOfTest: number, rating: number, ratings: TestOutcome['ratings']): TestOutcome {
  const set = { overall: `r${typeOfTest}`, a11y: '', perf: '', sec: '', stand: '' };
  return { typeOfTest, rating, ratings, reports: { sv: set, en: set }, findings: [], data: {}, error: null, durationMs: 1 };
}

t.test('GET /public-sector/ lists the 310 organisations with their open-data licence', async (t) => {
  const res = await app.inject('/public-sector/');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.api_version, '0.1');
  t.equal(body.result_count, 310);
  t.equal(body.data.length, 310);
  t.equal(body.licence.name, 'CC BY-SA 4.0');
  t.equal(body.licence.url, 'https://creativecommons.org/licenses/by-sa/4.0/');
  t.match(body.source, /webperf open data/);
  t.ok(!Number.isNaN(Date.parse(body.timestamp)));
  t.same(body.data[0], {
    category: 'Municipality',
    sameAs: 'http://www.wikidata.org/entity/Q499425',
    title: 'Upplands Väsby kommun',
    uri: 'http://webperf.test/item/1',
    url: 'https://www.upplandsvasby.se/',
  });
  t.equal(body.data.filter((r: any) => r.category === 'Region').length, 21);
  t.equal(body.data.filter((r: any) => r.category === 'Municipality').length, 289);
  const halland = body.data.find((r: any) => r.title === 'Region Halland');
  t.equal(halland.sameAs, null, 'Region Halland has no Wikidata id in the source');
  t.same(body.data.map((r: any) => r.url), csv.map((r) => r.url), 'in file order');
  t.equal(await importPublicSector(db), 0, 'a second import adds nothing');
});

t.test('GET /item/{id}', async (t) => {
  const siteId = 5;
  const other = 6;
  const own = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  const stranger = await createKey(db, { kind: 'standard', siteIds: [other] });
  const runId = await queueRun(db, { siteId, url: 'https://example.se/' });
  await saveRunResults(db, runId, [
    outcome(30, 4.123456, { a11y: 4.555, pagespeed: 3.3333 }),
    outcome(21, 2.5, { infosec: 2.0, webstandard: 3.0 }),
    outcome(100, -1, {}),
  ]);

  await t.test('without a key: the open record, no scores', async (t) => {
    const res = await app.inject(`/item/${siteId}`);
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.equal(body.api_version, '0.1');
    t.same(Object.keys(body.data).sort(), ['category', 'sameAs', 'title', 'uri', 'url']);
    t.equal(body.data.uri, `http://webperf.test/item/${siteId}`);
    t.equal(body.data.title, csv[4].title);
  });

  await t.test('with the site\'s own key: scores with the spec\'s decimal places', async (t) => {
    const res = await app.inject({ url: `/item/${siteId}`, headers: { 'api-key': own.key } });
    t.equal(res.statusCode, 200);
    // overall: mean of 4.123456 and 2.5 (the not-rated LIX result is skipped) = 3.311728
    t.same(res.json().data.scores, { a11y: 4.56, infosec: 2, overall: 3.31173, pagespeed: 3.33, webstandard: 3 });
  });

  await t.test('with another site\'s key: the open record without scores', async (t) => {
    const res = await app.inject({ url: `/item/${siteId}`, headers: { 'api-key': stranger.key } });
    t.equal(res.statusCode, 200);
    t.notOk('scores' in res.json().data);
  });

  await t.test('errors', async (t) => {
    const bad = await app.inject({ url: `/item/${siteId}`, headers: { 'api-key': 'wpk_000000000000_' + 'x'.repeat(43) } });
    t.equal(bad.statusCode, 401);
    t.same(bad.json(), { statusCode: 401, error: 'KEY_INVALID', message: 'The api-key is not valid' });
    const missing = await app.inject('/item/99999');
    t.equal(missing.statusCode, 404);
    t.equal(missing.json().error, 'SITE_NOT_FOUND');
    const notInt = await app.inject('/item/abc');
    t.equal(notInt.statusCode, 400);
    t.equal(notInt.json().error, 'VALIDATION');
  });

  await t.test('a customer site outside the public sector is visible only to its keys', async (t) => {
    const privateSite = await createSite(db, { title: 'Acme AB', url: 'https://acme.example/' });
    const acme = await createKey(db, { kind: 'standard', siteIds: [privateSite] });
    t.equal((await app.inject(`/item/${privateSite}`)).statusCode, 404);
    t.equal((await app.inject({ url: `/item/${privateSite}`, headers: { 'api-key': stranger.key } })).statusCode, 404);
    const res = await app.inject({ url: `/item/${privateSite}`, headers: { 'api-key': acme.key } });
    t.equal(res.statusCode, 200);
    t.same(res.json().data, {
      category: null, sameAs: null, title: 'Acme AB', uri: `http://webperf.test/item/${privateSite}`, url: 'https://acme.example/',
      scores: { a11y: null, infosec: null, overall: null, pagespeed: null, webstandard: null },
    });
  });
});

t.test('GET /v1/tests', async (t) => {
  const all = await app.inject('/v1/tests');
  t.equal(all.statusCode, 200);
  const body = all.json();
  t.equal(body.count, body.tests.length);
  t.same(body.tests.map((x: any) => x.id), expectedTypes.map((x) => x.id), 'the registered plugins and the static entries, in id order');
  t.same(
    body.tests.filter((x: any) => x.available).map((x: any) => x.id),
    api.registry.ids(),
    'available is derived: exactly the types a registered plugin runs',
  );
  t.match(body.meta.machine_translated, /machine-translated/);
  t.match(all.headers['cache-control'], /max-age=86400/);
  t.ok(all.headers.etag);
  const t30 = body.tests.find((x: any) => x.id === 30);
  t.same(Object.keys(t30.names).sort(), ['da', 'en', 'fi', 'is', 'no', 'sv']);
  t.equal(t30.names.en, 'Accessibility, Best Practice, Performance & SEO (Lighthouse)');
  t.equal(body.tests.find((x: any) => x.id === 6).active, false, 'retired ids stay, inactive');

  const sv = (await app.inject('/v1/tests?lang=sv')).json();
  t.equal(sv.tests.find((x: any) => x.id === 2).name, '404 (sida finns inte)');
  t.equal(sv.tests.find((x: any) => x.id === 2).lang, 'sv');
  t.notOk('names' in sv.tests[0]);
  const fi = (await app.inject('/v1/tests?lang=fi')).json();
  t.equal(fi.tests.find((x: any) => x.id === 9).name, 'Vakiotiedostot');

  const active = (await app.inject('/v1/tests?active=yes')).json();
  t.ok(active.tests.every((x: any) => x.active));
  t.same(active.tests.map((x: any) => x.id), activeIds);
  t.equal((await app.inject('/v1/tests?active=TRUE')).json().count, activeIds.length);
  t.equal((await app.inject('/v1/tests?active=1')).json().count, activeIds.length);
  t.equal((await app.inject('/v1/tests?active=no')).json().count, expectedTypes.length);

  const cached = await app.inject({ url: '/v1/tests', headers: { 'if-none-match': all.headers.etag as string } });
  t.equal(cached.statusCode, 304);
  t.equal(cached.body, '');
  t.match(cached.headers['cache-control'], /max-age=86400/);
  t.not((await app.inject('/v1/tests?lang=en')).headers.etag, all.headers.etag, 'another representation, another ETag');

  const bad = await app.inject('/v1/tests?lang=de');
  t.equal(bad.statusCode, 400);
  t.same(bad.json(), { statusCode: 400, error: 'UNSUPPORTED_LANG', message: 'Unsupported lang "de": use one of sv, en, da, no, fi, is' });
});

t.test('GET /v1/tests/{test_id}', async (t) => {
  const res = await app.inject('/v1/tests/21?lang=is');
  t.equal(res.statusCode, 200);
  t.same(res.json().test, {
    id: 21, active: true, available: true, categories: ['infosec', 'webstandard'], requires: [], lang: 'is', name: 'HTTP & netkerfi',
    description: 'Athugar framsendingu í HTTPS, HSTS, TLS-útgáfur og skilríki, HTTP/2, öryggishausa og blandað efni.',
  });
  t.ok(res.json().meta.machine_translated);
  const again = await app.inject({ url: '/v1/tests/21?lang=is', headers: { 'if-none-match': res.headers.etag as string } });
  t.equal(again.statusCode, 304);
  const unknown = await app.inject('/v1/tests/12345');
  t.equal(unknown.statusCode, 404);
  t.same(unknown.json(), { statusCode: 404, error: 'TEST_TYPE_NOT_FOUND', message: 'Unknown test id 12345' });
  t.equal((await app.inject('/v1/tests/21?lang=xx')).statusCode, 400);
  t.equal((await app.inject('/v1/tests/abc')).statusCode, 400);
  // The DNS test names the program it needs besides Node and Chromium.
  const dns = (await app.inject('/v1/tests/32?lang=en')).json().test;
  t.same([dns.name, dns.available, dns.categories, dns.requires], ['DNS (Zonemaster)', true, ['infosec', 'webstandard'], [{ component: 'zonemaster-cli', install: 'apt-get install zonemaster-cli (Debian 12 and later)' }]]);
  const retired = (await app.inject('/v1/tests/6?lang=en')).json().test;
  t.same([retired.active, retired.available, retired.name], [false, false, 'HTML Validation (W3C)'], 'a static entry answers too, not available');
});

t.test('a third-party plugin loaded by package name appears in /v1/tests and /v1/tests/{id}', async (t) => {
  const withExample = await buildTestApi(t, { plugins: ['webperf-plugin-example'] });
  const one = await withExample.app.inject('/v1/tests/150?lang=sv');
  t.equal(one.statusCode, 200, one.body);
  t.same(one.json().test, {
    id: 150, active: true, available: true, categories: ['webstandard'], requires: [], lang: 'sv', name: 'Sidtitel',
    description: 'Checks that the page has a title of a useful length (example plugin).',
  });
  const all = (await withExample.app.inject('/v1/tests')).json();
  t.same(all.tests.map((x: any) => x.id), [...expectedTypes.map((x) => x.id), 150].sort((a, b) => a - b));
  t.same(all.tests.find((x: any) => x.id === 150).names.fi, 'Sivun otsikko');
  t.equal((await app.inject('/v1/tests/150')).statusCode, 404, 'not listed where it is not configured');
});

t.test('info, openapi and docs', async (t) => {
  for (const path of ['/info', '/api/info']) {
    const res = await app.inject(path);
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.equal(body.name, 'webperf');
    t.equal(body.version, '1.0.0');
    t.equal(body.environment, 'test');
    for (const e of ['/public-sector/', '/item/:id', '/v1/tests', '/health', '/openapi.json']) {
      t.ok(body.endpoints.some((x: any) => x.path === e), `lists ${e}`);
    }
  }
  const json = await app.inject('/openapi.json');
  t.equal(json.statusCode, 200);
  const doc = json.json();
  t.equal(doc.openapi, '3.0.3');
  t.equal(doc.info.version, '1.0.0');
  t.ok(doc.paths['/public-sector/']);
  t.ok(doc.paths['/item/{id}']);
  t.ok(doc.paths['/v1/tests/{test_id}']);
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['AdminApiKey', 'ApiKeyAuth', 'QueryApiKey']);
  t.notOk(Object.keys(doc.paths).some((p) => p.startsWith('/0.1/')), 'the /0.1 copies are described, not repeated');
  for (const path of ['/openapi.yaml', '/openapi.yml']) {
    const res = await app.inject(path);
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^application\/x-yaml/);
    t.match(res.body, /^openapi: 3\.0\.3/m);
    t.strictSame(YAML.parse(res.body), doc, `${path} describes what /openapi.json does`);
  }
  for (const path of ['/swagger', '/docs', '/v1/docs', '/docs/en']) {
    const res = await app.inject(path);
    t.equal(res.statusCode, 200, path);
    t.match(res.headers['content-type'], /^text\/html/);
    t.match(res.body, /swagger-ui/i);
  }
  const none = await app.inject('/nope');
  t.equal(none.statusCode, 404);
  t.equal(none.json().error, 'NOT_FOUND');
});
