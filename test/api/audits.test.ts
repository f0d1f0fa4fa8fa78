/**
 * The audit routes over the real API and PostgreSQL: ordering (pages, content, credits, the 429
 * and its race), the listing of finished audits, and /audit_file/ across key kinds, other sites'
 * folders and every way of naming a path outside the audit's files.
 */
import { unzipSync } from 'fflate';
import { sql } from '../../core/db/kysely.js';
import t from 'tap';
import type { Db } from '../../core/db/database.js';
import { buildAuditFiles } from '../../core/audit/summaries.js';
import { finishAudit, recordAuditPage } from '../../core/store/audits.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

async function arrange(tt: { teardown(fn: () => unknown): void }, quota = 100) {
  const api = await buildTestApi(tt, { rateLimitPerMinute: 100_000 });
  const siteId = await createSite(api.db, { title: 'Exempelby', url: 'https://www.exempel.se/', monthlyQuota: quota });
  const otherSite = await createSite(api.db, { title: 'Annanstad', url: 'https://annan.se/', monthlyQuota: quota });
  const standard = (await createKey(api.db, { kind: 'standard', siteIds: [siteId] })).key;
  const otherStandard = (await createKey(api.db, { kind: 'standard', siteIds: [otherSite] })).key;
  const agency = (await createKey(api.db, { kind: 'agency', siteIds: [siteId, otherSite] })).key;
  const admin = (await createKey(api.db, { kind: 'admin', siteIds: [] })).key;
  return { ...api, siteId, otherSite, standard, otherStandard, agency, admin };
}

const order = (app: Awaited<ReturnType<typeof arrange>>['app'], key: string, siteId: number, headers: Record<string, string> = {}, payload?: Record<string, string>) =>
  app.inject({ method: 'POST', url: '/audit/', headers: { 'api-key': key, 'site-id': String(siteId), ...headers }, ...(payload ? { payload } : {}) });

async function jobs(db: Db) {
  const r = await sql<{ task_identifier: string; payload: { auditId: number } }>`select v.task_identifier, p.payload from graphile_worker.jobs v join graphile_worker._private_jobs p on p.id = v.id order by v.id`.execute(db);
  return r.rows;
}

t.test('ordering: pages, content, credits and the answer', async (t) => {
  const a = await arrange(t, 10);
  for (const [what, headers, payload] of [
    ['missing', {}, undefined],
    ['zero', { pages: '0' }, undefined],
    ['negative', { pages: '-3' }, undefined],
    ['not an integer', { pages: '2.5' }, undefined],
    ['exponent', { pages: '1e2' }, undefined],
  ] as const) {
    const r = await order(a.app, a.standard, a.siteId, headers, payload);
    t.equal(r.statusCode, 400, `pages ${what}: 400`);
    t.equal(r.json().error, 'PAGES_INVALID');
  }
  const withContent = await order(a.app, a.standard, a.siteId, { pages: '2' }, { content: 'https://www.exempel.se/a' });
  t.equal(withContent.statusCode, 400);
  t.equal(withContent.json().error, 'AUDIT_CONTENT_NOT_SUPPORTED');
  const badFormat = await order(a.app, a.standard, a.siteId, { pages: '2', format: 'pdf' });
  t.equal(badFormat.json().error, 'AUDIT_FORMAT_INVALID');

  const tooMany = await order(a.app, a.standard, a.siteId, { pages: '11' });
  t.equal(tooMany.statusCode, 400);
  t.same(tooMany.json(), { statusCode: 400, error: 'QUOTA_EXCEEDED', message: 'The audit needs 11 credits; 10 remain in the current 30-day period.' });
  t.same(await jobs(a.db), [], 'nothing queued by refused orders');

  // pages as a form field, multipart as specified.
  const form = new FormData();
  form.append('pages', '4');
  const res = await fetchInject(a, form);
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.match(body, { site_id: a.siteId, format: 'audit_v2', pages: 4, credits: 4, available: 6 });
  t.match(body.message, /will be processed in a couple of hours/);
  const audit = await a.db.selectFrom('audits').selectAll().where('id', '=', body.audit_id).executeTakeFirstOrThrow();
  t.match(audit, { site_id: a.siteId, order_id: body.order_id, pages: 4, format: 'audit_v2', base_url: 'https://www.exempel.se/', status: 'queued', pages_done: 0 });
  t.match(audit.folder, /^[A-Za-z0-9_-]{22}$/, 'an opaque 128-bit folder name');
  t.same(await jobs(a.db), [{ task_identifier: 'run_audit', payload: { auditId: body.audit_id } }], 'the job was queued with the order');
  const ledger = await a.db.selectFrom('credit_ledger').select(['credits', 'order_id']).execute();
  t.same(ledger, [{ credits: 4, order_id: body.order_id }]);
});

async function fetchInject(a: Awaited<ReturnType<typeof arrange>>, form: FormData) {
  const req = new Request('http://x/', { method: 'POST', body: form });
  return a.app.inject({
    method: 'POST',
    url: '/audit/',
    headers: { 'api-key': a.standard, 'site-id': String(a.siteId), 'content-type': req.headers.get('content-type')! },
    payload: Buffer.from(await req.arrayBuffer()),
  });
}

t.test('one audit order per site and hour: 429 with Retry-After, race-safe', async (t) => {
  const a = await arrange(t);
  await a.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(a.app.server.address() as { port: number }).port}`;
  const results = await Promise.all(
    Array.from({ length: 6 }, () => fetch(`${base}/0.1/audit/`, { method: 'POST', headers: { 'api-key': a.agency, 'site-id': String(a.siteId), pages: '3' } }).then(async (r) => ({ status: r.status, retry: r.headers.get('retry-after'), body: await r.json() }))),
  );
  t.same(results.map((r) => r.status).sort(), [200, 429, 429, 429, 429, 429], 'exactly one of six racing orders is accepted');
  for (const r of results.filter((x) => x.status === 429)) {
    t.equal(r.body.error, 'AUDIT_TOO_SOON');
    t.ok(Number(r.retry) > 3500 && Number(r.retry) <= 3600, `Retry-After is the rest of the hour (${r.retry})`);
  }
  t.equal((await a.db.selectFrom('credit_ledger').select('credits').execute()).reduce((n, r) => n + r.credits, 0), 3, 'charged once');
  const other = await order(a.app, a.agency, a.otherSite, { pages: '1' });
  t.equal(other.statusCode, 200, 'another site is not held back');
  // An hour later the site may order again.
  await sql`update orders set created_at = now() - interval '61 minutes'`.execute(a.db);
  t.equal((await order(a.app, a.agency, a.siteId, { pages: '1' })).statusCode, 200);
});

/** A finished audit_v2 with two pages, stored through the store like the runner does. */
async function finishedAudit(a: Awaited<ReturnType<typeof arrange>>, siteId: number) {
  await sql`update orders set created_at = now() - interval '2 hours'`.execute(a.db);
  const r = await order(a.app, a.admin, siteId, { pages: '2' });
  const { audit_id: auditId } = r.json();
  const audit = await a.db.selectFrom('audits').selectAll().where('id', '=', auditId).executeTakeFirstOrThrow();
  const result = {
    final_url: 'https://www.exempel.se/',
    scores: { accessibility: 90, performance: 70, seo: 100, 'best-practices': 80 },
    failing: { accessibility: [{ id: 'image-alt', title: 'Images have alt', score: 0 }], performance: [], seo: [], 'best-practices': [] },
    privacy: { third_party_hosts: ['cdn.example.net'], cookies: [], analytics: [] },
    tests: [],
  };
  await recordAuditPage(a.db, auditId, { position: 0, url: 'https://www.exempel.se/', status: 'done', links: [], result });
  await recordAuditPage(a.db, auditId, { position: 1, url: 'https://www.exempel.se/a', status: 'failed', error: 'Timed out', links: [], result: {} });
  const pages = [{ url: 'https://www.exempel.se/', status: 'done', error: null, result }, { url: 'https://www.exempel.se/a', status: 'failed', error: 'Timed out', result: {} }];
  await finishAudit(a.db, auditId, buildAuditFiles('audit_v2', { folder: audit.folder, baseUrl: audit.base_url, date: '2026-11-23T10:00:00.000Z', pagesOrdered: 2 }, pages, { available: false }));
  return { auditId, folder: audit.folder };
}

t.test('the listing holds finished audits only, with their result files', async (t) => {
  const a = await arrange(t);
  const pending = await order(a.app, a.standard, a.siteId, { pages: '1' });
  t.equal(pending.statusCode, 200);
  const empty = await a.app.inject({ method: 'POST', url: '/audits/', headers: { 'api-key': a.standard, 'site-id': String(a.siteId) } });
  t.equal(empty.statusCode, 200);
  t.match(empty.json(), [{ api_version: '0.1', result_count: 0, data: [] }], 'an unfinished audit is not listed');
  const { auditId, folder } = await finishedAudit(a, a.siteId);
  const list = await a.app.inject({ method: 'POST', url: '/0.1/audits/', headers: { 'api-key': a.standard, 'site-id': String(a.siteId) } });
  const [env] = list.json();
  t.equal(env.result_count, 1);
  const row = env.data[0];
  t.match(row, { site_id: a.siteId, result_id: auditId, title: 'Audit of Exempelby', format: 'audit_v2' });
  t.same(JSON.parse(row.content), { date: JSON.parse(row.content).date, folder, base_url: 'https://www.exempel.se/', pages_ordered: 2, pages_done: 2 });
  t.same(row.result_files, [
    'accessibility_summary.json', 'performance_summary.json', 'seo_summary.json', 'best-practices_summary.json',
    'crux_summary.json', 'privacy_summary.json', 'summaries.zip',
  ].map((f) => `http://webperf.test/0.1/audit_file/?folder=${folder}&file=${f}`));
  const forOther = await a.app.inject({ method: 'POST', url: '/audits/', headers: { 'api-key': a.otherStandard, 'site-id': String(a.otherSite) } });
  t.same(forOther.json()[0].data, [], 'another site sees none of them');
});

t.test('/audit_file/: the access matrix and every way of naming another path', async (t) => {
  const a = await arrange(t);
  const { folder } = await finishedAudit(a, a.siteId);
  const get = (key: string | null, siteId: number | null, query: string, method: 'GET' | 'POST' = 'GET') =>
    a.app.inject({ method, url: `/audit_file/?${query}`, headers: { ...(key ? { 'api-key': key } : {}), ...(siteId ? { 'site-id': String(siteId) } : {}) } });
  const q = (file: string, f = folder) => `folder=${encodeURIComponent(f)}&file=${encodeURIComponent(file)}`;

  // Key kinds × own site / other site.
  const matrix: [string, string | null, number | null, number, string | null][] = [
    ['no key', null, a.siteId, 401, 'KEY_MISSING'],
    ['invented key', 'wpk_000000000000_nope', a.siteId, 401, 'KEY_INVALID'],
    ['standard key, own site', a.standard, a.siteId, 200, null],
    ['standard key, no site-id', a.standard, null, 400, 'SITE_ID_MISSING'],
    ['standard key of another site', a.otherStandard, a.siteId, 403, 'FORBIDDEN_SITE'],
    ['other site\'s key naming its own site', a.otherStandard, a.otherSite, 403, 'AUDIT_FOLDER_FORBIDDEN'],
    ['agency key, portfolio site', a.agency, a.siteId, 200, null],
    ['agency key, the other portfolio site', a.agency, a.otherSite, 403, 'AUDIT_FOLDER_FORBIDDEN'],
    ['admin key, the folder\'s site', a.admin, a.siteId, 200, null],
    ['admin key, another site', a.admin, a.otherSite, 403, 'AUDIT_FOLDER_FORBIDDEN'],
  ];
  for (const method of ['GET', 'POST'] as const) {
    for (const [what, key, siteId, status, code] of matrix) {
      const r = await get(key, siteId, q('seo_summary.json'), method);
      t.equal(r.statusCode, status, `${method} ${what}: ${status}`);
      if (code) t.equal(r.json().error, code, `${method} ${what}: ${code}`);
      else t.equal(r.json().category, 'seo');
    }
  }

  const own = (query: string) => get(a.standard, a.siteId, query);
  for (const [what, query, status, code] of [
    ['folder missing', 'file=seo_summary.json', 400, 'AUDIT_FILE_PARAM_MISSING'],
    ['file missing', `folder=${folder}`, 400, 'AUDIT_FILE_PARAM_MISSING'],
    ['folder twice', `folder=${folder}&folder=${folder}&file=seo_summary.json`, 400, 'VALIDATION'],
    ['traversal in the folder', q('seo_summary.json', `../${folder}`), 400, 'AUDIT_FILE_PARAM_INVALID'],
    ['encoded dots in the folder', `folder=%2e%2e%2f${folder}&file=seo_summary.json`, 400, 'AUDIT_FILE_PARAM_INVALID'],
    ['absolute folder', q('seo_summary.json', '/etc'), 400, 'AUDIT_FILE_PARAM_INVALID'],
    ['NUL in the folder', `folder=${folder}%00&file=seo_summary.json`, 400, 'AUDIT_FILE_PARAM_INVALID'],
    ['unknown folder', q('seo_summary.json', 'A'.repeat(22)), 404, 'AUDIT_FILE_NOT_FOUND'],
    ['traversal in the file', q('../../../etc/passwd'), 404, 'AUDIT_FILE_NOT_FOUND'],
    ['encoded dots in the file', `folder=${folder}&file=%2e%2e%2fseo_summary.json`, 404, 'AUDIT_FILE_NOT_FOUND'],
    ['double-encoded dots', `folder=${folder}&file=%252e%252e%252fseo_summary.json`, 404, 'AUDIT_FILE_NOT_FOUND'],
    ['absolute file', q('/etc/passwd'), 404, 'AUDIT_FILE_NOT_FOUND'],
    ['NUL in the file', `folder=${folder}&file=seo_summary.json%00.zip`, 404, 'AUDIT_FILE_NOT_FOUND'],
    ['unknown file name', q('report.html'), 404, 'AUDIT_FILE_NOT_FOUND'],
    ['a csv audit\'s file in an audit_v2', q('accessibility.csv'), 404, 'AUDIT_FILE_NOT_FOUND'],
  ] as const) {
    const r = await own(query);
    t.equal(r.statusCode, status, `${what}: ${status}`);
    t.same(Object.keys(r.json()).sort(), ['error', 'message', 'statusCode'], `${what}: the documented error body`);
    t.equal(r.json().error, code, `${what}: ${code}`);
  }

  const zip = await own(q('summaries.zip'));
  t.equal(zip.statusCode, 200);
  t.equal(zip.headers['content-type'], 'application/zip');
  const entries = unzipSync(new Uint8Array(zip.rawPayload));
  t.same(Object.keys(entries), ['accessibility_summary.json', 'performance_summary.json', 'seo_summary.json', 'best-practices_summary.json', 'crux_summary.json', 'privacy_summary.json']);
  for (const name of Object.keys(entries)) {
    const single = await own(q(name));
    t.equal(Buffer.from(entries[name]).toString(), single.body, `${name} in the zip is the file served alone`);
  }
  const a11y = (await own(q('accessibility_summary.json'))).json();
  t.same(a11y.distribution, { pages_scored: 1, mean: 90, median: 90, worst: { score: 90, url: 'https://www.exempel.se/' } });
  t.same(a11y.failing, [{ id: 'image-alt', title: 'Images have alt', source: 'lighthouse', pages: 1, share: 100, example_pages: ['https://www.exempel.se/'] }]);
  t.match(a11y, { pages_ordered: 2, pages_tested: 1, pages_failed: 1 });
});

t.test('the OpenAPI document describes the audit routes once, with the csv format', async (t) => {
  const a = await arrange(t);
  const doc = (await a.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  t.ok(doc.paths['/audit/'].post && doc.paths['/audits/'].post && doc.paths['/audit_file/'].get && doc.paths['/audit_file/'].post);
  t.notOk(doc.paths['/0.1/audit/'], 'the /0.1 copy is not repeated');
  t.match(doc.paths['/audit/'].post.description, /`csv` — an accessibility-only crawl/);
  t.ok(doc.paths['/audit/'].post.parameters.some((p: any) => p.in === 'header' && p.name === 'pages'), 'pages is a documented header');
  t.ok(doc.paths['/audit/'].post.requestBody.content['multipart/form-data'], 'and a form field');
  // A JSON number is accepted for pages.
  const r = await a.app.inject({ method: 'POST', url: '/audit/', headers: { 'api-key': a.standard, 'site-id': String(a.siteId), 'content-type': 'application/json' }, payload: JSON.stringify({ pages: 2, format: 'csv' }) });
  t.equal(r.statusCode, 200, r.body);
  t.match(r.json(), { format: 'csv', pages: 2, credits: 2 });
});
