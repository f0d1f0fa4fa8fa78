/**
 * Premium orders through the real API over a fresh real PostgreSQL: POST /retest/, POST /test_once/
 * (the credit ledger, runs and graphile-worker jobs they write), the access checks, the quota
 * refusal that writes nothing, and the per-key rate limit of the premium routes.
 */
import t from 'tap';
import { sql } from '../../core/db/kysely.js';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../core/db/database.js';
import type { PluginRegistry } from '../../core/registry.js';
import type { TestPlugin } from '../../core/plugin-api.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { creditStatus } from '../../core/quota.js';
import { buildTestApi } from '../helpers/api.js';

const START = 'https://www.exempel.se/';
const PUBLIC = 'http://webperf.test';

/** A registered plugin that never runs here: gives the testnums table more than one id. */
function fakePlugin(id: number, active = true): TestPlugin {
  const text = { sv: `Test ${id}`, en: `Test ${id}`, da: `Test ${id}`, no: `Test ${id}`, fi: `Test ${id}`, is: `Test ${id}` };
  return {
    meta: { id, names: text, descriptions: text, active, categories: [], requiredArtifacts: [] },
    run: () => ({ rating: 5, ratings: {}, findings: [], summary: { sv: '', en: '' }, data: {} }),
  };
}

interface World {
  app: FastifyInstance;
  db: Db;
  registry: PluginRegistry;
  siteId: number;
  otherSiteId: number;
  key: string;
  adminKey: string;
}

async function arrange(tt: { teardown(fn: () => unknown): void }, options: { quota?: number | null; level?: number | null; url?: string; rateLimitPerMinute?: number } = {}): Promise<World> {
  const { app, db, registry } = await buildTestApi(tt, { rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000 });
  let premiumLevel: string | null = null;
  if (options.level !== undefined && options.level !== null) {
    premiumLevel = 'standard';
    await db.insertInto('premium_levels').values({ name: premiumLevel, monthly_quota: options.level }).execute();
  }
  const siteId = await createSite(db, {
    title: 'Exempelby kommun',
    url: options.url ?? START,
    premiumLevel,
    monthlyQuota: options.quota === undefined ? 1000 : options.quota,
  });
  const otherSiteId = await createSite(db, { title: 'Annan kommun', url: 'https://www.annan.se/', monthlyQuota: 1000 });
  const key = (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key;
  const adminKey = (await createKey(db, { kind: 'admin', siteIds: [] })).key;
  return { app, db, registry, siteId, otherSiteId, key, adminKey };
}

/** Rows the order path writes. */
async function counts(db: Db) {
  const n = async (table: string) => Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0].n);
  return {
    orders: await n('orders'),
    credit_ledger: await n('credit_ledger'),
    test_runs: await n('test_runs'),
    jobs: await n('graphile_worker.jobs'),
  };
}

/** The queued run_tests jobs with their payloads (the jobs view has no payload column). */
async function jobs(db: Db) {
  const rows = await sql<{ task_identifier: string; max_attempts: number; payload: { runId: number } }>`
    select v.task_identifier, v.max_attempts, p.payload
    from graphile_worker.jobs v join graphile_worker._private_jobs p on p.id = v.id
    order by v.id`.execute(db);
  return rows.rows;
}

/** A multipart/form-data body; a field with a filename is a file part. */
function form(fields: [name: string, value: string, filename?: string][]) {
  const boundary = '----webperf-test-boundary';
  const parts = fields.map(([name, value, filename]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: text/plain` : ''}\r\n\r\n${value}\r\n`,
  );
  return {
    payload: Buffer.from(parts.join('') + `--${boundary}--\r\n`),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

function retest(w: World, headers: Record<string, string | undefined>, prefix = '') {
  const h = Object.fromEntries(Object.entries({ 'api-key': w.key, 'site-id': String(w.siteId), ...headers }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return w.app.inject({ method: 'POST', url: `${prefix}/retest/`, headers: h });
}

function testOnce(w: World, urls: string, headers: Record<string, string | undefined> = {}, prefix = '') {
  const body = form([['urls', urls]]);
  const h = Object.fromEntries(Object.entries({ 'api-key': w.key, 'site-id': String(w.siteId), ...headers, ...body.headers }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return w.app.inject({ method: 'POST', url: `${prefix}/test_once/`, headers: h, payload: body.payload });
}

t.test('POST /retest/ with testnums [30]: one order, one ledger row, one public run, one job', async (t) => {
  const w = await arrange(t, { quota: 100 });
  const res = await retest(w, { testnums: '[30]' });
  t.equal(res.statusCode, 200, res.body);
  const order = await w.db.selectFrom('orders').selectAll().executeTakeFirstOrThrow();
  const run = await w.db.selectFrom('test_runs').selectAll().executeTakeFirstOrThrow();
  t.strictSame(res.json(), {
    api_version: '0.1',
    message: `Site ${w.siteId} will be retested in a couple of minutes (1 test type: 30; 1 credit). The results will appear at /stats/${w.siteId}.`,
    site_id: w.siteId,
    order_id: order.id,
    credits: 1,
    available: 99,
    run_id: run.id,
    url: START,
    test_types: [30],
  });
  t.match(res.headers['content-type'], /^application\/json/);
  t.hasStrict(order, { site_id: w.siteId, kind: 'retest', credits: 1, status: 'queued', payload: { url: START, test_types: [30], testnums: '[30]' } });
  const keyRow = await w.db.selectFrom('api_keys').select('id').where('kind', '=', 'standard').executeTakeFirstOrThrow();
  t.equal(order.key_id, keyRow.id, 'the ordering key is recorded');
  const ledger = await w.db.selectFrom('credit_ledger').select(['site_id', 'order_id', 'credits']).execute();
  t.strictSame(ledger, [{ site_id: w.siteId, order_id: order.id, credits: 1 }]);
  t.hasStrict(run, { site_id: w.siteId, order_id: order.id, url: START, private: false, test_types: [30], status: 'queued' });
  t.strictSame(await jobs(w.db), [{ task_identifier: 'run_tests', max_attempts: 2, payload: { runId: run.id } }]);
  t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: 100, used: 1, available: 99 });
});

t.test('testnums: accepted forms', async (t) => {
  const w = await arrange(t, { quota: 1000 });
  w.registry.register(fakePlugin(900));
  w.registry.register(fakePlugin(901, false));
  const active = w.registry.select(null).map((p) => p.meta.id);
  const cases: [string | undefined, number[]][] = [
    ['[30,900]', [30, 900]],
    ['30,900', [30, 900]],
    ['30', [30]],
    ['[30]', [30]],
    ['900,30', [30, 900]],
    [' [ 30 , 900 ] ', [30, 900]],
    ['30, 900', [30, 900]],
    ['30,30', [30]],
    ['[900,30,900]', [30, 900]],
    ['901', [901]],
    [undefined, active],
    ['', active],
    ['   ', active],
  ];
  t.ok(active.includes(30) && active.includes(900) && !active.includes(901), 'omitted testnums means every active test type');
  for (const [testnums, expected] of cases) {
    const before = await creditStatus(w.db, w.siteId);
    const res = await retest(w, { testnums });
    t.equal(res.statusCode, 200, `${JSON.stringify(testnums)}: ${res.body}`);
    const body = res.json();
    t.strictSame(body.test_types, expected, `${JSON.stringify(testnums)} → ${expected}`);
    t.equal(body.credits, expected.length, `${JSON.stringify(testnums)} costs ${expected.length}`);
    t.equal(body.available, before!.available - expected.length);
    const run = await w.db.selectFrom('test_runs').select('test_types').where('id', '=', body.run_id).executeTakeFirstOrThrow();
    t.strictSame(run.test_types, expected, 'the run tests exactly what was charged');
  }
});

t.test('testnums: invalid forms are 400 TESTNUMS_INVALID naming the bad value, and write nothing', async (t) => {
  const w = await arrange(t, { quota: 1000 });
  w.registry.register(fakePlugin(900));
  const runs = w.registry.ids().join(', ');
  const forms = 'send a list of test numbers such as [30,21], 30,21 or 30';
  const cases: [string, string][] = [
    ['abc', 'The testnums header "abc" is not valid ("abc" is not a test number): ' + forms],
    ['[30', 'The testnums header "[30" has an unmatched bracket: ' + forms],
    ['30]', 'The testnums header "30]" has an unmatched bracket: ' + forms],
    ['[]', 'The testnums header "[]" holds no test number: ' + forms],
    ['[ ]', 'The testnums header "[ ]" holds no test number: ' + forms],
    ['[30,]', 'The testnums header "[30,]" is not valid (an empty entry): ' + forms],
    [',30', 'The testnums header ",30" is not valid (an empty entry): ' + forms],
    ['30;900', 'The testnums header "30;900" is not valid ("30;900" is not a test number): ' + forms],
    ['30 900', 'The testnums header "30 900" is not valid ("30 900" is not a test number): ' + forms],
    ['-30', 'The testnums header "-30" is not valid ("-30" is not a test number): ' + forms],
    ['+30', 'The testnums header "+30" is not valid ("+30" is not a test number): ' + forms],
    ['030', 'The testnums header "030" is not valid ("030" is not a test number): ' + forms],
    ['30.0', 'The testnums header "30.0" is not valid ("30.0" is not a test number): ' + forms],
    ['1e1', 'The testnums header "1e1" is not valid ("1e1" is not a test number): ' + forms],
    ['0x1e', 'The testnums header "0x1e" is not valid ("0x1e" is not a test number): ' + forms],
    ['"30"', 'The testnums header ""30"" is not valid (""30"" is not a test number): ' + forms],
    ['[[30]]', 'The testnums header "[[30]]" is not valid ("[30]" is not a test number): ' + forms],
    ['{30}', 'The testnums header "{30}" is not valid ("{30}" is not a test number): ' + forms],
    ['9999999999', 'The testnums header "9999999999" is not valid ("9999999999" is not a test number): ' + forms],
    ['15', `Test type 15 is not run by this service; the test types it runs are ${runs}`],
    ['[30,15,99,15]', `Test types 15, 99 are not run by this service; the test types it runs are ${runs}`],
    ['0', `Test type 0 is not run by this service; the test types it runs are ${runs}`],
  ];
  const before = await counts(w.db);
  for (const [testnums, message] of cases) {
    const res = await retest(w, { testnums });
    t.equal(res.statusCode, 400, testnums);
    t.strictSame(res.json(), { statusCode: 400, error: 'TESTNUMS_INVALID', message }, testnums);
  }
  t.strictSame(await counts(w.db), before, 'nothing was written');
});

t.test('quota: the ceiling comes from the site, else its premium level, else 0; the window is 30 days', async (t) => {
  await t.test('site quota overrides the level', async (t) => {
    const w = await arrange(t, { quota: 5, level: 500 });
    t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: 5, used: 0, available: 5 });
  });
  await t.test('level quota when the site has none', async (t) => {
    const w = await arrange(t, { quota: null, level: 20 });
    t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: 20, used: 0, available: 20 });
  });
  await t.test('no premium level: 0, and a 1-credit re-test is refused', async (t) => {
    const w = await arrange(t, { quota: null, level: null });
    const before = await counts(w.db);
    const res = await retest(w, { testnums: '30' });
    t.equal(res.statusCode, 400);
    t.strictSame(res.json(), { statusCode: 400, error: 'QUOTA_EXCEEDED', message: 'The order needs 1 credit; 0 remain in the current 30-day period.' });
    t.strictSame(await counts(w.db), before, 'nothing was written');
  });
  await t.test('ledger rows older than 30 days no longer count', async (t) => {
    const w = await arrange(t, { quota: 100 });
    await sql`insert into credit_ledger (site_id, credits, created_at) values
      (${w.siteId}, 50, now() - interval '31 days'),
      (${w.siteId}, 30, now() - interval '29 days 23 hours'),
      (${w.siteId}, 4, now())`.execute(w.db);
    t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: 100, used: 34, available: 66 });
  });
  await t.test('used above the ceiling: available is 0, never negative', async (t) => {
    const w = await arrange(t, { quota: 10 });
    await sql`insert into credit_ledger (site_id, credits) values (${w.siteId}, 25)`.execute(w.db);
    t.strictSame(await creditStatus(w.db, w.siteId), { siteId: w.siteId, ceiling: 10, used: 25, available: 0 });
  });
});

t.test('quota refusal: the whole order is refused with what it needs and what remains; nothing is written', async (t) => {
  const w = await arrange(t, { quota: 100 });
  await sql`insert into credit_ledger (site_id, credits) values (${w.siteId}, 93)`.execute(w.db);
  const before = await counts(w.db);
  const once = await testOnce(w, 'https://www.exempel.se/a');
  t.equal(once.statusCode, 400);
  t.strictSame(once.json(), { statusCode: 400, error: 'QUOTA_EXCEEDED', message: 'The order needs 15 credits; 7 remain in the current 30-day period.' });
  const two = await testOnce(w, 'https://www.exempel.se/a,https://www.exempel.se/b');
  t.strictSame(two.json(), { statusCode: 400, error: 'QUOTA_EXCEEDED', message: 'The order needs 30 credits; 7 remain in the current 30-day period.' });
  w.registry.register(fakePlugin(900));
  await sql`insert into credit_ledger (site_id, credits) values (${w.siteId}, 6)`.execute(w.db);
  const re = await retest(w, { testnums: '[30,900]' });
  t.strictSame(re.json(), { statusCode: 400, error: 'QUOTA_EXCEEDED', message: 'The order needs 2 credits; 1 remains in the current 30-day period.' });
  const after = await counts(w.db);
  t.strictSame(after, { ...before, credit_ledger: before.credit_ledger + 1 }, 'only the arranged ledger row was added: no order, run or job');
  const fits = await retest(w, { testnums: '30' });
  t.equal(fits.statusCode, 200, 'an order that fits exactly is accepted');
  t.equal(fits.json().available, 0);
});

t.test('POST /test_once/: private runs, one per distinct URL, and the id → result address map', async (t) => {
  const w = await arrange(t, { quota: 1000 });
  const res = await testOnce(w, ' https://www.exempel.se/a , https://exempel.se/b#top,https://www.exempel.se/a#again ');
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  const order = await w.db.selectFrom('orders').selectAll().executeTakeFirstOrThrow();
  const runs = await w.db.selectFrom('test_runs').selectAll().orderBy('id').execute();
  const active = w.registry.select(null).map((p) => p.meta.id);
  t.equal(runs.length, 2, 'duplicates after normalisation are tested once');
  t.strictSame(body, {
    api_version: '0.1',
    message: `2 URLs will be tested for site ${w.siteId} (30 credits). The results are private; a one-off test typically finishes within 15 to 30 minutes.`,
    site_id: w.siteId,
    order_id: order.id,
    url_count: 2,
    credits: 30,
    available: 970,
    results: {
      [runs[0].id]: `${PUBLIC}/private_stats/${w.siteId}/${runs[0].id}`,
      [runs[1].id]: `${PUBLIC}/private_stats/${w.siteId}/${runs[1].id}`,
    },
    urls: { [runs[0].id]: 'https://www.exempel.se/a', [runs[1].id]: 'https://exempel.se/b' },
  });
  t.hasStrict(order, { kind: 'test_once', credits: 30, payload: { urls: ['https://www.exempel.se/a', 'https://exempel.se/b'], test_types: active } });
  for (const [i, url] of ['https://www.exempel.se/a', 'https://exempel.se/b'].entries()) {
    t.hasStrict(runs[i], { site_id: w.siteId, order_id: order.id, url, private: true, test_types: active, status: 'queued' });
  }
  t.strictSame(await w.db.selectFrom('credit_ledger').select(['order_id', 'credits']).execute(), [{ order_id: order.id, credits: 30 }]);
  t.strictSame((await jobs(w.db)).map((j) => [j.task_identifier, j.payload.runId]), runs.map((r) => ['run_tests', r.id]));

  await t.test('under /0.1 the result addresses keep the version segment', async (t) => {
    const v = await testOnce(w, 'https://www.exempel.se/c', {}, '/0.1');
    t.equal(v.statusCode, 200, v.body);
    const id = Object.keys(v.json().results)[0];
    t.strictSame(v.json().results, { [id]: `${PUBLIC}/0.1/private_stats/${w.siteId}/${id}` });
    t.equal(v.json().message, `1 URL will be tested for site ${w.siteId} (15 credits). The results are private; a one-off test typically finishes within 15 to 30 minutes.`);
  });
});

t.test('POST /test_once/: 1 and 10 URLs are accepted, 0 and 11 are refused', async (t) => {
  const w = await arrange(t, { quota: 1000 });
  const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://www.exempel.se/sida-${i + 1}`).join(',');
  const one = await testOnce(w, urls(1));
  t.equal(one.statusCode, 200);
  t.equal(one.json().url_count, 1);
  t.equal(one.json().credits, 15);
  const ten = await testOnce(w, urls(10));
  t.equal(ten.statusCode, 200);
  t.equal(ten.json().url_count, 10);
  t.equal(ten.json().credits, 150);
  t.equal(Object.keys(ten.json().results).length, 10);
  t.equal(ten.json().available, 1000 - 15 - 150);
  const before = await counts(w.db);
  const eleven = await testOnce(w, urls(11));
  t.strictSame(eleven.json(), { statusCode: 400, error: 'URLS_INVALID', message: 'The urls field holds 11 addresses; at most 10 are allowed per call' });
  const blank = await testOnce(w, '  ');
  t.strictSame(blank.json(), { statusCode: 400, error: 'URLS_INVALID', message: "The urls field is required: send 1 to 10 comma-separated addresses on the site's own domain" });
  const missing = await w.app.inject({ method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId), ...form([['other', 'x']]).headers }, payload: form([['other', 'x']]).payload });
  t.strictSame(missing.json(), { statusCode: 400, error: 'URLS_INVALID', message: 'The urls field is required, once, as a text field: 1 to 10 comma-separated addresses' });
  const noBody = await w.app.inject({ method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId) } });
  t.strictSame(noBody.json(), { statusCode: 400, error: 'URLS_INVALID', message: 'The urls field is required, once, as a text field: 1 to 10 comma-separated addresses' });
  const twice = form([['urls', 'https://www.exempel.se/a'], ['urls', 'https://www.exempel.se/b']]);
  const dup = await w.app.inject({ method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId), ...twice.headers }, payload: twice.payload });
  t.equal(dup.statusCode, 400, 'the field sent twice');
  t.equal(dup.json().error, 'URLS_INVALID');
  const file = form([['urls', 'https://www.exempel.se/a', 'urls.txt']]);
  const withFile = await w.app.inject({ method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId), ...file.headers }, payload: file.payload });
  t.strictSame(withFile.json(), { statusCode: 400, error: 'FILE_NOT_ACCEPTED', message: 'The form part "urls" is a file; send it as a plain text field' });
  const big = await w.app.inject({
    method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'urls=' + 'a'.repeat(70_000),
  });
  t.strictSame(big.json(), { statusCode: 413, error: 'REQUEST_TOO_LARGE', message: 'The request body is larger than 65536 bytes' });
  const plain = await w.app.inject({ method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId), 'content-type': 'text/plain' }, payload: START });
  t.strictSame(plain.json(), { statusCode: 415, error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as multipart/form-data, application/x-www-form-urlencoded or application/json' });
  t.strictSame(await counts(w.db), before, 'refused orders write nothing');

  await t.test('urlencoded and JSON bodies are accepted too', async (t) => {
    const enc = await w.app.inject({
      method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'urls=' + encodeURIComponent('https://www.exempel.se/x,https://www.exempel.se/y'),
    });
    t.equal(enc.statusCode, 200, enc.body);
    t.equal(enc.json().url_count, 2);
    const json = await w.app.inject({ method: 'POST', url: '/test_once/', headers: { 'api-key': w.key, 'site-id': String(w.siteId) }, payload: { urls: 'https://www.exempel.se/z' } });
    t.equal(json.statusCode, 200, json.body);
    t.strictSame(Object.values(json.json().urls), ['https://www.exempel.se/z']);
  });
});

t.test('POST /test_once/: the own-domain rule', async (t) => {
  const w = await arrange(t, { quota: 100_000 });
  const accepted: [string, string][] = [
    ['https://www.exempel.se/', 'https://www.exempel.se/'],
    ['http://www.exempel.se/kontakt', 'http://www.exempel.se/kontakt'],
    ['https://exempel.se/om', 'https://exempel.se/om'],
    ['https://e-tjanster.exempel.se/', 'https://e-tjanster.exempel.se/'],
    ['https://a.b.exempel.se/x?y=1', 'https://a.b.exempel.se/x?y=1'],
    ['HTTPS://WWW.EXEMPEL.SE/Stora', 'https://www.exempel.se/Stora'],
    ['https://www.exempel.se:443/port', 'https://www.exempel.se/port'],
    ['http://www.exempel.se:80/', 'http://www.exempel.se/'],
    ['https://www.exempel.se/sida#avsnitt', 'https://www.exempel.se/sida'],
    ['https://www.exempel.se./punkt', 'https://www.exempel.se./punkt'],
    ['https://www.exempel.se/a%2Cb', 'https://www.exempel.se/a%2Cb'],
  ];
  for (const [given, stored] of accepted) {
    const res = await testOnce(w, given);
    t.equal(res.statusCode, 200, `${given}: ${res.body}`);
    t.strictSame(Object.values(res.json().urls ?? {}), [stored], `${given} → ${stored}`);
  }
  const refused: [string, string][] = [
    ['https://www.annan.se/', '"https://www.annan.se/" is not on the site\'s own domain (exempel.se)'],
    ['https://exempel.com/', '"https://exempel.com/" is not on the site\'s own domain (exempel.se)'],
    ['https://www.exempel.se.evil.com/', '"https://www.exempel.se.evil.com/" is not on the site\'s own domain (exempel.se)'],
    ['https://evilexempel.se/', '"https://evilexempel.se/" is not on the site\'s own domain (exempel.se)'],
    ['https://93.184.216.34/', '"https://93.184.216.34/" is not on the site\'s own domain (exempel.se)'],
    ['http://127.0.0.1/', '"http://127.0.0.1/" is not on the site\'s own domain (exempel.se)'],
    ['http://[::1]/', '"http://[::1]/" is not on the site\'s own domain (exempel.se)'],
    ['ftp://www.exempel.se/', '"ftp://www.exempel.se/" is not an http or https address'],
    ['javascript:alert(1)', '"javascript:alert(1)" is not an http or https address'],
    ['file:///etc/passwd', '"file:///etc/passwd" is not an http or https address'],
    ['www.exempel.se/sida', '"www.exempel.se/sida" is not an absolute URL'],
    ['/sida', '"/sida" is not an absolute URL'],
    ['https://', '"https://" is not an absolute URL'],
    ['https://user:pw@www.exempel.se/', '"https://user:pw@www.exempel.se/" carries a user name or password; send the address without credentials'],
    ['https://user@www.exempel.se/', '"https://user@www.exempel.se/" carries a user name or password; send the address without credentials'],
    ['https://www.exempel.se:8443/', '"https://www.exempel.se:8443/" uses port 8443; only the default port may be used'],
    ['https://www.exempel.se/a,,https://www.exempel.se/b', 'The urls field is not valid: address 2 is empty'],
    ['https://www.exempel.se/a,', 'The urls field is not valid: address 2 is empty'],
    ['https://www.exempel.se/' + 'x'.repeat(2030), 'The urls field is not valid: address 1 is longer than 2048 characters'],
    ['https://www.exempel.se/ok,https://www.annan.se/', '"https://www.annan.se/" is not on the site\'s own domain (exempel.se)'],
  ];
  const before = await counts(w.db);
  for (const [given, message] of refused) {
    const res = await testOnce(w, given);
    t.equal(res.statusCode, 400, given);
    t.strictSame(res.json(), { statusCode: 400, error: 'URLS_INVALID', message }, given);
  }
  t.strictSame(await counts(w.db), before, 'refused orders write nothing');

  await t.test('a start page on an IP address and a port allows only that address, on its port or the default one', async (t) => {
    const ip = await arrange(t, { quota: 1000, url: 'http://127.0.0.1:4567/' });
    for (const ok of ['http://127.0.0.1:4567/sida', 'http://127.0.0.1/', 'https://127.0.0.1:4567/']) {
      const res = await testOnce(ip, ok);
      t.equal(res.statusCode, 200, `${ok}: ${res.body}`);
    }
    const cases: [string, string][] = [
      ['http://127.0.0.1:9999/', '"http://127.0.0.1:9999/" uses port 9999; only the default port or the start page\'s port 4567 may be used'],
      ['http://localhost:4567/', '"http://localhost:4567/" is not on the site\'s own domain (127.0.0.1)'],
      ['http://127.0.0.2:4567/', '"http://127.0.0.2:4567/" is not on the site\'s own domain (127.0.0.1)'],
    ];
    for (const [given, message] of cases) {
      t.strictSame((await testOnce(ip, given)).json(), { statusCode: 400, error: 'URLS_INVALID', message }, given);
    }
  });
});

t.test('access checks on every order route, with and without /0.1', async (t) => {
  const w = await arrange(t, { quota: 1000 });
  const lixForm = form([['content', 'Solen skiner.']]);
  const routes: { name: string; method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: Buffer }[] = [
    { name: 'retest', method: 'POST', url: '/retest/', headers: { testnums: '30' } },
    { name: 'test_once', method: 'POST', url: '/test_once/', headers: form([['urls', START]]).headers, payload: form([['urls', START]]).payload },
    { name: 'lix POST', method: 'POST', url: '/tools/lix/', headers: lixForm.headers, payload: lixForm.payload },
    { name: 'lix GET', method: 'GET', url: '/tools/lix/?content=Solen%20skiner.' },
  ];
  const before = await counts(w.db);
  for (const prefix of ['', '/0.1']) {
    for (const r of routes) {
      const call = (auth: Record<string, string>) =>
        w.app.inject({ method: r.method, url: prefix + r.url, headers: { ...r.headers, ...auth }, ...(r.payload ? { payload: r.payload } : {}) });
      const label = `${r.name} ${prefix || '(latest)'}`;
      t.strictSame((await call({ 'site-id': String(w.siteId) })).json(), { statusCode: 401, error: 'KEY_MISSING', message: 'An api-key is required' }, `${label}: no key`);
      t.strictSame((await call({ 'api-key': 'wpk_000000000000_' + 'x'.repeat(43), 'site-id': String(w.siteId) })).json(), { statusCode: 401, error: 'KEY_INVALID', message: 'The api-key is not valid' }, `${label}: unknown key`);
      t.strictSame((await call({ 'api-key': 'nonsense' })).json(), { statusCode: 401, error: 'KEY_INVALID', message: 'The api-key is not valid' }, `${label}: malformed key, no site-id`);
      t.strictSame((await call({ 'api-key': w.key })).json(), { statusCode: 400, error: 'SITE_ID_MISSING', message: 'The site-id header is required' }, `${label}: no site-id`);
      t.strictSame((await call({ 'api-key': w.key, 'site-id': 'abc' })).json(), { statusCode: 400, error: 'SITE_ID_INVALID', message: 'The site-id header must be a positive integer, got "abc"' }, `${label}: bad site-id`);
      t.strictSame((await call({ 'api-key': w.key, 'site-id': '0' })).json(), { statusCode: 400, error: 'SITE_ID_INVALID', message: 'The site-id header must be a positive integer, got "0"' }, `${label}: site-id 0`);
      t.strictSame((await call({ 'api-key': w.key, 'site-id': String(w.otherSiteId) })).json(), { statusCode: 403, error: 'FORBIDDEN_SITE', message: 'This api-key has no access to the site' }, `${label}: other site`);
      t.strictSame((await call({ 'api-key': w.key, 'site-id': '999999' })).json(), { statusCode: 403, error: 'FORBIDDEN_SITE', message: 'This api-key has no access to the site' }, `${label}: unknown site, standard key`);
      const ok = await call({ 'api-key': w.key, 'site-id': String(w.siteId) });
      t.equal(ok.statusCode, 200, `${label}: the key's own site: ${ok.body}`);
      t.equal(ok.json().api_version, '0.1');
    }
    for (const r of routes.slice(0, 2)) {
      const res = await w.app.inject({ method: r.method, url: prefix + r.url, headers: { ...r.headers, 'api-key': w.adminKey, 'site-id': '999999' }, ...(r.payload ? { payload: r.payload } : {}) });
      t.strictSame(res.json(), { statusCode: 404, error: 'SITE_NOT_FOUND', message: 'The website does not exist' }, `${r.name} ${prefix}: admin key, site that does not exist`);
    }
    // The missing site is answered before a bad testnums header, although a re-test reads its site with the order.
    const badTestnums = await w.app.inject({ method: 'POST', url: `${prefix}/retest/`, headers: { testnums: 'abc', 'api-key': w.adminKey, 'site-id': '999999' } });
    t.strictSame(badTestnums.json(), { statusCode: 404, error: 'SITE_NOT_FOUND', message: 'The website does not exist' }, `retest ${prefix}: site that does not exist and bad testnums`);
  }
  const after = await counts(w.db);
  t.equal(after.orders - before.orders, 4, 'only the four accepted orders were written (2 × re-test, 2 × test_once)');
});

t.test('the OpenAPI document describes the order routes once (the /0.1 copy is hidden)', async (t) => {
  const w = await arrange(t);
  const doc = (await w.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const path of ['/retest/', '/test_once/', '/tools/lix/']) t.ok(doc.paths[path], `${path} is described`);
  for (const path of ['/0.1/retest/', '/0.1/test_once/', '/0.1/tools/lix/']) t.notOk(doc.paths[path], `${path} is not repeated`);
  const retestDoc = doc.paths['/retest/'].post;
  t.strictSame(retestDoc.tags, ['premium']);
  t.strictSame(retestDoc.security, [{ ApiKeyAuth: [] }, { AdminApiKey: [] }]);
  t.match(retestDoc.description, /Omitted or blank/);
  t.ok(retestDoc.parameters.some((p: any) => p.in === 'header' && p.name === 'testnums'), 'testnums is a documented header');
  t.ok(doc.paths['/test_once/'].post.requestBody.content['multipart/form-data'], 'test_once documents multipart/form-data');
  t.ok(doc.paths['/tools/lix/'].get && doc.paths['/tools/lix/'].post, 'LIX is documented for GET and POST');
  t.ok(retestDoc.responses['200'].headers['x-ratelimit-remaining'], 'the rate-limit headers are documented');
});

t.test('rate limit: per api-key, shared by /0.1, standard headers, 429 in the error shape', async (t) => {
  const w = await arrange(t, { quota: 1000, rateLimitPerMinute: 3 });
  const other = await createSite(w.db, { title: 'B', url: 'https://b.exempel.se/', monthlyQuota: 10 });
  const keyB = (await createKey(w.db, { kind: 'standard', siteIds: [other] })).key;
  const lix = (key: string, siteId: number, prefix = '') =>
    w.app.inject({ method: 'GET', url: `${prefix}/tools/lix/?content=Solen%20skiner.`, headers: { 'api-key': key, 'site-id': String(siteId) } });
  const limitHeaders = (res: { headers: Record<string, unknown> }) => ({
    limit: res.headers['x-ratelimit-limit'],
    remaining: res.headers['x-ratelimit-remaining'],
    reset: res.headers['x-ratelimit-reset'],
    retryAfter: res.headers['retry-after'],
  });
  const a1 = await lix(w.key, w.siteId);
  t.equal(a1.statusCode, 200);
  t.strictSame(limitHeaders(a1), { limit: '3', remaining: '2', reset: '60', retryAfter: undefined });
  const a2 = await lix(w.key, w.siteId, '/0.1');
  t.strictSame(limitHeaders(a2), { limit: '3', remaining: '1', reset: a2.headers['x-ratelimit-reset'], retryAfter: undefined }, 'the /0.1 copy counts on the same counter');
  t.ok(['59', '60'].includes(a2.headers['x-ratelimit-reset'] as string));
  const a3 = await retest(w, { testnums: '30' });
  t.equal(a3.statusCode, 200, 'every premium route shares the key\'s counter');
  t.equal(a3.headers['x-ratelimit-remaining'], '0');
  const a4 = await lix(w.key, w.siteId);
  t.equal(a4.statusCode, 429);
  // The wait as Retry-After gives it: a full minute just after the window opened, else its seconds.
  const after = a4.headers['retry-after'] === '60' ? '1 minute' : `${a4.headers['retry-after']} seconds`;
  t.strictSame(a4.json(), { statusCode: 429, error: 'RATE_LIMITED', message: `Rate limit exceeded: at most 3 requests per minute per api-key; retry in ${after}` });
  t.equal(a4.headers['x-ratelimit-limit'], '3');
  t.equal(a4.headers['x-ratelimit-remaining'], '0');
  t.ok(['59', '60'].includes(a4.headers['retry-after'] as string), `Retry-After ${a4.headers['retry-after']}`);
  t.equal(a4.headers['retry-after'], a4.headers['x-ratelimit-reset']);
  const b1 = await lix(keyB, other);
  t.equal(b1.statusCode, 200, 'another key is not affected');
  t.strictSame(limitHeaders(b1), { limit: '3', remaining: '2', reset: '60', retryAfter: undefined });

  // Without a valid key the client address is counted: invented keys share one counter.
  const bogus = async (n: number) => w.app.inject({ method: 'GET', url: '/tools/lix/?content=x', headers: { 'api-key': `wpk_00000000000${n}_${'y'.repeat(43)}`, 'site-id': '1' } });
  t.equal((await bogus(1)).headers['x-ratelimit-remaining'], '2');
  t.equal((await bogus(2)).headers['x-ratelimit-remaining'], '1');
  t.equal((await w.app.inject({ method: 'GET', url: '/tools/lix/?content=x' })).headers['x-ratelimit-remaining'], '0');
  t.equal((await bogus(3)).statusCode, 429);

  const open = await w.app.inject({ method: 'GET', url: '/v1/tests' });
  t.equal(open.headers['x-ratelimit-limit'], undefined, 'open routes are not rate-limited');
});
