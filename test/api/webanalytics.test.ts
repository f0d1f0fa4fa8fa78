/**
 * GET /webanalytics through the real API over a fresh PostgreSQL: detections stored the way the
 * runner stores them (saveRunResults), the CSV parsed back with fast-csv and compared cell by cell
 * with the stored detections; the key matrix; the key redacted from the request log.
 */
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { sql } from '../../core/db/kysely.js';
import { parseString } from 'fast-csv';
import { buildApp } from '../../api/app.js';
import { ANALYTICS_TOOLS } from '../../core/analytics.js';
import { analyticsCsvColumns } from '../../core/analytics-csv.js';
import { loadConfig } from '../../core/config.js';
import { PluginRegistry } from '../../core/registry.js';
import { updateCatalogSite } from '../../core/store/catalog-admin.js';
import { createKey, revokeKey } from '../../core/store/keys.js';
import { buildTestApi } from '../helpers/api.js';
import { outcome, seedRun, seedSite } from '../helpers/seed.js';

const { app, db, url: dbUrl } = await buildTestApi(t);

const analytics = (tools: string[]) => outcome(101, 5, {}, { tools });

// Arrange: sites with tricky titles and addresses, re-tests, a private test, a site never
// tested and one not followed.
const plain = await seedSite(db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/' });
await seedRun(db, plain, { url: 'https://www.exempel.se/', testDate: new Date('2026-11-01T06:00:00.000Z'), outcomes: [analytics(['Google Analytics', 'Hotjar', 'Matomo'])] });
// The latest test counts: it found only Matomo.
await seedRun(db, plain, { url: 'https://www.exempel.se/start', testDate: new Date('2026-11-20T06:30:15.250Z'), outcomes: [analytics(['Matomo']), outcome(7, 3)] });
// A private one-off test is not the site's latest analytics test.
await seedRun(db, plain, { url: 'https://www.exempel.se/privat', private: true, testDate: new Date('2026-11-21T00:00:00.000Z'), outcomes: [analytics(['Heap'])] });

const formula = await seedSite(db, { title: '=HYPERLINK("http://evil.example";"klicka")', url: '@SUM(1+1)' });
await seedRun(db, formula, { url: '+46 kommun', testDate: new Date('2026-11-19T00:00:00.000Z'), outcomes: [analytics(['Application Insights', 'Piwik PRO'])] });
const quoting = await seedSite(db, { title: 'Byrå; "Kund"\nAB', url: 'https://www.byrakund.se/?a=1;b=2' });
await seedRun(db, quoting, { url: 'https://www.byrakund.se/?a=1;b=2', testDate: new Date('2026-11-18T00:00:00.000Z'), outcomes: [analytics([])] });
const dash = await seedSite(db, { title: '-2+3 kommun\tx', url: 'https://dash.example/' });
const untested = await seedSite(db, { title: 'Ny kommun', url: 'https://ny.example/' });
const unfollowed = await seedSite(db, { title: 'Inte följd', url: 'https://inte.example/' });
await db.updateTable('sites').set({ followed: false }).where('id', '=', unfollowed).execute();
await seedRun(db, unfollowed, { url: 'https://inte.example/', outcomes: [analytics(['Heap'])] });

const admin = (await createKey(db, { kind: 'admin', siteIds: [] })).key;
const agency = (await createKey(db, { kind: 'agency', siteIds: [plain, formula] })).key;
const standard = (await createKey(db, { kind: 'standard', siteIds: [plain] })).key;
const revoked = await createKey(db, { kind: 'admin', siteIds: [] });
await revokeKey(db, revoked.prefix);
const bad = `wpk_${randomBytes(6).toString('hex')}_${randomBytes(32).toString('base64url')}`;

async function parse(body: string): Promise<{ headers: string[]; rows: string[][] }> {
  const rows: string[][] = [];
  await new Promise<void>((resolve, reject) => {
    parseString(body, { delimiter: ';' }).on('data', (r: string[]) => rows.push(r)).on('error', reject).on('end', () => resolve());
  });
  return { headers: rows[0], rows: rows.slice(1) };
}

t.test('the CSV, parsed back with fast-csv, matches the stored detections cell by cell', async (t) => {
  const res = await app.inject({ url: `/webanalytics?api-key=${admin}` });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.match(res.headers['content-disposition'], /^attachment; filename="webanalytics-\d{4}-\d\d-\d\d\.csv"$/);
  t.equal(res.rawPayload.subarray(0, 3).toString('hex'), 'efbbbf', 'UTF-8 with a byte order mark');
  const { headers, rows } = await parse(res.body);
  t.same(headers, ['title', 'url', 'test_date', ...ANALYTICS_TOOLS], 'the documented columns, tools in the rules file order');
  t.equal(ANALYTICS_TOOLS.length, 29);

  // Expected from the database: each followed site's latest public analytics result's run.
  const sites = await db.selectFrom('sites').select(['id', 'title', 'url']).where('followed', '=', true).orderBy('id').execute();
  t.same(sites.map((s) => s.id), [plain, formula, quoting, dash, untested]);
  t.equal(rows.length, sites.length, 'one row per followed site');
  for (const [i, site] of sites.entries()) {
    const latest = await db
      .selectFrom('latest_results as l')
      .innerJoin('test_results as r', 'r.id', 'l.result_id')
      .select(['r.run_id', 'r.url', 'r.test_date'])
      .where('l.site_id', '=', site.id)
      .where('l.type_of_test', '=', 101)
      .executeTakeFirst();
    const detected = latest ? (await db.selectFrom('analytics_detections').select('tool').where('run_id', '=', latest.run_id).execute()).map((d) => d.tool) : null;
    const row = rows[i];
    t.equal(row.length, 3 + ANALYTICS_TOOLS.length);
    const text = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
    t.equal(row[0], text(site.title), `title of ${site.id}`);
    t.equal(row[1], text(latest ? latest.url : site.url), `url of ${site.id}`);
    t.equal(row[2], latest ? latest.test_date.toISOString() : '', `test_date of ${site.id}`);
    for (const [j, tool] of ANALYTICS_TOOLS.entries()) {
      t.equal(row[3 + j], detected === null ? '' : detected.includes(tool) ? '1' : '0', `${site.id} ${tool}`);
    }
  }
  // The same, spelled out for the cases that matter.
  const col = (tool: string) => 3 + ANALYTICS_TOOLS.indexOf(tool);
  t.same([rows[0][1], rows[0][2], rows[0][col('Matomo')], rows[0][col('Google Analytics')], rows[0][col('Heap')]], ['https://www.exempel.se/start', '2026-11-20T06:30:15.250Z', '1', '0', '0'], 'the latest public test wins');
  t.equal(rows[1][0], '\'=HYPERLINK("http://evil.example";"klicka")', 'a formula is neutralised');
  t.equal(rows[1][1], '\'+46 kommun');
  t.equal(rows[2][0], 'Byrå; "Kund"\nAB', 'quotes, semicolons and line breaks survive');
  t.equal(rows[2][1], 'https://www.byrakund.se/?a=1;b=2');
  t.ok(rows[2].slice(3).every((c) => c === '0'), 'tested, nothing found: all 0');
  t.equal(rows[3][0], '\'-2+3 kommun\tx');
  t.same(rows[4].slice(1), ['https://ny.example/', '', ...ANALYTICS_TOOLS.map(() => '')], 'never tested: empty cells');
  t.ok(res.body.includes('"Byrå; ""Kund""\nAB"'), 'fast-csv quoted the field and doubled its quotes');
});

t.test('the pre-rendered records follow a new detection, a title change and an address change', async (t) => {
  const stored = async (id: number) => (await db.selectFrom('analytics_csv_rows').select(['line', 'followed']).where('site_id', '=', id).executeTakeFirstOrThrow());
  const cellsOf = async (line: string) => (await parse(`${analyticsCsvColumns().join(';')}\n${line}\n`)).rows[0];
  const col = (tool: string) => 3 + ANALYTICS_TOOLS.indexOf(tool);
  const get = async () => {
    const res = await app.inject({ url: `/webanalytics?api-key=${admin}` });
    t.equal(res.statusCode, 200);
    return (await parse(res.body)).rows;
  };
  const chunk = async () => (await db.selectFrom('analytics_csv_chunks').select(['bucket', 'text']).orderBy('bucket').execute());
  const body = async () => {
    const res = await app.inject({ url: `/webanalytics?api-key=${admin}` });
    // Without the byte order mark and the header row.
    return res.body.slice(res.body.indexOf('\n') + 1);
  };
  const before = await get();
  t.same(await chunk(), [{ bucket: 0, text: await body() }], 'the records are stored joined as one chunk (site ids 0–499), exactly as served');

  // A new analytics result: the record is re-rendered in the transaction that stores it.
  await seedRun(db, plain, { url: 'https://www.exempel.se/ny', testDate: new Date('2026-11-22T08:00:00.000Z'), outcomes: [analytics(['Hotjar', 'Umami'])] });
  const detected = await stored(plain);
  t.ok(detected.line, 'stored rendered, before any reader');
  const cells = await cellsOf(detected.line!);
  t.same(cells.slice(0, 3), ['Exempelby kommun', 'https://www.exempel.se/ny', '2026-11-22T08:00:00.000Z']);
  t.same(ANALYTICS_TOOLS.filter((tool) => cells[col(tool)] === '1'), ['Hotjar', 'Umami'], 'the new detections, Matomo gone');
  t.same((await get())[0], cells, 'served as stored');

  // A title changed by plain SQL: the trigger clears the record, the reader renders it afresh and stores it back.
  await db.updateTable('sites').set({ title: '@Ny titel; "AB"' }).where('id', '=', quoting).execute();
  t.equal((await stored(quoting)).line, null, 'cleared in the same transaction');
  t.same(await chunk(), [{ bucket: 0, text: null }], 'its chunk too');
  const retitled = await get();
  t.equal(retitled[2][0], '\'@Ny titel; "AB"', 'the new title, neutralised and quoted');
  t.same(retitled[2].slice(1), before[2].slice(1), 'the rest unchanged');
  t.same(await cellsOf((await stored(quoting)).line!), retitled[2], 'stored back by the reader');

  // An operator moves a site not yet tested: re-rendered in the same transaction.
  t.equal(await updateCatalogSite(db, untested, { url: 'https://ny2.example/' }, null), true);
  t.same(await cellsOf((await stored(untested)).line!), ['Ny kommun', 'https://ny2.example/', '', ...ANALYTICS_TOOLS.map(() => '')]);
  t.same((await get())[4][1], 'https://ny2.example/');

  // Unfollowing drops the row from the CSV; following brings it back.
  await db.updateTable('sites').set({ followed: false }).where('id', '=', dash).execute();
  t.same((await get()).map((r) => r[0]), ['Exempelby kommun', '\'=HYPERLINK("http://evil.example";"klicka")', '\'@Ny titel; "AB"', 'Ny kommun']);
  await db.updateTable('sites').set({ followed: true }).where('id', '=', dash).execute();
  t.equal((await get()).length, 5);
  t.same(await chunk(), [{ bucket: 0, text: await body() }], 'joined and stored again by the reader');
});

t.test('a change committed while a reader joins a chunk is not overwritten by the older join', async (t) => {
  const chunkText = async () => (await db.selectFrom('analytics_csv_chunks').select('text').where('bucket', '=', 0).executeTakeFirstOrThrow()).text;
  const titleOf = (csv: string) => csv.split('\n').find((l) => l.includes('https://dash.example/'))!.split(';')[0];
  // The reader will find the chunk and dash's record cleared.
  await db.updateTable('sites').set({ title: 'Först' }).where('id', '=', dash).execute();
  t.equal(await chunkText(), null);

  // Another transaction changes dash's title again and holds its locks until the reader waits on them.
  let commit!: () => void;
  const committing = new Promise<void>((resolve) => (commit = resolve));
  let changed!: () => void;
  const hasChanged = new Promise<void>((resolve) => (changed = resolve));
  const writer = db.transaction().execute(async (trx) => {
    await trx.updateTable('sites').set({ title: 'Sedan' }).where('id', '=', dash).execute();
    changed();
    await committing;
  });
  await hasChanged;
  const reading = app.inject({ url: `/webanalytics?api-key=${admin}` });
  // Bounded: the reader's join waits on the writer's row locks (dash's record, the chunk).
  let waiting = 0;
  for (let i = 0; i < 500 && waiting === 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
    waiting = (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db)).rows[0].n;
  }
  t.equal(waiting, 1, 'the reader waits on the writer');
  commit();
  await writer;
  const res = await reading;
  t.equal(res.statusCode, 200);
  t.equal(titleOf(res.body), 'Sedan', 'served: the committed change (the join was tried again on a fresh snapshot)');
  t.equal(titleOf((await chunkText())!), 'Sedan', 'stored: the committed change, not the join begun before it');
});

t.test('the key matrix: query key (or header), admin level only; also under /0.1', async (t) => {
  const cases: [string | null, number, string | null][] = [
    [null, 401, 'KEY_MISSING'], [bad, 401, 'KEY_INVALID'], [revoked.key, 401, 'KEY_INVALID'],
    [standard, 403, 'ADMIN_REQUIRED'], [agency, 403, 'ADMIN_REQUIRED'], [admin, 200, null],
  ];
  for (const prefix of ['', '/0.1']) {
    for (const [key, status, error] of cases) {
      const res = await app.inject({ url: `${prefix}/webanalytics${key ? `?api-key=${encodeURIComponent(key)}` : ''}` });
      t.equal(res.statusCode, status, `${prefix} ${key?.slice(0, 8)}`);
      if (error) {
        t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        t.equal(res.json().error, error);
        t.same(Object.keys(res.json()), ['statusCode', 'error', 'message']);
      }
      for (const k of [admin, agency, standard, revoked.key, bad]) t.notOk(res.body.includes(k), 'no key in the answer');
    }
  }
  const header = await app.inject({ url: '/webanalytics', headers: { 'api-key': admin } });
  t.equal(header.statusCode, 200, 'the header works too');
  t.same((await app.inject({ url: `/webanalytics?api-key=${agency}` })).json(), { statusCode: 403, error: 'ADMIN_REQUIRED', message: 'An admin api-key is required for /webanalytics' });
});

t.test('the query-string key is redacted from every log line', async (t) => {
  const stream = new PassThrough();
  let log = '';
  stream.on('data', (c: Buffer) => (log += c.toString()));
  const logged = await buildApp({ db, config: loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' }), registry: new PluginRegistry(), version: '1.0.0', databaseUrl: dbUrl }, { logger: { stream } });
  t.teardown(() => logged.close());
  t.equal((await logged.inject({ url: `/webanalytics?api-key=${admin}` })).statusCode, 200);
  t.equal((await logged.inject({ url: `/0.1/webanalytics?x=1&api-key=${standard}` })).statusCode, 403);
  t.equal((await logged.inject({ url: `/webanalytics?api-key=${bad}` })).statusCode, 401);
  // pino writes asynchronously: wait until the three request lines are in (bounded).
  const requestLines = () => log.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.req);
  for (let i = 0; i < 100 && requestLines().length < 3; i++) await new Promise((r) => setTimeout(r, 20));
  const requests = requestLines();
  t.same(requests.map((l) => l.req.url), ['/webanalytics?api-key=[Redacted]', '/0.1/webanalytics?x=1&api-key=[Redacted]', '/webanalytics?api-key=[Redacted]']);
  for (const k of [admin, standard, bad]) t.notOk(log.includes(k), 'the key is nowhere in the log');
});
