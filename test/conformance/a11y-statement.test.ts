/**
 * Conformance: type 26, Accessibility statement, against its fixture texts. Every fixture site of
 * test/fixtures/sites/a11y-statement/ and every start page its README names is judged, and the
 * outcome is written out here by hand from the README and the statement texts, not from the
 * plugin's helpers: the rating, the findings' rules, the statement chosen and the dates it holds
 * (each with what it dates). Each fixture's expected outcome is written once, in EXPECTED; the
 * tests after it check what else a case is there for (the pages read, the texts of the report).
 *
 * Each folder is served as a real website is, in this file's own test world
 * (https://a11y-<folder>.test/ on port 443, http redirecting), and read through the guarded,
 * memoised probes as in production. No browser: the start page's artifacts are the page as the
 * probe serves it (servedArtifacts). The clock is injected: every case is judged at NOW,
 * 2026-06-01 12:00 UTC (14:00 in Sweden).
 *
 * Every page of these sites shares one frame (FRAME below: the doctype, the head, the site's
 * header and main menu); a fixture file holds what is the page's own: its <title> on the first
 * line, then its <main> and <footer>. The menu's links (Hem, Nyheter, Kontakt) promise no
 * statement and, being chrome, are no feedback function.
 *
 * Ratings by hand (family B, core/rating.ts): a11y = 100, less 25 per critical, 10 per error and
 * 1 per warning rule (each rule once, info 0); rating = max(1, a11y / 100 × 5). No statement:
 * a11y = 0 → 1.00.
 *
 * What every statement holds unless its case says otherwise (DIGG's template): "Den här
 * webbplatsen är helt förenlig …"; a link "vårt kontaktformulär" in the content (the feedback
 * function); "kontakta Myndigheten för digital förvaltning" linking https://www.digg.se/tdosanmalan;
 * "självskattning" (the method); "Senaste bedömningen gjordes den 2026-03-02" (assessment, 91 days
 * before NOW), "Webbplatsen publicerades den 2019-09-23" (neither) and "Redogörelsen uppdaterades
 * senast den 13 mars 2026" (update, 80 days before NOW). Partly compliant statements list
 * "Innehåll som inte är tillgängligt" (two items naming WCAG 1.2.2 and 2.1.1).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import type { PluginResult } from '../../core/plugin-api.js';
import { renderReports } from '../../core/report.js';
import plugin from '../../plugins/a11y-statement/index.js';
import type { SiteHandler } from '../../runners/static-site.js';
import { fixtureRoot, servedArtifacts } from '../helpers/fixture-artifacts.js';
import { startWorld, type WorldSite } from '../helpers/world/index.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const ROOT = fixtureRoot('a11y-statement');

const FRAME_HEAD = `<!DOCTYPE html>
<html lang="sv">
<head>
  <meta charset="utf-8">
`;
const FRAME_MENU = `</head>
<body>
  <header>
    <a href="/">Exempelby kommun</a>
    <nav aria-label="Huvudmeny">
      <ul>
        <li><a href="/">Hem</a></li>
        <li><a href="/nyheter/">Nyheter</a></li>
        <li><a href="/kontakt/">Kontakt</a></li>
      </ul>
    </nav>
  </header>
`;
const FRAME_END = `</body>
</html>
`;

/** A fixture file (its <title> line, then its <main> and <footer>) inside the sites' shared frame. */
function framed(own: string): string {
  const [title, rest] = own.split(/\n(.*)/s);
  return `${FRAME_HEAD}  ${title}\n${FRAME_MENU}${rest}${FRAME_END}`;
}

/** Serves a fixture folder: `<path>/index.html` framed, anything else 404 as a static server answers. */
function framedSite(folder: string): SiteHandler {
  return (req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'https://fixture.test').pathname);
    const file = path.join(ROOT, folder, urlPath, 'index.html');
    if (urlPath.split('/').includes('..')) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
    readFile(file, 'utf8').then(
      (own) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(framed(own)),
      () => res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found'),
    );
  };
}

/** What a start page of a fixture site is judged to be. */
interface Expected {
  rating: number;
  /** The findings as `rule:severity`, in the plugin's order. */
  rules: string[];
  /** The statement chosen, as a path on the site (or a whole URL on its www twin); null when none. */
  statement: string | null;
  /** Every date of the chosen statement in text order, as `YYYY-MM-DD kind` (kind: what its keyword says it dates). */
  dates: string[];
  assessed: string | null;
  updated: string | null;
}

/** The template's dates: assessment 2026-03-02 and update 2026-03-13, both under a year old. */
const TEMPLATE_DATES = { dates: ['2026-03-02 assessment', '2019-09-23 published', '2026-03-13 update'], assessed: '2026-03-02', updated: '2026-03-13' };
const NO_STATEMENT = { rating: 1, statement: null, dates: [], assessed: null, updated: null };

/** Folder → start page → outcome, by hand. */
const EXPECTED: Record<string, Record<string, Expected>> = {
  depth1: {
    // Footer "Tillgänglighetsredogörelse" to the www twin; nothing missing: 100 → 5.00.
    '/': { rating: 5, rules: [], statement: 'https://www.a11y-depth1.test/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
  },
  depth2: {
    // Start → "Om webbplatsen" → statement: depth 2 (warning −1); "delvis förenlig" (error −10),
    // with its list; DIGG's long address (info, 0): 89 → 4.45.
    '/': {
      rating: 4.45,
      rules: ['statement-not-linked-from-start-page:warning', 'compatible-word-partly:error', 'has-canonical-notification-function-link:info'],
      statement: '/om-webbplatsen/tillganglighet/',
      ...TEMPLATE_DATES,
    },
  },
  weak: {
    // "Tillgänglighet på webbplatsen" + "Webbplatsen är delvis förenlig" (weak signal), read in
    // one batch with the premises page (no legal signal) and "Om kommunen", which answers 404: a
    // link to no page (warning −1); "delvis förenlig" −10: 89 → 4.45. Its own dates:
    // "granskades senast i januari 2026" (the 1st assumed), "uppdaterades senast den 2026-02-10".
    '/': {
      rating: 4.45,
      rules: ['link-not-a-page:warning', 'compatible-word-partly:error'],
      statement: '/tillganglighet/',
      dates: ['2026-01-01 assessment', '2026-02-10 update'],
      assessed: '2026-01-01',
      updated: '2026-02-10',
    },
  },
  none: {
    // "Om oss" → "Tillgänglighet i våra lokaler" (no legal signal): no statement, a11y 0 → 1.00.
    '/': { ...NO_STATEMENT, rules: ['no-a11y-statement:critical'] },
    // The footer's "Tillgänglighetsredogörelse" answers 404: a definite answer, no statement there
    // (1.00), the dead link named (warning, nothing left to deduct).
    '/trasig/': { ...NO_STATEMENT, rules: ['no-a11y-statement:critical', 'link-not-a-page:warning'] },
    // "Om kommunen" answers 404: the same.
    '/om-trasig/': { ...NO_STATEMENT, rules: ['no-a11y-statement:critical', 'link-not-a-page:warning'] },
  },
  eservice: {
    // Upstream #912: the e-service's statement (linked first, 0.55) does not end the walk; the
    // website's own behind "Om webbplatsen" is chosen (depth 2, warning −1): 99 → 4.95.
    '/': { rating: 4.95, rules: ['statement-not-linked-from-start-page:warning'], statement: '/om-webbplatsen/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
    // The e-service's own start page reaches only the e-service's statement: judged, with a
    // warning that it is not the website's (−1); "E-tjänsten är inte förenlig" (−10), with its
    // list: 89 → 4.45.
    '/e-tjanster/': {
      rating: 4.45,
      rules: ['statement-about-other-service:warning', 'compatible-word-not:error'],
      statement: '/e-tjanster/bygglov/tillganglighetsredogorelse/',
      ...TEMPLATE_DATES,
    },
  },
  split: {
    // Upstream #1038: h1 "Tillgänglighets&shy;redogörelse" (the title is only the site's name);
    // "<span>delvis</span> förenlig" (−10), with its list; http://www.digg.se/tdosanmalan: 90 → 4.50.
    '/': { rating: 4.5, rules: ['compatible-word-partly:error'], statement: '/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
  },
  digg: {
    // Each the template but for its DIGG link.
    '/https-www/': { rating: 5, rules: [], statement: '/https-www/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
    // https://digg.se/tdosanmalan/ and http://www.digg.se/tdosanmalan: the short address
    // (upstream: no link, −10).
    '/utan-www-snedstreck/': { rating: 5, rules: [], statement: '/utan-www-snedstreck/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
    '/http-www/': { rating: 5, rules: [], statement: '/http-www/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
    // DIGG's long address: info, 0.
    '/lang-adress/': { rating: 5, rules: ['has-canonical-notification-function-link:info'], statement: '/lang-adress/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
    // …/digital-tillganglighet/anmal-bristande-tillganglighet: 99 → 4.95.
    '/gammal/': { rating: 4.95, rules: ['has-old-notification-function-link:warning'], statement: '/gammal/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
    // Only https://www.digg.se/ ("ansvarar för tillsynen"): 90 → 4.50.
    '/ingen/': { rating: 4.5, rules: ['no-notification-function-link:error'], statement: '/ingen/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
  },
  dates: {
    // "uppdaterades senast den 13 januari 2025": 504 days → 1 year (warning −1); "bedömningen
    // gjordes 2025-06-17": 349 days → 0. 99 → 4.95.
    '/dag-och-iso/': {
      rating: 4.95,
      rules: ['updated-date-older-than-1years:warning'],
      statement: '/dag-och-iso/tillganglighetsredogorelse/',
      dates: ['2025-01-13 update', '2025-06-17 assessment'],
      assessed: '2025-06-17',
      updated: '2025-01-13',
    },
    // Month and year, the 1st assumed: "granskades i december 2025" (182 days), "uppdaterades i
    // januari 2025" (516 days → 1 year, −1): 99 → 4.95.
    '/manad/': {
      rating: 4.95,
      rules: ['updated-date-older-than-1years:warning'],
      statement: '/manad/tillganglighetsredogorelse/',
      dates: ['2025-12-01 assessment', '2025-01-01 update'],
      assessed: '2025-12-01',
      updated: '2025-01-01',
    },
    // 2020-11-30 (2009 days) and 2 mars 2021 (1917 days): 5 years or more, each an error: 80 → 4.00.
    '/gammal/': {
      rating: 4,
      rules: ['assessment-date-older-than-5years:error', 'updated-date-older-than-5years:error'],
      statement: '/gammal/tillganglighetsredogorelse/',
      dates: ['2020-11-30 assessment', '2021-03-02 update'],
      assessed: '2020-11-30',
      updated: '2021-03-02',
    },
    // "Vi går igenom webbplatsen varje år": no date at all, both missing: 80 → 4.00.
    '/inga/': {
      rating: 4,
      rules: ['no-assessment-date:error', 'no-updated-date:error'],
      statement: '/inga/tillganglighetsredogorelse/',
      dates: [],
      assessed: null,
      updated: null,
    },
    // The latest of each kind counts (bedömningen 2 februari 2026; reviderades 10 februari 2026
    // over "uppdaterades 2020-05-04", which upstream's .pop() would keep); the planned
    // "granskning … 2026-12-01" is in the future, no assessment: 100 → 5.00.
    '/flera/': {
      rating: 5,
      rules: [],
      statement: '/flera/tillganglighetsredogorelse/',
      dates: ['2026-02-02 assessment', '2026-02-10 update', '2020-05-04 update', '2026-12-01 assessment'],
      assessed: '2026-02-02',
      updated: '2026-02-10',
    },
  },
  burden: {
    // Each "delvis förenlig" (−10) with its list. A 12 § claim with a reason ("eftersom
    // kostnaden …"): warning −1, 89 → 4.45.
    '/med-skal/': {
      rating: 4.45,
      rules: ['compatible-word-partly:error', 'has-unreasonably-burdensome-accommodation:warning'],
      statement: '/med-skal/tillganglighetsredogorelse/',
      ...TEMPLATE_DATES,
    },
    // "… för vårt kartverktyg.": no reason, an error: 80 → 4.00.
    '/utan-skal/': {
      rating: 4,
      rules: ['compatible-word-partly:error', 'has-unreasonably-burdensome-accommodation:error'],
      statement: '/utan-skal/tillganglighetsredogorelse/',
      ...TEMPLATE_DATES,
    },
    // "Vi åberopar inte 12 § …": no claim. 90 → 4.50.
    '/nekad/': { rating: 4.5, rules: ['compatible-word-partly:error'], statement: '/nekad/tillganglighetsredogorelse/', ...TEMPLATE_DATES },
  },
};

const world = await startWorld(t);
const sites = new Map<string, WorldSite>();
for (const folder of Object.keys(EXPECTED)) {
  sites.set(folder, await world.site(`a11y-${folder}.test`, { handler: framedSite(folder), aliases: folder === 'depth1' ? ['www.a11y-depth1.test'] : [] }));
}

/** Runs the plugin on a start page as served, with fresh probes (a run's own memo). */
async function judge(folder: string, start: string): Promise<PluginResult> {
  const url = new URL(start, sites.get(folder)!.url).href;
  const probes = createProbes(world.guard());
  return plugin.run(await servedArtifacts(url, probes, 'sv'), { probes, signal: AbortSignal.timeout(20_000), now: NOW });
}
const data = (r: PluginResult) => r.data as any;
const statementUrl = (folder: string, at: string) => new URL(at, sites.get(folder)!.url).href;

t.test('the fixture folders and start pages are the README\'s, each with its outcome written out', async (t) => {
  const folders = (await readdir(ROOT, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  t.same(Object.keys(EXPECTED).sort(), folders);
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `([\w-]+)` \| (.+?) \|/gm)].map((m) => [m[1], [...m[2].matchAll(/`([^`]+)`/g)].map((p) => p[1])]);
  t.same(Object.fromEntries(rows), Object.fromEntries(Object.entries(EXPECTED).map(([folder, starts]) => [folder, Object.keys(starts)])));
  for (const folder of folders) {
    for (const start of Object.keys(EXPECTED[folder])) {
      const own = await readFile(path.join(ROOT, folder, start, 'index.html'), 'utf8');
      t.match(own.split('\n')[0], /^<title>[^<]+<\/title>$/, `${folder}${start}: its own part starts with its title`);
    }
  }
});

for (const [folder, starts] of Object.entries(EXPECTED)) {
  t.test(`${folder}: every start page judged as written out`, async (t) => {
    for (const [start, expected] of Object.entries(starts)) {
      const r = await judge(folder, start);
      const at = `${folder}${start}`;
      t.equal(r.rating, expected.rating, `${at}: rating`);
      t.same(r.ratings, { a11y: expected.rating }, `${at}: a11y`);
      t.same(r.findings.map((f) => `${f.rule}:${f.severity}`), expected.rules, `${at}: rules`);
      t.equal(data(r).statement?.url ?? null, expected.statement && statementUrl(folder, expected.statement), `${at}: the statement chosen`);
      t.same((data(r).dates ?? []).map((d: any) => `${d.date} ${d.kind}`), expected.dates, `${at}: dates`);
      t.equal(data(r).assessment_date ?? null, expected.assessed, `${at}: assessment date`);
      t.equal(data(r).last_updated_date ?? null, expected.updated, `${at}: last update`);
    }
  });
}

t.test('depth1: the statement on the www twin, read in the first batch with "Om oss"', async (t) => {
  const r = await judge('depth1', '/');
  const statement = 'https://www.a11y-depth1.test/tillganglighetsredogorelse/';
  t.same(data(r).statement, {
    url: statement,
    depth: 1,
    link_text: 'Tillgänglighetsredogörelse',
    linked_from: 'https://a11y-depth1.test/',
    signal: 'strong',
    about: 'website',
    about_reason: 'compliance: webbplatsen är helt förenlig',
    title: 'Tillgänglighetsredogörelse – Exempelby kommun',
    h1: 'Tillgänglighetsredogörelse',
  });
  t.equal(data(r).statement_choice, 'about-the-website');
  // The two promising links of the start page (0.55 + 0.01 footer, 0.25 + 0.01) in one batch.
  t.same(data(r).visited, [
    { url: statement, final_url: statement, depth: 1, link_text: 'Tillgänglighetsredogörelse', precision: 0.56, status: 200, statement: true },
    { url: 'https://a11y-depth1.test/om-oss/', final_url: 'https://a11y-depth1.test/om-oss/', depth: 1, link_text: 'Om oss', precision: 0.26, status: 200, statement: false },
  ]);
  t.equal(data(r).pages_read, 3);
  t.equal(data(r).links_left, 0, 'the statement\'s "Om oss" on www is the page already read');
  t.same([data(r).unreadable_pages, data(r).not_pages], [[], []]);
  t.match(data(r), {
    compliance: { level: 'full', phrase: 'helt förenlig' },
    inaccessible_content: null, // not asked of a fully compliant website
    feedback_function: { kind: 'link', href: 'https://www.a11y-depth1.test/kontakt/formular/', text: 'vårt kontaktformulär' },
    notification_function_link: { href: 'https://www.digg.se/tdosanmalan', text: 'kontakta Myndigheten för digital förvaltning och påtala det', kind: 'short' },
    unreasonably_burdensome_accommodation: null,
    evaluation_method: 'självskattning',
    assessment_age_years: 0,
    last_updated_age_years: 0,
    text_cut: null,
  });
  t.same(r.summary, {
    sv: `Tillgänglighetsredogörelse hittad på ${statement} (1 klick från startsidan); den anger att webbplatsen är helt förenlig.`,
    en: `Accessibility statement found at ${statement} (1 click from the start page); it states that the website is fully compliant.`,
  });
  t.equal(renderReports(r).sv.a11y, 'Tillgänglighet: Betyg: 5.00\n- Inget att förbättra hittades.');
});

t.test('depth2: "Om webbplatsen" is a relative link without a leading slash', async (t) => {
  const r = await judge('depth2', '/');
  t.match(data(r).statement, { depth: 2, link_text: 'Tillgänglighetsredogörelse', linked_from: 'https://a11y-depth2.test/om-webbplatsen/' });
  t.same(data(r).visited.map((v: any) => [v.url, v.depth, v.precision]), [
    ['https://a11y-depth2.test/om-webbplatsen/', 1, 0.3],
    ['https://a11y-depth2.test/om-webbplatsen/tillganglighet/', 2, 0.55],
  ]);
  t.same(data(r).inaccessible_content, { found: true, heading: 'Innehåll som inte är tillgängligt', items: 2, wcag_criteria: ['1.2.2', '2.1.1'] });
  t.same(renderReports(r).sv.a11y.split('\n'), [
    'Tillgänglighet: Betyg: 4.45',
    '- Tillgänglighetsredogörelsen länkas inte från startsidan: den nåddes först efter 2 klick (via länken ”Tillgänglighetsredogörelse” på https://a11y-depth2.test/om-webbplatsen/). DIGG kräver en tydlig länk på startsidan eller från alla sidor, till exempel i sidfoten.',
    '- Anger själv att webbplatsen endast är delvis förenlig med lagen (”delvis förenlig”).',
  ]);
});

t.test('weak: the premises page is no statement, the dead "Om kommunen" a link to no page', async (t) => {
  const r = await judge('weak', '/');
  t.match(data(r).statement, { depth: 1, signal: 'weak', about: 'website', about_reason: 'h1: Tillgänglighet på webbplatsen' });
  t.same(data(r).visited.map((v: any) => [v.url, v.status, v.statement]), [
    ['https://a11y-weak.test/tillganglighet/', 200, true],
    ['https://a11y-weak.test/lokaler/', 200, false],
    ['https://a11y-weak.test/om-kommunen/', 404, false],
  ]);
  t.same(data(r).unreadable_pages, []);
  t.same(data(r).not_pages, [{ url: 'https://a11y-weak.test/om-kommunen/', status: 404, why: 'status 404', link_text: 'Om kommunen', linked_from: 'https://a11y-weak.test/' }]);
  t.equal(r.findings[0].text.en, 'A link leads to no page ("Om kommunen" to https://a11y-weak.test/om-kommunen/ on https://a11y-weak.test/: status 404).');
  t.same(data(r).notification_function_link, { href: 'https://digg.se/tdosanmalan/', text: 'kontakta Myndigheten för digital förvaltning och påtala det', kind: 'short' });
  t.same(data(r).feedback_function, { kind: 'email', href: 'mailto:tillganglighet@exempelby.test', text: 'tillganglighet@exempelby.test' });
  t.equal(data(r).evaluation_method, 'extern part');
});

t.test('none: no statement, and a dead statement link is no statement either', async (t) => {
  const r = await judge('none', '/');
  t.equal(data(r).pages_read, 3);
  t.same(data(r).visited.map((v: any) => [v.url, v.depth]), [['https://a11y-none.test/om-oss/', 1], ['https://a11y-none.test/om-oss/lokaler/', 2]]);
  t.equal(r.summary.sv, 'Ingen tillgänglighetsredogörelse hittades på startsidan eller 2 sidor som den leder till.');
  t.same(renderReports(r).sv.a11y.split('\n'), [
    'Tillgänglighet: Betyg: 1.00',
    '- Ingen tillgänglighetsredogörelse hittades: varken startsidan eller 2 sidor som länkas därifrån (sidfot, ”Om webbplatsen”, ”Tillgänglighet”) är en redogörelse. Lagen (2018:1937) kräver en.',
  ]);

  // The footer's "Tillgänglighetsredogörelse" answers 404: said so, rated as any missing statement.
  const dead = await judge('none', '/trasig/');
  t.same(dead.ratings, { a11y: 1 });
  t.same(data(dead).unreadable_pages, []);
  t.same(data(dead).not_pages, [{ url: 'https://a11y-none.test/saknas/tillganglighetsredogorelse/', status: 404, why: 'status 404', link_text: 'Tillgänglighetsredogörelse', linked_from: 'https://a11y-none.test/trasig/' }]);
  t.same(renderReports(dead).sv.a11y.split('\n'), [
    'Tillgänglighet: Betyg: 1.00',
    '- Ingen tillgänglighetsredogörelse hittades: varken startsidan eller 1 sida som länkas därifrån (sidfot, ”Om webbplatsen”, ”Tillgänglighet”) är en redogörelse. Lagen (2018:1937) kräver en.',
    '- En länk leder inte till någon sida (”Tillgänglighetsredogörelse” till https://a11y-none.test/saknas/tillganglighetsredogorelse/ på https://a11y-none.test/trasig/: status 404).',
  ]);

  const deadAbout = await judge('none', '/om-trasig/');
  t.same(data(deadAbout).not_pages.map((p: any) => p.url), ['https://a11y-none.test/saknas/om-kommunen/']);
});

t.test('eservice: the website\'s statement chosen, the e-service\'s listed beside it', async (t) => {
  const r = await judge('eservice', '/');
  t.equal(data(r).statement_choice, 'about-the-website');
  t.same(data(r).other_statements, [{
    url: 'https://a11y-eservice.test/e-tjanster/bygglov/tillganglighetsredogorelse/',
    depth: 1,
    about: 'other-service',
    about_reason: 'h1: Tillgänglighetsredogörelse för e-tjänsten Bygglov',
  }]);
  t.same(data(r).compliance, { level: 'full', phrase: 'helt förenlig' }, 'the website\'s status, not the e-service\'s "inte förenlig"');

  const only = await judge('eservice', '/e-tjanster/');
  t.equal(data(only).statement_choice, 'only-other-service-found');
  t.same(data(only).other_statements, []);
  t.same(data(only).compliance, { level: 'not', phrase: 'inte förenlig' });
});

t.test('split: recognised by its h1 with a soft hyphen; "delvis" read across markup', async (t) => {
  const r = await judge('split', '/');
  t.match(data(r).statement, { h1: 'Tillgänglighetsredogörelse', title: 'Exempelby kommun', signal: 'strong' });
  t.same(data(r).compliance, { level: 'partial', phrase: 'delvis förenlig' });
  t.equal(data(r).notification_function_link.kind, 'short');
});

t.test('dates: ages in whole 365-day years, the texts of the old ones', async (t) => {
  const r = await judge('dates', '/gammal/');
  t.same([data(r).assessment_age_years, data(r).last_updated_age_years], [5, 5]);
  t.same(r.findings.map((f) => f.text.sv), ['Bedömningen är äldre än 5 år (2020-11-30).', 'Uppdateringsdatum äldre än 5 år (2021-03-02).']);
});

t.test('burden: the claim, its reason and the texts', async (t) => {
  const withReason = await judge('burden', '/med-skal/');
  t.same(data(withReason).unreasonably_burdensome_accommodation, { phrase: 'Oskäligt betungande', reasoned: true, reason: 'eftersom' });
  const withoutReason = await judge('burden', '/utan-skal/');
  t.same(data(withoutReason).unreasonably_burdensome_accommodation, { phrase: 'Oskäligt betungande', reasoned: false, reason: null });
  t.equal(withoutReason.findings[1].text.sv, 'Hävdar oskäligt betungande anpassning (”Oskäligt betungande”) utan att ange skäl: 12 § lagen (2018:1937) kräver en bedömning som redovisas.');
  const denied = await judge('burden', '/nekad/');
  t.equal(data(denied).unreasonably_burdensome_accommodation, null);
});

