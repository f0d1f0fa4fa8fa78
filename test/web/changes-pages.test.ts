/**
 * "What changed since the last test" (issue 31) on the dashboard's and the portal's site pages,
 * as people see them: in Chromium, in Swedish and English, at 360, 768 and 1280 px with axe
 * (test/helpers/layout.ts), from results stored as a runner stores them: per category the
 * findings added, fixed and changed, each with its test type; a site with one test says there is
 * nothing to compare with yet.
 */
import t from 'tap';
import type { Finding } from '../../core/plugin-api.js';
import { checkLayout } from '../helpers/layout.js';
import { browserContext, portalUser, premiumSite, signIn, startPortal } from '../helpers/portal.js';
import { outcome, seedRun } from '../helpers/seed.js';

const LONG_URL = 'https://www.kommun.example/kommun-och-politik/sammantraden-och-protokoll/kommunfullmaktige/handlingar-2026/protokoll-2026-11-20-med-bilagor.pdf';
const f = (rule: string, category: Finding['category'], severity: Finding['severity'], count: number, sv: string, en: string): Finding => ({ rule, category, severity, count, text: { sv, en } });

t.test('the site pages show what changed since the last test, per category, in both languages', async (t) => {
  const api = await startPortal(t);
  const { db, base } = api;
  const siteId = await premiumSite(api, 'Exempelby kommun', 'https://www.kommun.example/', 50);
  await db.updateTable('sites').set({ public_sector: true, org_category: 'Municipality' }).where('id', '=', siteId).execute();
  const fresh = await premiumSite(api, 'Nyby kommun', 'https://nyby.example/', 50);
  await db.updateTable('sites').set({ public_sector: true, org_category: 'Municipality' }).where('id', '=', fresh).execute();
  const day = (d: string) => new Date(`${d}T08:00:00Z`);
  await seedRun(db, siteId, { url: 'https://www.kommun.example/', testDate: day('2026-11-01'), outcomes: [
    { ...outcome(18, 4.6, { a11y: 4.6 }), findings: [f('color-contrast', 'a11y', 'error', 2, '2 element har för låg kontrast', '2 elements have too little contrast')] },
    { ...outcome(21, 4.5, { infosec: 4.5 }), findings: [f('hsts-missing', 'infosec', 'error', 1, 'HSTS saknas', 'HSTS is missing')] },
  ] });
  await seedRun(db, siteId, { url: 'https://www.kommun.example/', testDate: day('2026-11-20'), outcomes: [
    { ...outcome(18, 3.9, { a11y: 3.9 }), findings: [
      f('color-contrast', 'a11y', 'error', 14, '14 element har för låg kontrast', '14 elements have too little contrast'),
      f('link-name', 'a11y', 'error', 1, `En länk saknar namn: ${LONG_URL}`, `A link has no name: ${LONG_URL}`),
    ] },
    { ...outcome(21, 5, { infosec: 5 }), findings: [] },
  ] });
  await seedRun(db, fresh, { url: 'https://nyby.example/', testDate: day('2026-11-20'), outcomes: [{ ...outcome(18, 5, { a11y: 5 }), findings: [] }] });
  await portalUser(api, 'webb@kommun.example', 'ett långt lösenord', 'standard', [siteId, fresh]);

  const expected = {
    sv: { title: 'Vad har ändrats sedan förra testet', a11y: ['Nytt: En länk saknar namn', 'Ändrat: 14 element har för låg kontrast'], infosec: ['Åtgärdat: HSTS saknas'], none: 'Det finns inget tidigare test att jämföra med.' },
    en: { title: 'What changed since the last test', a11y: ['New: A link has no name', 'Changed: 14 elements have too little contrast'], infosec: ['Fixed: HSTS is missing'], none: 'There is no earlier test to compare with.' },
  };
  await Promise.all((['sv', 'en'] as const).map(async (lang) => {
    const { page } = await browserContext(t);
    await page.goto(`${base}/lang/${lang}?next=/`);
    const read = () => page.$eval('[data-changes]', (s) => ({
      title: s.querySelector('h2')!.textContent!.trim(),
      lists: Object.fromEntries([...s.querySelectorAll('ul[data-category]')].map((ul) => [(ul as HTMLElement).dataset.category!, [...ul.querySelectorAll('li')].map((li) => (li as HTMLElement).innerText.trim())])),
      state: s.querySelector('[data-changes-state]')?.textContent?.trim() ?? null,
    }));
    const check = async (where: string) => {
      const seen = await read();
      t.equal(seen.title, expected[lang].title, `${where} (${lang}): the heading`);
      t.strictSame(Object.keys(seen.lists), ['a11y', 'infosec'], `${where} (${lang}): the categories with changes`);
      t.strictSame(seen.lists.a11y.map((l: string) => l.replace(/:\s+https:\S+/, '').replace(/\s+\(.*\)$/, '')), expected[lang].a11y);
      t.strictSame(seen.lists.infosec.map((l: string) => l.replace(/\s+\(.*\)$/, '')), expected[lang].infosec);
      const names = { 18: api.registry.testType(18)!.names[lang], 21: api.registry.testType(21)!.names[lang] };
      t.ok(seen.lists.a11y.every((l: string) => l.endsWith(`(${names[18]})`)) && seen.lists.infosec.every((l: string) => l.endsWith(`(${names[21]})`)), `${where} (${lang}): each with its test type`);
      await checkLayout(t, page, `${where} what changed (${lang})`);
    };
    await page.goto(`${base}/site/${siteId}`);
    await check('dashboard /site/{id}');
    await page.goto(`${base}/site/${fresh}`);
    t.equal((await read()).state, expected[lang].none, `dashboard (${lang}): a site tested once`);
    t.equal(await signIn(page, base, 'webb@kommun.example', 'ett långt lösenord'), 200);
    await page.goto(`${base}/portal/sites/${siteId}`);
    await check('portal /portal/sites/{id}');
  }));
});
