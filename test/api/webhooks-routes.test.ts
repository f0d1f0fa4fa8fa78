/**
 * The webhook routes through the real API over a fresh PostgreSQL, with loopback receivers that
 * the operator allowlist (config.allowTargets) names by origin; test events are verified by the
 * standardwebhooks package as a receiver would.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { createKey, revokeKey } from '../../core/store/keys.js';
import { buildTestApi } from '../helpers/api.js';
import { outcome, reportsFor, seedRun, seedSite } from '../helpers/seed.js';

interface Received {
  headers: Record<string, string>;
  body: string;
}

const got: Received[] = [];
let answer = 200;
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    got.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(answer);
    res.end();
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
t.teardown(() => {
  server.closeAllConnections();
  server.close();
});
const ORIGIN = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const HOOK_URL = `${ORIGIN}/receive`;

const { app, db } = await buildTestApi(t, { rateLimitPerMinute: 0, allowTargets: [ORIGIN] });
const SITE = await seedSite(db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/' });
const PORTFOLIO = await seedSite(db, { title: 'Byråkund AB', url: 'https://www.byrakund.se/' });
const OUTSIDE = await seedSite(db, { title: 'Annan kommun', url: 'https://www.annan.se/' });
const keys = {
  standard: (await createKey(db, { kind: 'standard', siteIds: [SITE] })).key,
  agency: (await createKey(db, { kind: 'agency', siteIds: [SITE, PORTFOLIO] })).key,
  admin: (await createKey(db, { kind: 'admin', siteIds: [] })).key,
  other: (await createKey(db, { kind: 'standard', siteIds: [OUTSIDE] })).key,
};
const revoked = await createKey(db, { kind: 'standard', siteIds: [SITE] });
await revokeKey(db, revoked.prefix);
const badKey = `wpk_${randomBytes(6).toString('hex')}_${randomBytes(32).toString('base64url')}`;

const headers = (key: string, siteId = SITE) => ({ 'api-key': key, 'site-id': String(siteId) });

t.test('PUT creates the webhook (JSON) and answers the secret once; GET shows it without the secret', async (t) => {
  const put = await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.standard), payload: { url: HOOK_URL } });
  t.equal(put.statusCode, 200, put.body);
  const body = put.json();
  t.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.match(body, { api_version: '0.1', site_id: SITE, url: HOOK_URL, threshold: null, enabled: true, disabled_reason: null, rotating: false });
  const get = await app.inject({ url: '/0.1/webhook/', headers: headers(keys.agency) });
  t.equal(get.statusCode, 200);
  t.notOk('secret' in get.json(), 'never shown again');
  t.equal(get.json().url, HOOK_URL);
  const row = await db.selectFrom('webhooks').selectAll().where('site_id', '=', SITE).executeTakeFirstOrThrow();
  t.equal(row.item_uri, `http://webperf.test/item/${SITE}`);
});

t.test('PUT as a form: urlencoded and multipart, with a threshold; an empty threshold is none', async (t) => {
  const form = await app.inject({
    method: 'PUT', url: '/webhook/', headers: { ...headers(keys.standard), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ url: HOOK_URL, threshold: '1.5' }).toString(),
  });
  t.equal(form.statusCode, 200, form.body);
  t.equal(form.json().threshold, 1.5);
  const boundary = 'XyZ';
  const multipart = [`--${boundary}`, 'content-disposition: form-data; name="url"', '', HOOK_URL, `--${boundary}`, 'content-disposition: form-data; name="threshold"', '', '', `--${boundary}--`, ''].join('\r\n');
  const mp = await app.inject({ method: 'PUT', url: '/webhook/', headers: { ...headers(keys.standard), 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: multipart });
  t.equal(mp.statusCode, 200, mp.body);
  t.equal(mp.json().threshold, null);
  const invalid = 'The body needs url (http or https, at most 2048 characters), once, and may have threshold (0.01 to 4, or empty for none)';
  for (const payload of [{ url: HOOK_URL, threshold: 0 }, { url: HOOK_URL, threshold: 5 }, { url: HOOK_URL, threshold: 'x' }, {}, { url: HOOK_URL, extra: 1 }]) {
    const res = await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.standard), payload });
    t.equal(res.statusCode, 400, JSON.stringify(payload));
    t.same(res.json(), { statusCode: 400, error: 'VALIDATION', message: invalid }, JSON.stringify(payload));
  }
  const twice = await app.inject({
    method: 'PUT', url: '/webhook/', headers: { ...headers(keys.standard), 'content-type': 'application/x-www-form-urlencoded' }, payload: `url=${encodeURIComponent(HOOK_URL)}&url=${encodeURIComponent(HOOK_URL)}`,
  });
  t.same(twice.json(), { statusCode: 400, error: 'VALIDATION', message: invalid }, 'a field sent twice');
  const text = await app.inject({ method: 'PUT', url: '/webhook/', headers: { ...headers(keys.standard), 'content-type': 'text/plain' }, payload: HOOK_URL });
  t.same(text.json(), { statusCode: 415, error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as multipart/form-data, application/x-www-form-urlencoded or application/json' });
});

t.test('set time: the address must be public http(s) without credentials (400 with the reason)', async (t) => {
  const cases: [string, string, string | RegExp][] = [
    ['http://127.0.0.1:9/hook', 'TARGET_BLOCKED', 'The address 127.0.0.1 resolves to 127.0.0.1, which is not allowed as a test target: a webhook address must be public'],
    [`http://localhost:${new URL(ORIGIN).port}/receive`, 'TARGET_BLOCKED', 'The host localhost is an internal name, which is not allowed as a test target: a webhook address must be public'],
    ['http://169.254.169.254/latest/meta-data/', 'TARGET_BLOCKED', /169\.254\.169\.254 resolves to 169\.254\.169\.254/],
    ['http://[::1]:80/', 'TARGET_BLOCKED', /not allowed/],
    ['ftp://example.org/', 'WEBHOOK_URL_INVALID', 'The webhook address must be http or https'],
    ['https://user:pw@example.org/', 'WEBHOOK_URL_INVALID', 'The webhook address must not carry credentials'],
    ['not a url', 'WEBHOOK_URL_INVALID', 'The webhook address is not a valid URL: not a url'],
    ['http://no-such-host.invalid/', 'WEBHOOK_URL_INVALID', 'The webhook host no-such-host.invalid could not be resolved'],
  ];
  for (const [url, error, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.standard), payload: { url } });
    t.equal(res.statusCode, 400, url);
    t.match(res.json(), { statusCode: 400, error, message }, url);
  }
  const row = await db.selectFrom('webhooks').select('url').where('site_id', '=', SITE).executeTakeFirstOrThrow();
  t.equal(row.url, HOOK_URL, 'a refused address changes nothing');
});

t.test('POST /webhook/test sends a signed event now and answers what the receiver said; rotation signs with both secrets', async (t) => {
  const { secret } = (await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.standard), payload: { url: HOOK_URL } })).json();
  got.length = 0;
  const placeholder = await app.inject({ method: 'POST', url: '/webhook/test', headers: headers(keys.standard) });
  t.equal(placeholder.statusCode, 200, placeholder.body);
  t.match(placeholder.json(), { api_version: '0.1', delivered: true, status_code: 200, error: null });
  t.equal(got.length, 1);
  t.equal(got[0].headers['webhook-id'], placeholder.json().event_id);
  t.doesNotThrow(() => new Webhook(secret).verify(got[0].body, got[0].headers));
  t.match(JSON.parse(got[0].body).data, { type_of_test: 0, rating: -1, url: 'https://www.exempel.se/' }, 'before the first result: a placeholder');

  const testDate = new Date('2026-11-21T10:00:00.000Z');
  await seedRun(db, SITE, { url: 'https://www.exempel.se/', testDate, outcomes: [outcome(21, 4.25, { a11y: 4.25 })] });
  await db.deleteFrom('webhook_deliveries').where('kind', '=', 'result').execute();
  const rotated = await app.inject({ method: 'POST', url: '/webhook/rotate-secret', headers: headers(keys.admin) });
  t.equal(rotated.statusCode, 200);
  const newSecret = rotated.json().secret;
  answer = 500;
  const res = await app.inject({ method: 'POST', url: '/0.1/webhook/test', headers: headers(keys.agency) });
  answer = 200;
  t.match(res.json(), { delivered: false, status_code: 500, error: 'HTTP 500' });
  const last = got[1];
  t.doesNotThrow(() => new Webhook(secret).verify(last.body, last.headers), 'the old secret still verifies');
  t.doesNotThrow(() => new Webhook(newSecret).verify(last.body, last.headers), 'so does the new one');
  const reports = reportsFor(21, 4.25, { a11y: 4.25 }).sv;
  t.same(JSON.parse(last.body), {
    api_version: '0.1',
    uri: `http://webperf.test/item/${SITE}`,
    tested_url: 'https://www.exempel.se/',
    timestamp: JSON.parse(last.body).timestamp,
    result_count: '1',
    data: {
      test_date: '2026-11-21T10:00:00.000Z', type_of_test: 21, url: 'https://www.exempel.se/', rating: 4.25,
      check_report: reports.overall, check_report_a11y: reports.a11y, check_report_perf: '', check_report_stand: '', check_report_sec: '', json_check_data: '{}',
    },
  });

  const list = await app.inject({ url: '/webhook/deliveries', headers: headers(keys.standard) });
  t.equal(list.statusCode, 200);
  const { data, result_count } = list.json();
  t.equal(result_count, 2);
  t.match(data[0], { event_id: res.json().event_id, kind: 'test', type_of_test: 21, status: 'failed', attempt: 1, status_code: 500, error: 'HTTP 500', next_attempt_at: null });
  t.match(data[1], { event_id: placeholder.json().event_id, kind: 'test', type_of_test: null, status: 'delivered', attempt: 1, status_code: 200, error: null });
  t.type(data[0].duration_ms, 'number');
});

t.test('DELETE removes the webhook; then GET, DELETE, rotate and test answer 404', async (t) => {
  const put0 = await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.agency, PORTFOLIO), payload: { url: HOOK_URL } });
  t.equal(put0.statusCode, 200);
  const del = await app.inject({ method: 'DELETE', url: '/webhook/', headers: headers(keys.agency, PORTFOLIO) });
  t.same(del.json(), { api_version: '0.1', message: `The webhook of site ${PORTFOLIO} is deleted` });
  for (const [method, url] of [['GET', '/webhook/'], ['DELETE', '/webhook/'], ['POST', '/webhook/rotate-secret'], ['POST', '/webhook/test']] as const) {
    const res = await app.inject({ method, url, headers: headers(keys.agency, PORTFOLIO) });
    t.same(res.json(), { statusCode: 404, error: 'WEBHOOK_NOT_FOUND', message: 'This site has no webhook' }, `${method} ${url}`);
  }
  const put = await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.admin, 999_999), payload: { url: HOOK_URL } });
  t.same(put.json(), { statusCode: 404, error: 'SITE_NOT_FOUND', message: 'The website does not exist' });
});

t.test('the key matrix: 401 without or with a bad key, 403 without access to the site, success with any key that reaches it', async (t) => {
  await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.standard), payload: { url: HOOK_URL } });
  const routes = [
    { method: 'PUT', url: '/webhook/', payload: { url: HOOK_URL } },
    { method: 'GET', url: '/webhook/' },
    { method: 'POST', url: '/webhook/rotate-secret' },
    { method: 'POST', url: '/webhook/test' },
    { method: 'GET', url: '/webhook/deliveries' },
    { method: 'DELETE', url: '/webhook/' },
  ] as const;
  const expected: [string | null, number, string | null][] = [
    [null, 401, 'KEY_MISSING'], [badKey, 401, 'KEY_INVALID'], [revoked.key, 401, 'KEY_INVALID'], [keys.other, 403, 'FORBIDDEN_SITE'],
    [keys.standard, 200, null], [keys.agency, 200, null], [keys.admin, 200, null],
  ];
  const allKeys = [...Object.values(keys), revoked.key, badKey];
  for (const prefix of ['', '/0.1']) {
    for (const [key, status, error] of expected) {
      for (const route of routes) {
        const res = await app.inject({
          method: route.method,
          url: `${prefix}${route.url}`,
          headers: key === null ? { 'site-id': String(SITE) } : headers(key),
          ...('payload' in route ? { payload: route.payload } : {}),
        });
        const name = `${route.method} ${prefix}${route.url} ${key === keys.standard ? 'standard' : key === keys.agency ? 'agency' : key === keys.admin ? 'admin' : (key ?? 'none').slice(0, 8)}`;
        t.equal(res.statusCode, status, name);
        if (error) t.equal(res.json().error, error, name);
        t.notOk(allKeys.some((k) => res.body.includes(k)), `${name}: no key in the answer`);
        // DELETE succeeded: put it back for the next caller.
        if (route.method === 'DELETE' && status === 200) {
          await app.inject({ method: 'PUT', url: '/webhook/', headers: headers(keys.standard), payload: { url: HOOK_URL } });
        }
      }
    }
  }
  const missing = await app.inject({ url: '/webhook/', headers: { 'api-key': keys.standard } });
  t.same(missing.json(), { statusCode: 400, error: 'SITE_ID_MISSING', message: 'The site-id header is required' });
});

t.test('the OpenAPI document states the rules decided where the spec is silent', async (t) => {
  const doc = (await app.inject({ url: '/openapi.json' })).json();
  const put = doc.paths['/webhook/'].put.description as string;
  t.match(put, /Threshold \("only drops"\): without one every result is delivered\. With threshold T a result is delivered only when it is rated \(rating ≥ 1\) and its rating is at least T lower than the previous rated result of the same test type/);
  t.match(put, /after 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h \(exponential, each ±20 % jitter\), 10 attempts over about 24 h/);
  t.match(put, /410 Gone disables the webhook at once; a webhook whose deliveries have failed for 3 days without a success is disabled/);
  t.match(put, /result_count \("1", a string as specified\)/);
  for (const path of ['/webhook/', '/webhook/rotate-secret', '/webhook/test', '/webhook/deliveries']) t.ok(doc.paths[path], path);
  t.notOk(doc.paths['/0.1/webhook/'], 'the versioned copies are hidden, as for the other premium routes');
  const csv = doc.paths['/webanalytics'].get;
  t.match(csv.description, /Presence value: "1" when the latest test detected the tool, "0" when it did not; empty for a site not yet tested\./);
  t.match(csv.description, /Columns, in this stable order: title .*, then one column per tool in the analytics rules file's order .*: Piwik PRO, Matomo, /);
  t.same(csv.security, [{ QueryApiKey: [] }]);
});
