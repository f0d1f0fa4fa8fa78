/**
 * The dashboard over HTTP (app.inject on the real app and database): language choice, security
 * headers, refusals with the catalogue's codes, the downloads parsed back and compared with the
 * stored summaries, that customers' sites and private tests never appear, and the page cache
 * (kept pages, ETag/304, compressed forms, dropped as results land, also in a second process).
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parseString } from '@fast-csv/parse';
import t from 'tap';
import { buildApp } from '../../api/app.js';
import { createDb } from '../../core/db/database.js';
import { updateCatalogSite } from '../../core/store/catalog-admin.js';
import { publishCacheEvent, type CacheEvent } from '../../core/store/notify.js';
import { buildTestApi } from '../helpers/api.js';
import { outcome, seedRun } from '../helpers/seed.js';
import { CUSTOMER_TITLE, XSS_TITLE, seedDashboard } from '../helpers/dashboard.js';

const api = await buildTestApi(t);
const { app, db } = api;
const data = await seedDashboard(db);
const HTML = { accept: 'text/html,application/xhtml+xml' };

/** The stored summaries of every public-sector website, as the downloads must give them. */
async function stored() {
  const rows = await db
    .selectFrom('sites as s')
    .leftJoin('site_scores as sc', 'sc.site_id', 's.id')
    .select(['s.id', 's.title', 's.url', 's.org_category', 's.same_as', 'sc.overall', 'sc.a11y', 'sc.pagespeed', 'sc.infosec', 'sc.webstandard'])
    .where('s.public_sector', '=', true)
    .execute();
  const tested = await db.selectFrom('latest_results').select(['site_id', (eb) => eb.fn.max('test_date').as('d')]).groupBy('site_id').execute();
  const r = (v: unknown, places: number) => (v === null ? null : Math.round(Number(v) * 10 ** places) / 10 ** places);
  return new Map(rows.map((s) => [s.id, {
    id: s.id, title: s.title, url: s.url, category: s.org_category, sameAs: s.same_as,
    scores: { overall: r(s.overall, 5), a11y: r(s.a11y, 2), pagespeed: r(s.pagespeed, 2), infosec: r(s.infosec, 2), webstandard: r(s.webstandard, 2) },
    lastTested: (() => { const d = tested.find((x) => x.site_id === s.id)?.d; return d ? new Date(d as Date).toISOString() : null; })(),
  }]));
}

t.test('the language: a chosen one (cookie), else Accept-Language with regions, else Swedish', async (t) => {
  const lang = async (headers: Record<string, string>) => {
    const res = await app.inject({ url: '/', headers: { ...HTML, ...headers } });
    t.equal(res.statusCode, 200);
    return [res.headers['content-language'], /<html lang="(\w+)">/.exec(res.body)?.[1]];
  };
  t.same(await lang({}), ['sv', 'sv']);
  t.same(await lang({ 'accept-language': 'en-GB,en;q=0.9' }), ['en', 'en']);
  t.same(await lang({ 'accept-language': 'de-DE,de;q=0.9,en;q=0.5,sv;q=0.4' }), ['en', 'en']);
  t.same(await lang({ 'accept-language': 'sv-SE' }), ['sv', 'sv']);
  t.same(await lang({ 'accept-language': 'fr' }), ['sv', 'sv']);
  t.same(await lang({ 'accept-language': 'sv', cookie: 'lang=en' }), ['en', 'en'], 'the explicit choice wins');
  t.same(await lang({ 'accept-language': 'en', cookie: 'lang=xx' }), ['en', 'en'], 'an unknown cookie value is ignored');

  const sw = await app.inject({ url: '/lang/en?next=%2Fsite%2F12%3Fx%3D1' });
  t.equal(sw.statusCode, 303);
  t.equal(sw.headers.location, '/site/12?x=1');
  t.match(String(sw.headers['set-cookie']), /^lang=en; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/);
  for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'site/1']) {
    const res = await app.inject({ url: `/lang/sv?next=${encodeURIComponent(next)}` });
    t.equal(res.headers.location, '/', `${next} is not followed`);
  }
  const bad = await app.inject({ url: '/lang/de?next=/' });
  t.equal(bad.statusCode, 400);
  t.same(bad.json(), { statusCode: 400, error: 'VALIDATION', message: bad.json().message });
});

t.test('pages carry a strict CSP; the JSON API does not get the pages\' headers', async (t) => {
  const page = await app.inject({ url: `/site/${data.rated['Ale kommun']}`, headers: HTML });
  t.equal(page.statusCode, 200);
  t.equal(page.headers['content-security-policy'], "default-src 'none';script-src 'self';style-src 'self';img-src 'self' data:;connect-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none'");
  t.equal(page.headers['x-content-type-options'], 'nosniff');
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  const css = await app.inject({ url: '/static/site.css' });
  t.equal(css.statusCode, 200);
  t.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  t.match(page.body, /<link rel="stylesheet" href="\/static\/site\.css\?v=[0-9a-f]{10}">/);
  const apiRes = await app.inject({ url: '/public-sector/' });
  t.equal(apiRes.statusCode, 200);
  t.equal(apiRes.headers['content-security-policy'], undefined);
});

t.test('refusals: the catalogue code and status, HTML for browsers, JSON for the rest', async (t) => {
  for (const [url, status, code] of [
    [`/site/${data.customerId}`, 404, 'SITE_NOT_FOUND'],
    ['/site/2147483647', 404, 'SITE_NOT_FOUND'],
    ['/site/abc', 400, 'VALIDATION'],
    ['/site/0', 400, 'VALIDATION'],
    ['/?sort=rating', 400, 'VALIDATION'],
    ['/?dir=up', 400, 'VALIDATION'],
    ['/?page=0', 400, 'VALIDATION'],
    ['/?page=8', 404, 'NOT_FOUND'],
    ['/?category=Region&page=2', 404, 'NOT_FOUND'],
    ['/?category=Country', 400, 'VALIDATION'],
    [`/?q=${'a'.repeat(101)}`, 400, 'VALIDATION'],
    ['/download/public-sector-scores.csv?sort=x', 400, 'VALIDATION'],
  ] as const) {
    const json = await app.inject({ url });
    t.equal(json.statusCode, status, url);
    t.same(Object.keys(json.json()).sort(), ['error', 'message', 'statusCode']);
    t.equal(json.json().error, code, url);
    const html = await app.inject({ url, headers: { ...HTML, 'accept-language': 'en' } });
    t.equal(html.statusCode, status, `${url} (HTML)`);
    t.match(html.headers['content-type'], /^text\/html/);
    t.match(html.body, `<h1>Error ${status}</h1>`);
    t.match(html.body, `<code>${code}</code>`);
  }
  const notPublic = await app.inject({ url: `/site/${data.customerId}`, headers: HTML });
  t.match(notPublic.body, 'Webbplatsen finns inte bland de offentliga webbplatserna.');
  t.notMatch(notPublic.body, CUSTOMER_TITLE);
});

t.test('CSV download: every public-sector website with its stored scores, licence and credit', async (t) => {
  const res = await app.inject({ url: '/download/public-sector-scores.csv' });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.equal(res.headers['content-disposition'], 'attachment; filename="public-sector-scores.csv"');
  t.equal(res.headers.link, '<https://creativecommons.org/licenses/by-sa/4.0/>; rel="license"');
  t.equal(res.body.charCodeAt(0), 0xfeff, 'a byte order mark for spreadsheets');
  const rows = await new Promise<Record<string, string>[]>((resolve, reject) => {
    const out: Record<string, string>[] = [];
    parseString(res.body.slice(1), { headers: true }).on('error', reject).on('data', (r) => out.push(r)).on('end', () => resolve(out));
  });
  const want = await stored();
  t.equal(rows.length, 311, '310 organisations and the markup-titled one');
  t.equal(want.size, 311);
  t.notOk(rows.some((r) => r.title === CUSTOMER_TITLE), 'no customer site');
  const num = (v: string) => (v === '' ? null : Number(v));
  for (const row of rows) {
    const w = want.get(Number(row.id))!;
    t.ok(w, `site ${row.id} is public-sector`);
    t.same(
      { id: Number(row.id), title: row.title, url: row.url, category: row.category, sameAs: row.same_as || null, scores: { overall: num(row.overall), a11y: num(row.a11y), pagespeed: num(row.pagespeed), infosec: num(row.infosec), webstandard: num(row.webstandard) }, lastTested: row.last_tested || null },
      w,
      row.title,
    );
    t.equal(row.uri, `http://webperf.test/item/${row.id}`);
    t.equal(row.licence, 'CC BY-SA 4.0 https://creativecommons.org/licenses/by-sa/4.0/');
    t.equal(row.attribution, 'Source: webperf open data. Shared or adapted data keeps the same licence.');
  }
  t.equal(rows.find((r) => Number(r.id) === data.xssId)!.title, XSS_TITLE, 'the title comes back as it was stored');
  // The private test of Ale (rated 1.01) is not in Ale's scores.
  const ale = rows.find((r) => Number(r.id) === data.privateOnId)!;
  t.equal(ale.last_tested, '2026-10-14T10:00:00.000Z');
  t.ok(Number(ale.a11y) > 3, 'the public scores stand');
});

t.test('JSON download: the page\'s query (filter, search, order) with licence and credit', async (t) => {
  const res = await app.inject({ url: '/download/public-sector-scores.json?q=KOMMUN&category=Municipality&sort=overall&dir=desc' });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.same(body.licence, { name: 'CC BY-SA 4.0', url: 'https://creativecommons.org/licenses/by-sa/4.0/', attribution: 'Source: webperf open data. Shared or adapted data keeps the same licence.' });
  t.equal(body.source, 'webperf open data');
  const want = await stored();
  const municipalities = [...want.values()].filter((w) => w.category === 'Municipality' && w.title.toLowerCase().includes('kommun'));
  t.equal(body.result_count, municipalities.length);
  t.equal(body.data.length, municipalities.length);
  t.equal(body.timestamp, '2026-10-14T10:00:00.000Z', 'when the newest listed result was taken');
  // Rated first, best first; the unrated after, by name.
  const rated = municipalities.filter((m) => m.scores.overall !== null).sort((a, b) => b.scores.overall! - a.scores.overall!);
  t.same(body.data.slice(0, rated.length).map((d: any) => d.title), rated.map((r) => r.title));
  // Overall of the latest month: Åre 4.2, Älvdalen 3.5, Ale 3.1, Salem 2.7, the markup one 2.5.
  t.same(rated.map((r) => r.title), ['Åre kommun', 'Älvdalens kommun', 'Ale kommun', 'Salems kommun', XSS_TITLE]);
  for (const d of body.data) {
    const w = want.get(d.id)!;
    t.same({ id: d.id, title: d.title, url: d.url, category: d.category, sameAs: d.sameAs, scores: d.scores, lastTested: d.last_tested }, w);
    t.equal(d.uri, `http://webperf.test/item/${d.id}`);
  }
  const unrated = body.data.slice(rated.length).map((d: any) => d.title);
  t.same(unrated, [...unrated].sort(new Intl.Collator('sv').compare), 'the unrated by name, Swedish order');
});

t.test('pages are kept rendered until what they show changes: ETag and 304, compressed forms, dropped in this and another process', async (t) => {
  // A second instance over the same database stands for a second API process: it learns of
  // writes made through the first one's Db only by LISTEN.
  const db2 = createDb(api.url, { max: 2 });
  const app2 = await buildApp({ db: db2, config: api.config, registry: api.registry, version: '1.0.0', databaseUrl: api.url });
  t.teardown(async () => {
    await app2.close();
    await db2.destroy();
  });
  const ale = data.rated['Ale kommun'];
  const gotland = data.rated['Region Gotland'];
  const get = (instance: typeof app, url: string, headers: Record<string, string> = {}) => instance.inject({ url, headers: { ...HTML, 'accept-language': 'en', ...headers } });

  const first = await get(app, `/site/${ale}`);
  t.equal(first.statusCode, 200);
  const etag = String(first.headers.etag);
  t.match(etag, /^W\/"[A-Za-z0-9_-]{27}"$/, 'a weak ETag');
  t.equal(first.headers['cache-control'], 'no-cache');
  t.equal(first.headers.vary, 'accept-language, cookie, accept-encoding');
  t.equal(first.headers['content-language'], 'en');
  t.ok(app.resultsCache.pages.get(`en\0/site/${ale}`), 'kept under its address and language');
  // What a page ignores does not make another copy of it: one entry per canonical address.
  const entries = app.resultsCache.pages.size;
  for (const url of [`/site/${ale}?`, `/site/${ale}?utm_source=x&x=1e309`, `/site/${ale}?x=%F0%9F%92%A9`]) {
    const res = await get(app, url);
    t.strictSame([res.statusCode, res.headers.etag, res.body], [200, etag, first.body], `${url}: the same page`);
  }
  t.equal(app.resultsCache.pages.size, entries, 'no copy kept for an address that differs only in what the page ignores');
  const sorted = await get(app, '/?sort=overall&dir=desc&utm_source=x');
  t.equal(sorted.statusCode, 200);
  t.notMatch(sorted.body, 'utm_source', 'rendered at its canonical address: the first visitor\'s own address is not kept in it');
  t.match(sorted.body, 'next=%2F%3Fdir%3Ddesc%26sort%3Doverall', 'the language switch leads back to the canonical address');
  t.strictSame((await get(app, '/?utm_source=y&dir=desc&sort=overall')).headers.etag, sorted.headers.etag);
  t.ok(app.resultsCache.pages.get('en\0/?dir=desc&sort=overall'), 'kept under its declared parameters, sorted');
  t.equal(app.resultsCache.pages.size, entries + 1, 'one entry for both orders');
  t.not((await get(app, '/?sort=title&dir=desc')).headers.etag, sorted.headers.etag, 'a declared parameter is another page');
  const again = await get(app, `/site/${ale}`);
  t.strictSame([again.headers.etag, again.body], [etag, first.body], 'the same page again');
  const sv = await get(app, `/site/${ale}`, { 'accept-language': 'sv' });
  t.not(sv.headers.etag, etag, 'each language its own page');
  t.equal(sv.headers['content-language'], 'sv');
  const notModified = await get(app, `/site/${ale}`, { 'if-none-match': etag });
  t.equal(notModified.statusCode, 304);
  t.equal(notModified.body, '');
  const br = await get(app, `/site/${ale}`, { 'accept-encoding': 'gzip, deflate, br' });
  t.equal(br.headers['content-encoding'], 'br');
  t.equal(brotliDecompressSync(br.rawPayload).toString(), first.body, 'brotli: the same page');
  const gz = await get(app, `/site/${ale}`, { 'accept-encoding': 'gzip' });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.equal(gunzipSync(gz.rawPayload).toString(), first.body, 'gzip: the same page');
  t.strictSame([br.headers.etag, gz.headers.etag], [etag, etag], 'one weak tag for every coding');

  // Both processes hold the start page and both site pages.
  const before = new Map<string, string>();
  for (const instance of [app, app2]) {
    for (const url of ['/', `/site/${ale}`, `/site/${gotland}`]) {
      const res = await get(instance, url);
      t.equal(res.statusCode, 200);
      if (instance === app2) t.equal(res.body, before.get(url), `${url}: the other process renders the same page`);
      else before.set(url, res.body);
    }
  }
  t.notMatch(before.get('/')!, '2026-11-20');

  // New results for Ale land (the runner's saveRunResults) through the first process's Db.
  const heard = applied(app2, (e) => e?.site === ale);
  const fresh = outcome(2, 4.75, { a11y: 4.75, pagespeed: 4.75 });
  fresh.reports.en.overall = 'Fresh report after the new run';
  await seedRun(db, ale, { url: `https://example.invalid/${ale}`, testDate: new Date('2026-11-20T10:00:00Z'), outcomes: [fresh] });
  await heard;
  for (const instance of [app, app2]) {
    const site = await get(instance, `/site/${ale}`);
    t.match(site.body, 'Fresh report after the new run', 'the site page shows the new result');
    t.not(site.headers.etag, etag);
    const start = await get(instance, '/');
    t.match(start.body, new RegExp(`<tr data-id="${ale}">[^]*?<td>2026-11-20</td>`), 'the start page shows its new test date');
    t.equal((await get(instance, `/site/${gotland}`)).body, before.get(`/site/${gotland}`), 'another website\'s page is kept');
  }
  t.equal((await get(app, `/site/${ale}`, { 'if-none-match': etag })).statusCode, 200, 'the old tag no longer matches');

  // The record changes (the operator's catalogue command): its page shows the new address.
  const heardUrl = applied(app2, (e) => e?.site === gotland);
  t.equal(await updateCatalogSite(db, gotland, { url: 'https://gotland.example/' }, null), true);
  await heardUrl;
  for (const instance of [app, app2]) t.match((await get(instance, `/site/${gotland}`)).body, 'href="https://gotland.example/"');
  // Sites added to the list: the start page is rendered again, website pages are kept.
  const kept = String((await get(app2, `/site/${ale}`)).headers.etag);
  const heardSites = applied(app2, (e) => e?.sites === true);
  await publishCacheEvent(db, { sites: true });
  await heardSites;
  t.notOk(app2.resultsCache.pages.get('en\0/'), 'the start page was dropped');
  t.equal((await get(app2, `/site/${ale}`)).headers.etag, kept, 'a website page was kept');
  t.equal((await get(app2, '/')).statusCode, 200);
});

/** Resolves when `instance` has applied a cache event matching `match` (subscribe before acting). */
function applied(instance: typeof app, match: (e: CacheEvent | null) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const events = instance.resultsCache.events;
    const timer = setTimeout(() => reject(new Error('no cache event within 10 s')), 10_000);
    events.on('event', function on(e: CacheEvent | null) {
      if (!match(e)) return;
      clearTimeout(timer);
      events.off('event', on);
      resolve();
    });
  });
}
