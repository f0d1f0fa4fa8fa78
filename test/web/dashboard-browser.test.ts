/**
 * The public dashboard in a real Chromium against the real service on loopback: sorting,
 * filtering and searching with JavaScript off, the site page's chart against the stored monthly
 * scores, markup in titles and reports staying text, the language switch, and on every dashboard
 * page in Swedish and English at a phone's, a tablet's and a desktop's width: no sideways scroll,
 * no overlapping text, axe-core (WCAG 2.2 A/AA) clean (test/helpers/layout.ts). Screenshots of the main pages
 * go to .tap/screenshots/ for review.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'puppeteer-core';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { buildTestApi } from '../helpers/api.js';
import { CUSTOMER_TITLE, XSS_REPORT, XSS_TITLE, seedDashboard } from '../helpers/dashboard.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { checkLayout } from '../helpers/layout.js';
import { PAGE_SIZE } from '../../api/web/dashboard/index.js';

const SHOTS = path.join(PROJECT_ROOT, '.tap', 'screenshots');
await mkdir(SHOTS, { recursive: true });

const api = await buildTestApi(t);
const { app, db } = api;
const data = await seedDashboard(db);
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const browser = await testBrowserPool().acquire();

/** A fresh browser profile (no cookies) with a page in it; closed at the end of the test. */
async function freshPage(t: { teardown(fn: () => unknown): void }, options: { js?: boolean; lang?: string } = {}): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.setJavaScriptEnabled(options.js ?? true);
  // The pages' links and forms land on #results, and site.css scrolls there smoothly unless the
  // reader asks for reduced motion: for a few hundred ms after 'load' every element below moves,
  // and a click aimed at where a link was lands on a table cell (no navigation: the 30 s
  // "Navigation timeout" flake, seen under load). A reader who wants no motion gets it instantly.
  await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
  if (options.lang) await page.setExtraHTTPHeaders({ 'accept-language': options.lang });
  return { page, context };
}

const titles = (page: Page) => page.$$eval('table[data-table="public-sector"] tbody th', (ths) => ths.map((th) => th.textContent!.trim()));

t.test('start page without JavaScript: every public-sector website, searched, filtered and sorted through the URL', async (t) => {
  const { page } = await freshPage(t, { js: false, lang: 'sv' });
  const res = await page.goto(`${base}/`);
  t.equal(res!.status(), 200);
  // 311 websites (310 organisations and the markup-titled one), 50 per page.
  t.equal(PAGE_SIZE, 50);
  t.equal(await page.$eval('#results', (h) => h.textContent), '311 webbplatser');
  t.equal(await page.$eval('[data-showing]', (p) => p.textContent), 'Visar 1–50 av 311.');
  const all: string[] = [];
  for (let n = 1; n <= 7; n++) {
    if (n > 1) await Promise.all([page.waitForNavigation(), page.click('.pagination a[rel="next"]')]);
    t.equal(await page.$eval('.pagination a[aria-current="page"]', (a) => a.textContent!.replace(/\D/g, '')), String(n));
    all.push(...(await titles(page)));
  }
  t.equal(page.url(), `${base}/?page=7#results`);
  t.equal(await page.$$eval('.pagination a[rel="next"]', (as) => as.length), 0, 'the last page');
  t.equal(all.length, 311);
  t.equal(new Set(all).size, 311, 'no website twice');
  t.same(all.slice(0, 3), [XSS_TITLE, 'Ale kommun', 'Alingsås kommun'], 'by name');
  t.same(all.slice(-3), ['Östra Göinge kommun', 'Överkalix kommun', 'Övertorneå kommun']);
  const at = (title: string) => all.indexOf(title);
  t.ok(at('Ydre kommun') < at('Åre kommun') && at('Åre kommun') < at('Ängelholms kommun') && at('Ängelholms kommun') < at('Örebro kommun'), 'Swedish order: z, å, ä, ö');
  await page.goto(`${base}/`);
  t.notOk(all.includes(CUSTOMER_TITLE), 'no customer site');
  await page.screenshot({ path: path.join(SHOTS, 'dashboard-start-sv.png') });

  // Search (any case), as a person types it into the form.
  await page.type('#q', 'GOTLAND');
  await Promise.all([page.waitForNavigation(), page.click('.filters button[type="submit"]')]);
  t.match(page.url(), /\/\?q=GOTLAND&category=#results$/);
  t.same(await titles(page), ['Region Gotland']);
  await page.goto(`${base}/?q=${encodeURIComponent(CUSTOMER_TITLE)}`);
  t.same(await titles(page), [], 'the customer site is not found either');

  // Filter by category.
  await page.goto(`${base}/`);
  await page.select('#category', 'Region');
  await Promise.all([page.waitForNavigation(), page.click('.filters button[type="submit"]')]);
  const regions = await page.$$eval('table[data-table="public-sector"] tbody tr td:nth-of-type(1)', (tds) => tds.map((td) => td.textContent!.trim()));
  t.equal(regions.length, 21);
  t.ok(regions.every((c) => c === 'Region'));

  // Sort by overall score: the column heading is a link; the filter stays.
  await Promise.all([page.waitForNavigation(), page.click('thead th:nth-of-type(3) a')]);
  t.match(page.url(), /\/\?category=Region&sort=overall&dir=desc#results$/);
  t.equal(await page.$eval('thead th:nth-of-type(3)', (th) => th.getAttribute('aria-sort')), 'descending');
  t.equal((await titles(page))[0], 'Region Gotland', 'the only rated region first');
  await page.goto(`${base}/?sort=overall&dir=desc`);
  // Overall of the latest month: Åre 4.2, Gotland 3.8, Älvdalen 3.5, Ale 3.1, Salem 2.7, the markup one 2.5.
  const best = ['Åre kommun', 'Region Gotland', 'Älvdalens kommun', 'Ale kommun', 'Salems kommun', XSS_TITLE];
  t.same((await titles(page)).slice(0, 6), best);
  t.same(await page.$$eval('table[data-table="public-sector"] tbody tr:nth-child(-n+6) td:nth-of-type(2)', (tds) => tds.map((td) => td.textContent)), ['4,20', '3,80', '3,50', '3,10', '2,70', '2,50'], 'Swedish decimal comma');
  await Promise.all([page.waitForNavigation(), page.click('thead th:nth-of-type(3) a')]);
  t.equal(await page.$eval('thead th:nth-of-type(3)', (th) => th.getAttribute('aria-sort')), 'ascending');
  const ascending = await titles(page);
  t.same(ascending.slice(0, 6), [...best].reverse(), 'worst first');
  t.equal(ascending[6], 'Alingsås kommun', 'then the unrated, by name');

  // The downloads on the page are for what it shows.
  await page.goto(`${base}/?q=kommun&category=Municipality&sort=a11y&dir=asc`);
  t.same(await page.$$eval('.downloads a', (as) => as.map((a) => a.getAttribute('href'))), [
    '/download/public-sector-scores.csv?q=kommun&category=Municipality&sort=a11y&dir=asc',
    '/download/public-sector-scores.json?q=kommun&category=Municipality&sort=a11y&dir=asc',
  ]);
  const json = await fetch(`${base}/download/public-sector-scores.json?q=kommun&category=Municipality&sort=a11y&dir=asc`).then((r) => r.json());
  t.equal(json.result_count, 290, 'the download holds every match, not only the page');
  t.same(json.data.slice(0, PAGE_SIZE).map((d: any) => d.title), await titles(page), 'the JSON download lists what the page lists, in its order');
  t.match(await page.$eval('.licence', (p) => p.textContent), /CC BY-SA 4\.0.*webperf open data/s);
});

t.test('site page: open record, chart equal to the stored monthly scores, latest public results with reports', async (t) => {
  const id = data.rated['Ale kommun'];
  const { page } = await freshPage(t, { lang: 'en' });
  const res = await page.goto(`${base}/site/${id}`);
  t.equal(res!.status(), 200);
  t.equal(await page.$eval('h1', (h) => h.textContent), 'Ale kommun');
  t.same(await page.$$eval('[data-record] dd', (dds) => dds.map((d) => [d.getAttribute('data-field'), d.textContent!.trim()])), [
    ['title', 'Ale kommun'], ['category', 'Municipality'], ['url', 'https://www.ale.se/'], ['sameAs', 'http://www.wikidata.org/entity/Q498470'],
  ]);

  const stored = await db
    .selectFrom('monthly_scores')
    .select(['timeperiod', 'type_of_score', 'score_sum', 'score_count'])
    .where('site_id', '=', id)
    .orderBy('timeperiod')
    .orderBy('type_of_score')
    .execute();
  t.equal(stored.length, 15, 'three months × five score types');
  const want = stored.map((s) => [s.timeperiod, s.type_of_score, Math.round((Number(s.score_sum) / s.score_count) * 100) / 100]).sort();
  const table = await page.$$eval('table[data-chart-table] tbody tr', (trs) => trs.flatMap((tr) => [...tr.querySelectorAll('td')].map((td) => [tr.querySelector('th')!.textContent, td.dataset.type, Number(td.dataset.value)])));
  t.same([...table].sort(), want, 'the table holds exactly the stored monthly scores');
  const points = await page.$$eval('svg[data-chart] g.series circle', (cs) => cs.map((c) => [c.getAttribute('data-month'), c.closest('g')!.getAttribute('data-type'), Number(c.getAttribute('data-score'))]));
  t.same([...points].sort(), want, 'the chart draws exactly the stored monthly scores');
  t.same(await page.$$eval('table[data-chart-table] tbody th', (ths) => ths.map((th) => th.textContent)), ['2026-08', '2026-09', '2026-10']);
  t.match(await page.$eval('svg[data-chart] desc', (d) => d.textContent), /from 2026-08 to 2026-10/);

  // The latest public result per test type; the later private test (rated 1.01) is not there.
  const latest = await db
    .selectFrom('latest_results as l')
    .innerJoin('test_results as r', 'r.id', 'l.result_id')
    .select(['l.type_of_test', 'r.rating'])
    .where('l.site_id', '=', id)
    .orderBy('l.type_of_test')
    .execute();
  t.same(await page.$$eval('section.result', (ss) => ss.map((s) => [Number(s.getAttribute('data-type-of-test')), Number(s.querySelector('[data-rating]')!.getAttribute('data-rating'))])), latest.map((l) => [l.type_of_test, Number(l.rating)]));
  t.notOk((await page.content()).includes('1.01'), 'nothing of the private test');
  t.equal(await page.$eval('section[data-type-of-test="2"] [data-report="overall"]', (p) => p.textContent), 'Test type 2\nRating: 3.10');
  t.equal(await page.$eval('section[data-type-of-test="2"] time', (p) => p.getAttribute('datetime')), '2026-10-14T10:00:00.000Z');

  // The links to the same data in the API answer.
  const links = await page.$$eval('.api-links a', (as) => as.map((a) => a.getAttribute('href')));
  t.same(links, [`/item/${id}`, '/public-sector/', `/stats/${id}?lang=en`, `/stats_per_month/${id}`]);
  t.equal((await fetch(`${base}${links[0]}`)).status, 200);
  t.equal((await fetch(`${base}${links[2]}`)).status, 401, 'results need a key, as the page says');
});

t.test('a title and a report made of markup stay text (JavaScript on, no dialog, no element)', async (t) => {
  const { page } = await freshPage(t);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${base}/?q=${encodeURIComponent('<script>')}`);
  t.same(await titles(page), [XSS_TITLE]);
  t.equal(await page.$eval('#q', (i) => (i as HTMLInputElement).value), '<script>', 'the search box shows what was searched');
  await page.goto(`${base}/site/${data.xssId}`);
  t.equal(await page.$eval('h1', (h) => h.textContent), XSS_TITLE);
  t.equal(await page.title(), `${XSS_TITLE} – webperf`);
  t.equal(await page.$eval('[data-report="overall"]', (p) => p.textContent), XSS_REPORT);
  t.equal(await page.$$eval('script', (s) => s.length), 0, 'no script element at all');
  t.equal(await page.$$eval('main img', (s) => s.length), 0, 'no image made from the report');
  await page.goto(`${base}/lang/en?next=${encodeURIComponent(`/site/${data.xssId}`)}`);
  t.equal(await page.$eval('h1', (h) => h.textContent), XSS_TITLE);
  t.same(dialogs, [], 'nothing ran');
});

t.test('the language switch keeps the page and the choice', async (t) => {
  const { page } = await freshPage(t, { js: false, lang: 'sv-SE,sv' });
  await page.goto(`${base}/?category=Region`);
  t.equal(await page.$eval('html', (h) => h.lang), 'sv');
  await Promise.all([page.waitForNavigation(), page.click('.langs a[hreflang="en"]')]);
  t.equal(page.url(), `${base}/?category=Region`);
  t.equal(await page.$eval('html', (h) => h.lang), 'en');
  t.equal(await page.$eval('h1', (h) => h.textContent), 'Public-sector websites');
  await page.screenshot({ path: path.join(SHOTS, 'dashboard-start-en.png') });
  await page.goto(`${base}/site/${data.rated['Region Gotland']}`);
  t.equal(await page.$eval('html', (h) => h.lang), 'en', 'the choice outlives Accept-Language');
  await Promise.all([page.waitForNavigation(), page.click('.langs a[hreflang="sv"]')]);
  t.equal(await page.$eval('h2', (h) => h.textContent), 'Uppgifter');
});

t.test('every dashboard page reads well at 360, 768 and 1280 px, in Swedish and English: no sideways scroll, no overlapping text, no axe violation', async (t) => {
  // The whole first page of the list (50 rows, the widest titles), the list filtered to the 21
  // regions (sorted, with rated rows), the last page (with the page links), a rated site page with
  // its chart and results, and the page a customer site's address answers (404).
  const pages = ['/', '/?category=Region&sort=overall&dir=desc', '/?page=7', `/site/${data.rated['Åre kommun']}`, `/site/${data.customerId}`];
  for (const lang of ['sv', 'en']) {
    const { page } = await freshPage(t, { lang });
    for (const p of pages) {
      await page.goto(`${base}${p}`);
      t.equal(await page.$eval('html', (h) => h.lang), lang, `${p} in ${lang}`);
      await checkLayout(t, page, `${lang} ${p}`);
    }
    await page.setViewport({ width: 360, height: 740 });
    await page.goto(`${base}/`);
    await page.screenshot({ path: path.join(SHOTS, `dashboard-start-${lang}-360.png`), fullPage: true });
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${base}/site/${data.rated['Åre kommun']}`);
    await page.screenshot({ path: path.join(SHOTS, `dashboard-site-${lang}.png`), fullPage: true });
  }
});
