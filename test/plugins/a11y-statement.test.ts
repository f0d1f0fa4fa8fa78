/**
 * Type 26, Accessibility statement (plugins/a11y-statement), and its conformance to the fixture
 * texts in test/fixtures/sites/a11y-statement/: each folder there is a website of the fictional
 * Exempelby kommun, served as a real one in this file's own test world (https on port 443 under
 * a `.test` name, http redirecting), read through the guarded, memoised probes as in production.
 * Several folders hold more than one start page (/<case>/), each linking its own statement.
 * No browser: the start page's artifacts are the page as the probe serves it (servedArtifacts).
 * The clock is injected: every case is judged at NOW, 2026-06-01 12:00 UTC.
 *
 * Expected ratings are worked out here from the plugin's rules (family B, core/rating.ts): a11y
 * starts at 100 and each failing rule deducts once, 25 (critical), 10 (error), 1 (warning),
 * 0 (info); rating = max(1, a11y / 100 × 5); overall = a11y. No statement: a11y = 0 → 1.00.
 *
 * The statement texts follow DIGG's template (fixture helper below: what every statement holds
 * unless a case says otherwise): "Den här webbplatsen är helt förenlig …", a link "vårt
 * kontaktformulär" in the content (the feedback function), "kontakta Myndigheten för digital
 * förvaltning" linking https://www.digg.se/tdosanmalan, "självskattning" (the method),
 * "Senaste bedömningen gjordes den 2026-03-02" (assessment, 91 days before NOW),
 * "Webbplatsen publicerades den 2019-09-23" (neither kind) and "Redogörelsen uppdaterades senast
 * den 13 mars 2026" (update, 80 days before NOW). Partly compliant statements list "Innehåll som
 * inte är tillgängligt" (two items naming WCAG 1.2.2 and 2.1.1).
 */
import path from 'node:path';
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { NOT_RATED, type Artifacts, type PluginResult } from '../../core/plugin-api.js';
import { renderReports } from '../../core/report.js';
import { findDates } from '../../plugins/a11y-statement/dates.js';
import { diggLinkKind } from '../../plugins/a11y-statement/digg.js';
import { readPage } from '../../plugins/a11y-statement/html.js';
import plugin from '../../plugins/a11y-statement/index.js';
import { linkPrecision, sameSite } from '../../plugins/a11y-statement/links.js';
import { fixtureRoot, makeArtifacts, servedArtifacts } from '../helpers/fixture-artifacts.js';
import { startWorld } from '../helpers/world/index.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const world = await startWorld(t);
const folder = (name: string) => path.join(fixtureRoot('a11y-statement'), name);
const serve = (name: string, aliases: string[] = []) => world.site(`a11y-${name}.test`, { root: folder(name), aliases });
const [depth1, depth2, weak, none, eservice, split, digg, dates, burden] = await Promise.all([
  serve('depth1', ['www.a11y-depth1.test']),
  serve('depth2'),
  serve('weak'),
  serve('none'),
  serve('eservice'),
  serve('split'),
  serve('digg'),
  serve('dates'),
  serve('burden'),
]);
const down = await world.site('a11y-down.test', {
  handler: (_req, res) => void res.writeHead(503, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html lang="sv"><title>Underhåll</title><h1>Sidan är tillfälligt nere</h1></html>'),
});

/** Runs the plugin on the start page at `url` as served, with fresh probes (a run's own memo). */
async function judge(url: string, artifacts?: Artifacts): Promise<PluginResult> {
  const probes = createProbes(world.guard());
  const served = artifacts ?? (await servedArtifacts(url, probes, 'sv'));
  return plugin.run(served, { probes, signal: AbortSignal.timeout(20_000), now: NOW });
}
/** The findings as `rule:severity`, in the order the plugin gives them. */
const found = (r: PluginResult) => r.findings.map((f) => `${f.rule}:${f.severity}`);
const data = (r: PluginResult) => r.data as any;

/** A statement judged as the website's own, with everything found (the template's values). */
const templateChecks = {
  feedback_function: { kind: 'link', href: null as string | null, text: 'vårt kontaktformulär' },
  notification_function_link: { href: 'https://www.digg.se/tdosanmalan', text: 'kontakta Myndigheten för digital förvaltning och påtala det', kind: 'short' },
  unreasonably_burdensome_accommodation: null,
  evaluation_method: 'självskattning',
  assessment_date: '2026-03-02',
  assessment_age_years: 0,
  last_updated_date: '2026-03-13',
  last_updated_age_years: 0,
};

t.test('type 26 identity', async (t) => {
  t.equal(plugin.meta.id, 26);
  t.same(plugin.meta.categories, ['a11y']);
  t.same(plugin.meta.requiredArtifacts, ['mainDocument']);
  t.equal(plugin.meta.names.sv, 'Tillgänglighetsredogörelse');
  t.equal(plugin.meta.names.fi, 'Saavutettavuusseloste');
});

t.test('links are resolved and compared as URLs', async (t) => {
  const page = readPage('<body><a href="om/">Om oss</a><a href="//www.kommun.test/a">Tillgänglighet</a><a href="https://kommun.test:8443/b">Tillgänglighet</a></body>', 'https://kommun.test/start/');
  t.same(page.links.map((l) => l.url!.href), ['https://kommun.test/start/om/', 'https://www.kommun.test/a', 'https://kommun.test:8443/b']);
  const site = new URL('https://kommun.test/');
  t.same(page.links.map((l) => sameSite(l.url!, site)), [true, true, false], 'www twin yes, another port no');
  t.ok(sameSite(new URL('http://kommun.test/x'), site), 'http and https on their default ports: the same site');
  t.notOk(sameSite(new URL('https://e.kommun.test/'), site), 'another subdomain is another site');
  // Upstream's table; å, ä and ö count in "Om X"; an e-service link ranks 0.1 lower.
  const u = new URL('https://kommun.test/x');
  t.same(
    ['Tillgänglighetsredogörelse', 'Tillgänglighetsredogörelse för webbplatsen', 'Tillgänglighet', 'Tillgänglighet i lokalerna', 'Om webbplatsen', 'Om företaget', 'Om oss och vår historia', 'Tillgänglighetsredogörelse för e-tjänsten', 'Nyheter']
      .map((text) => linkPrecision(text, u)),
    [0.55, 0.5, 0.4, 0.35, 0.29, 0.25, 0.2, 0.4, 0],
  );
  t.equal(linkPrecision('', new URL('https://kommun.test/om/tillganglighetsredogorelse')), 0.45, 'an image link is judged by its address');
});

t.test('DIGG addresses are compared normalised', async (t) => {
  const kinds = [
    'https://www.digg.se/tdosanmalan', 'https://digg.se/tdosanmalan/', 'http://www.digg.se/tdosanmalan', 'HTTPS://WWW.DIGG.SE/tdosanmalan?utm=x#top',
    'https://www.digg.se/analys-och-uppfoljning/lagen-om-tillganglighet-till-digital-offentlig-service-dos-lagen/anmal-bristande-tillganglighet/',
    'https://www.digg.se/digital-tillganglighet/anmal-bristande-tillganglighet', 'https://www.digg.se/', 'https://digg.se.example.test/tdosanmalan',
  ].map((href) => diggLinkKind(new URL(href)));
  t.same(kinds, ['short', 'short', 'short', 'short', 'canonical', 'old', null, null]);
});

t.test('dates pair with the nearest keyword of their sentence', async (t) => {
  const text = 'Senaste bedömningen gjordes den 2 februari 2026. Redogörelsen reviderades den 10 februari 2026. ' +
    'Webbplatsen publicerades i september 2019. Nästa granskning planeras till 2026-12-01. Ogiltigt: 2025-02-30 uppdaterades.';
  t.same(findDates(text, NOW).map((d) => [d.date, d.kind, d.precision, d.future]), [
    ['2026-02-02', 'assessment', 'day', false],
    ['2026-02-10', 'update', 'day', false],
    ['2019-09-01', 'published', 'month', false],
    ['2026-12-01', 'assessment', 'day', true],
  ]);
});

t.test('depth 1: a footer link "Tillgänglighetsredogörelse" to the www twin; a complete statement', async (t) => {
  const r = await judge(depth1.url);
  // Nothing missing: 100 → 5.00.
  t.same(found(r), []);
  t.equal(r.rating, 5);
  t.same(r.ratings, { a11y: 5 });
  const statementUrl = 'https://www.a11y-depth1.test/tillganglighetsredogorelse/';
  t.same(data(r).statement, {
    url: statementUrl,
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
  // The first batch reads the two promising links of the start page (0.55 + 0.01 footer, 0.25 + 0.01).
  t.same(data(r).visited, [
    { url: statementUrl, final_url: statementUrl, depth: 1, link_text: 'Tillgänglighetsredogörelse', precision: 0.56, status: 200, statement: true },
    { url: 'https://a11y-depth1.test/om-oss/', final_url: 'https://a11y-depth1.test/om-oss/', depth: 1, link_text: 'Om oss', precision: 0.26, status: 200, statement: false },
  ]);
  t.equal(data(r).pages_read, 3);
  t.equal(data(r).links_left, 0, 'the statement\'s "Om oss" on www is the page already read');
  t.same(data(r).unreadable_pages, []);
  t.match(data(r), { ...templateChecks, feedback_function: { ...templateChecks.feedback_function, href: 'https://www.a11y-depth1.test/kontakt/formular/' } });
  t.same(data(r).compliance, { level: 'full', phrase: 'helt förenlig' });
  t.equal(data(r).inaccessible_content, null, 'not asked of a fully compliant website');
  t.same(data(r).dates.map((d: any) => `${d.date} ${d.kind}`), ['2026-03-02 assessment', '2019-09-23 published', '2026-03-13 update']);
  t.same(r.summary, {
    sv: `Tillgänglighetsredogörelse hittad på ${statementUrl} (1 klick från startsidan); den anger att webbplatsen är helt förenlig.`,
    en: `Accessibility statement found at ${statementUrl} (1 click from the start page); it states that the website is fully compliant.`,
  });
  t.equal(renderReports(r).sv.a11y, 'Tillgänglighet: Betyg: 5.00\n- Inget att förbättra hittades.');
});

t.test('depth 2: "Om webbplatsen" (a relative link, no leading slash), then the statement', async (t) => {
  const r = await judge(depth2.url);
  // Depth 2 (warning −1), "delvis förenlig" (error −10), DIGG's long address (info, 0): 89 → 4.45.
  t.same(found(r), ['statement-not-linked-from-start-page:warning', 'compatible-word-partly:error', 'has-canonical-notification-function-link:info']);
  t.equal(r.rating, 4.45);
  t.same(r.ratings, { a11y: 4.45 });
  t.match(data(r).statement, { url: 'https://a11y-depth2.test/om-webbplatsen/tillganglighet/', depth: 2, link_text: 'Tillgänglighetsredogörelse', linked_from: 'https://a11y-depth2.test/om-webbplatsen/' });
  t.same(data(r).visited.map((v: any) => [v.url, v.depth, v.precision]), [
    ['https://a11y-depth2.test/om-webbplatsen/', 1, 0.3],
    ['https://a11y-depth2.test/om-webbplatsen/tillganglighet/', 2, 0.55],
  ]);
  t.same(data(r).inaccessible_content, { found: true, heading: 'Innehåll som inte är tillgängligt', items: 2, wcag_criteria: ['1.2.2', '2.1.1'] });
  t.equal(data(r).notification_function_link.kind, 'canonical');
  t.same(renderReports(r).sv.a11y.split('\n'), [
    'Tillgänglighet: Betyg: 4.45',
    '- Tillgänglighetsredogörelsen länkas inte från startsidan: den nåddes först efter 2 klick (via länken ”Tillgänglighetsredogörelse” på https://a11y-depth2.test/om-webbplatsen/). DIGG kräver en tydlig länk på startsidan eller från alla sidor, till exempel i sidfoten.',
    '- Anger själv att webbplatsen endast är delvis förenlig med lagen (”delvis förenlig”).',
  ]);
});

t.test('weak signal: "Tillgänglighet på webbplatsen" with a compliance phrase; a dead link on the way', async (t) => {
  const r = await judge(weak.url);
  // One batch reads "Tillgänglighet" (0.41), "Tillgänglighet i lokalerna" (0.36, about the
  // premises: no legal signal, no statement) and "Om kommunen" (0.26, 404: no-network −1);
  // "delvis förenlig" −10: 89 → 4.45. The DIGG link https://digg.se/tdosanmalan/ is accepted.
  t.same(found(r), ['no-network:warning', 'compatible-word-partly:error']);
  t.equal(r.rating, 4.45);
  t.match(data(r).statement, { url: 'https://a11y-weak.test/tillganglighet/', depth: 1, signal: 'weak', about: 'website', about_reason: 'h1: Tillgänglighet på webbplatsen' });
  t.same(data(r).visited.map((v: any) => [v.url, v.status, v.statement]), [
    ['https://a11y-weak.test/tillganglighet/', 200, true],
    ['https://a11y-weak.test/lokaler/', 200, false],
    ['https://a11y-weak.test/om-kommunen/', 404, false],
  ]);
  t.same(data(r).unreadable_pages, [{ url: 'https://a11y-weak.test/om-kommunen/', status: 404, why: 'status 404', link_text: 'Om kommunen', precision: 0.26 }]);
  t.same(data(r).notification_function_link, { href: 'https://digg.se/tdosanmalan/', text: 'kontakta Myndigheten för digital förvaltning och påtala det', kind: 'short' });
  t.same(data(r).feedback_function, { kind: 'email', href: 'mailto:tillganglighet@exempelby.test', text: 'tillganglighet@exempelby.test' });
  t.equal(data(r).evaluation_method, 'extern part');
  // "granskades senast i januari 2026": month and year, the 1st assumed.
  t.equal(data(r).assessment_date, '2026-01-01');
  t.equal(data(r).last_updated_date, '2026-02-10');
  t.equal(r.findings[0].text.en, 'No network: 1 page could not be read (https://a11y-weak.test/om-kommunen/: status 404).');
});

t.test('no statement at all: rated 1.0', async (t) => {
  const r = await judge(none.url);
  // Start → "Om oss" → "Tillgänglighet i våra lokaler" (depth 2, no legal signal): no statement,
  // the showstopper sets a11y to 0 → 1.00.
  t.same(found(r), ['no-a11y-statement:critical']);
  t.equal(r.rating, 1);
  t.same(r.ratings, { a11y: 1 });
  t.equal(data(r).statement, null);
  t.equal(data(r).pages_read, 3);
  t.same(data(r).visited.map((v: any) => [v.url, v.depth]), [['https://a11y-none.test/om-oss/', 1], ['https://a11y-none.test/om-oss/lokaler/', 2]]);
  t.equal(r.summary.sv, 'Ingen tillgänglighetsredogörelse hittades på startsidan eller 2 sidor som den leder till.');
  t.same(renderReports(r).sv.a11y.split('\n'), [
    'Tillgänglighet: Betyg: 1.00',
    '- Ingen tillgänglighetsredogörelse hittades: varken startsidan eller 2 sidor som länkas därifrån (sidfot, ”Om webbplatsen”, ”Tillgänglighet”) är en redogörelse. Lagen (2018:1937) kräver en.',
  ]);

  // A start page without a single promising link: nothing to read, the same 1.0.
  const url = 'https://a11y-bare.test/';
  const bare = await judge(url, makeArtifacts(url, { mainDocument: { url, status: 200, headers: { 'content-type': 'text/html' }, html: '<!DOCTYPE html><title>Exempelby</title><h1>Välkommen</h1><a href="/nyheter/">Nyheter</a>' } }));
  t.same(found(bare), ['no-a11y-statement:critical']);
  t.equal(bare.rating, 1);
  t.equal(data(bare).pages_read, 1);
  t.equal(bare.summary.en, 'No accessibility statement was found: the start page is none and links to no page that could be one.');
});

t.test('no statement found, and the page the footer names it at could not be read: not rated', async (t) => {
  const r = await judge(`${none.url}trasig/`);
  // "Tillgänglighetsredogörelse" (0.56) answers 404: the statement may well be there, so no 1.0 (and no 5.0).
  t.equal(r.rating, NOT_RATED);
  t.same(r.ratings, {});
  t.same(found(r), ['no-network:warning']);
  t.same(data(r).unreadable_pages, [{ url: 'https://a11y-none.test/saknas/tillganglighetsredogorelse/', status: 404, why: 'status 404', link_text: 'Tillgänglighetsredogörelse', precision: 0.56 }]);
  t.equal(r.summary.en, 'No accessibility statement was found, but 1 page likely to lead to it could not be read (https://a11y-none.test/saknas/tillganglighetsredogorelse/).');
  t.equal(renderReports(r).sv.overall.split('\n').pop(), 'Inte bedömt');
});

t.test('no statement found, only an "Om kommunen" page unreadable: 1.0 with the failure noted', async (t) => {
  const r = await judge(`${none.url}om-trasig/`);
  // Nothing read named "tillgänglighet": no statement (a11y 0 → 1.00), the dead link noted (−1 of 0).
  t.same(found(r), ['no-a11y-statement:critical', 'no-network:warning']);
  t.equal(r.rating, 1);
  t.same(data(r).unreadable_pages.map((p: any) => p.url), ['https://a11y-none.test/saknas/om-kommunen/']);
});

t.test('#912: an e-service statement linked first does not stop the search for the website\'s own', async (t) => {
  const r = await judge(eservice.url);
  // Batch 1: the e-service statement (0.55; its h1 names "e-tjänsten") and "Om webbplatsen"
  // (0.30); batch 2: the website's statement behind it (depth 2, warning −1): 99 → 4.95.
  t.same(found(r), ['statement-not-linked-from-start-page:warning']);
  t.equal(r.rating, 4.95);
  t.match(data(r).statement, { url: 'https://a11y-eservice.test/om-webbplatsen/tillganglighetsredogorelse/', depth: 2, about: 'website' });
  t.equal(data(r).statement_choice, 'about-the-website');
  t.same(data(r).other_statements, [{
    url: 'https://a11y-eservice.test/e-tjanster/bygglov/tillganglighetsredogorelse/',
    depth: 1,
    about: 'other-service',
    about_reason: 'h1: Tillgänglighetsredogörelse för e-tjänsten Bygglov',
  }]);
  t.same(data(r).compliance, { level: 'full', phrase: 'helt förenlig' }, 'the website\'s status, not the e-service\'s "inte förenlig"');
});

t.test('only an e-service statement is reachable: judged, with a warning that it is not the website\'s', async (t) => {
  const r = await judge(`${eservice.url}e-tjanster/`);
  // "E-tjänsten är inte förenlig" (error −10), not the website's own (warning −1): 89 → 4.45.
  t.same(found(r), ['statement-about-other-service:warning', 'compatible-word-not:error']);
  t.equal(r.rating, 4.45);
  t.equal(data(r).statement_choice, 'only-other-service-found');
  t.same(data(r).compliance, { level: 'not', phrase: 'inte förenlig' });
});

t.test('#1038: "<span>delvis</span> förenlig" and a soft hyphen in the h1', async (t) => {
  const r = await judge(split.url);
  // Recognised by its h1 "Tillgänglighets&shy;redogörelse" (the title is only the site's name);
  // "delvis förenlig" across elements (error −10); http://www.digg.se/tdosanmalan accepted: 90 → 4.50.
  t.same(found(r), ['compatible-word-partly:error']);
  t.equal(r.rating, 4.5);
  t.match(data(r).statement, { h1: 'Tillgänglighetsredogörelse', title: 'Exempelby kommun', signal: 'strong' });
  t.same(data(r).compliance, { level: 'partial', phrase: 'delvis förenlig' });
  t.equal(data(r).notification_function_link.kind, 'short');
});

t.test('every spelling of the link to DIGG\'s notification function', async (t) => {
  // Each a complete statement but for its DIGG link.
  const cases: [string, string[], number][] = [
    ['https-www', [], 5], //                  https://www.digg.se/tdosanmalan
    ['utan-www-snedstreck', [], 5], //        https://digg.se/tdosanmalan/ (upstream: no link, −10)
    ['http-www', [], 5], //                   http://www.digg.se/tdosanmalan (upstream: no link, −10)
    ['lang-adress', ['has-canonical-notification-function-link:info'], 5], // DIGG's long address: 0
    ['gammal', ['has-old-notification-function-link:warning'], 4.95], // …/anmal-bristande-tillganglighet: 99
    ['ingen', ['no-notification-function-link:error'], 4.5], // only https://www.digg.se/: 90
  ];
  for (const [name, findings, rating] of cases) {
    const r = await judge(`${digg.url}${name}/`);
    t.same(found(r), findings, name);
    t.equal(r.rating, rating, name);
  }
});

t.test('date forms, ages against the injected clock', async (t) => {
  const cases: [string, string[], number, string | null, string | null][] = [
    // "uppdaterades senast den 13 januari 2025": 504 days → 1 year (warning −1); "bedömningen gjordes 2025-06-17": 349 days → 0. 99 → 4.95.
    ['dag-och-iso', ['updated-date-older-than-1years:warning'], 4.95, '2025-06-17', '2025-01-13'],
    // Month and year, the 1st assumed: "granskades i december 2025" (182 days, under a year),
    // "uppdaterades i januari 2025" (516 days → 1 year, warning −1): 99 → 4.95.
    ['manad', ['updated-date-older-than-1years:warning'], 4.95, '2025-12-01', '2025-01-01'],
    // 2020-11-30 and 2 mars 2021: 5 years or more, each an error: 80 → 4.00.
    ['gammal', ['assessment-date-older-than-5years:error', 'updated-date-older-than-5years:error'], 4, '2020-11-30', '2021-03-02'],
    // No date at all: both missing, 80 → 4.00.
    ['inga', ['no-assessment-date:error', 'no-updated-date:error'], 4, null, null],
    // Upstream's .pop() would keep the lowest-weight date ("uppdaterades 2020-05-04", > 5 years);
    // here the latest of each kind counts (bedömning 2026-02-02, reviderades 2026-02-10) and the
    // planned "granskning … 2026-12-01" is no assessment: 100.
    ['flera', [], 5, '2026-02-02', '2026-02-10'],
  ];
  for (const [name, findings, rating, assessed, updated] of cases) {
    const r = await judge(`${dates.url}${name}/`);
    t.same(found(r), findings, name);
    t.equal(r.rating, rating, name);
    t.equal(data(r).assessment_date, assessed, `${name}: assessment date`);
    t.equal(data(r).last_updated_date, updated, `${name}: last update`);
  }
  const old = await judge(`${dates.url}gammal/`);
  t.same(old.findings.map((f) => f.text.sv), ['Bedömningen är äldre än 5 år (2020-11-30).', 'Uppdateringsdatum äldre än 5 år (2021-03-02).']);
});

t.test('12 §: oskäligt betungande anpassning with a reason, without one, and denied', async (t) => {
  // Each "delvis förenlig" (−10) with its list of inaccessible content.
  const withReason = await judge(`${burden.url}med-skal/`);
  t.same(found(withReason), ['compatible-word-partly:error', 'has-unreasonably-burdensome-accommodation:warning']); // 89 → 4.45
  t.equal(withReason.rating, 4.45);
  t.same(data(withReason).unreasonably_burdensome_accommodation, { phrase: 'Oskäligt betungande', reasoned: true, reason: 'eftersom' });

  const withoutReason = await judge(`${burden.url}utan-skal/`);
  t.same(found(withoutReason), ['compatible-word-partly:error', 'has-unreasonably-burdensome-accommodation:error']); // 80 → 4.00
  t.equal(withoutReason.rating, 4);
  t.equal(data(withoutReason).unreasonably_burdensome_accommodation.reasoned, false);
  t.equal(withoutReason.findings[1].text.sv, 'Hävdar oskäligt betungande anpassning (”Oskäligt betungande”) utan att ange skäl: 12 § lagen (2018:1937) kräver en bedömning som redovisas.');

  // "Vi åberopar inte 12 § …": no claim. 90 → 4.50.
  const denied = await judge(`${burden.url}nekad/`);
  t.same(found(denied), ['compatible-word-partly:error']);
  t.equal(denied.rating, 4.5);
  t.equal(data(denied).unreasonably_burdensome_accommodation, null);
});

t.test('a start page that could not be read is not rated', async (t) => {
  const r = await judge(down.url);
  t.equal(r.rating, NOT_RATED);
  t.same(r.ratings, {});
  t.same(r.findings, []);
  t.equal(r.summary.sv, 'Startsidan https://a11y-down.test/ kunde inte läsas (status 503), så tillgänglighetsredogörelsen kunde inte sökas.');
  t.same(data(r).start_page, { status: 503, unreadable: 'status 503' });

  const url = 'https://a11y-gone.test/';
  const noAnswer = await judge(url, makeArtifacts(url, { mainDocument: { url, status: 0, headers: {}, html: '' } }));
  t.equal(noAnswer.rating, NOT_RATED);
  t.equal(noAnswer.summary.en, 'The start page https://a11y-gone.test/ could not be read (no answer), so the accessibility statement could not be looked for.');
  const pdf = await judge(url, makeArtifacts(url, { mainDocument: { url, status: 200, headers: { 'content-type': 'application/pdf' }, html: '%PDF-1.7' } }));
  t.equal(pdf.rating, NOT_RATED);
  t.same(data(pdf).start_page, { status: 200, unreadable: 'not HTML (application/pdf)' });
});
