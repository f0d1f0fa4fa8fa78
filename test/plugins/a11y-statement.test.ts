/**
 * Type 26, Accessibility statement (plugins/a11y-statement): its rules and its walk beyond the
 * fixture texts, whose outcomes are written out in test/conformance/a11y-statement.test.ts. Here:
 * link resolution, DIGG's addresses, dates on the Swedish calendar, the 12 § reason, hidden
 * accordion text, the charset of a crawled page, what a dead link or a document answers and
 * when a page that could not be read keeps a site from 1.0, pages read once, and bounded work on
 * hostile pages (asserted by their results: the work finishes, without timing it).
 *
 * Crawls run against hosts of this file's own test world (https on port 443 under a `.test`
 * name) whose pages are written below, read through the guarded, memoised probes as in
 * production. The clock is injected: every case is judged at NOW, 2026-06-01 12:00 UTC.
 * Ratings by hand: a11y = 100 − 25 per critical, 10 per error, 1 per warning rule;
 * rating = max(1, a11y / 100 × 5).
 */
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { NOT_RATED, type Artifacts, type PluginResult } from '../../core/plugin-api.js';
import { renderReports } from '../../core/report.js';
import { findDates } from '../../plugins/a11y-statement/dates.js';
import { diggLinkKind } from '../../plugins/a11y-statement/digg.js';
import { decodedPath, readPage } from '../../plugins/a11y-statement/html.js';
import plugin from '../../plugins/a11y-statement/index.js';
import { judgeStatement } from '../../plugins/a11y-statement/judge.js';
import { inaccessibleContent } from '../../plugins/a11y-statement/rules.js';
import { linkPrecision, sameSite } from '../../plugins/a11y-statement/links.js';
import { aboutOf, burdenClaim, feedbackFunction } from '../../plugins/a11y-statement/rules.js';
import { makeArtifacts, servedArtifacts } from '../helpers/fixture-artifacts.js';
import { startWorld } from '../helpers/world/index.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const world = await startWorld(t);

/** What a page of a test host answers. */
interface Answer {
  status?: number;
  type?: string;
  body?: string | Buffer;
  location?: string;
  /** Never answer (a timeout). */
  hang?: true;
  /** Close the connection without an answer (a network error). */
  drop?: true;
}

/** A host answering its pages as written (path → answer, 404 otherwise); `asked` counts the requests per path. */
async function host(name: string, pages: Record<string, Answer>) {
  const asked = new Map<string, number>();
  const site = await world.site(name, {
    handler: (req, res) => {
      const at = new URL(req.url ?? '/', 'https://x.test').pathname;
      asked.set(at, (asked.get(at) ?? 0) + 1);
      const p = pages[at];
      if (!p) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      if (p.hang) return;
      if (p.drop) return void req.socket.destroy();
      res.writeHead(p.status ?? 200, { 'content-type': p.type ?? 'text/html; charset=utf-8', ...(p.location ? { location: p.location } : {}) }).end(p.body ?? '');
    },
  });
  return { ...site, asked };
}

/** A start page whose footer holds the links given as [text, href]. */
const startPage = (...links: [string, string][]) =>
  `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><title>Exempelby kommun</title></head><body><main><h1>Välkommen</h1></main>` +
  `<footer><ul>${links.map(([text, href]) => `<li><a href="${href}">${text}</a></li>`).join('')}</ul></footer></body></html>`;

/** A statement holding everything DIGG asks for (5.0), its head as given. */
const statement = (h1 = 'Tillgänglighetsredogörelse', head = '<meta charset="utf-8">') =>
  `<!DOCTYPE html><html lang="sv"><head>${head}<title>${h1}</title></head><body><main><h1>${h1}</h1>` +
  '<p>Den här webbplatsen är helt förenlig med lagen om tillgänglighet till digital offentlig service.</p>' +
  '<p>Rapportera brister via <a href="/kontakt/formular/">vårt kontaktformulär</a>. Är du inte nöjd kan du <a href="https://www.digg.se/tdosanmalan">kontakta DIGG</a>.</p>' +
  '<p>Vi har gjort en självskattning.</p><p>Senaste bedömningen gjordes den 2026-03-02.</p><p>Redogörelsen uppdaterades senast den 13 mars 2026.</p></main></body></html>';

/** Runs the plugin on the start page at `url` as served, with fresh probes (a run's own memo). */
async function judge(url: string, artifacts?: Artifacts, timeoutMs = 10_000): Promise<PluginResult> {
  const probes = createProbes(world.guard(), { timeoutMs });
  const served = artifacts ?? (await servedArtifacts(url, probes, 'sv'));
  return plugin.run(served, { probes, signal: AbortSignal.timeout(20_000), now: NOW });
}
/** The findings as `rule:severity`, in the order the plugin gives them. */
const found = (r: { findings: { rule: string; severity: string }[] }) => r.findings.map((f) => `${f.rule}:${f.severity}`);
const data = (r: PluginResult) => r.data as any;
/** A statement page judged by itself, at NOW. */
const judgedPage = (html: string, now = NOW) => judgeStatement(readPage(html, 'https://kommun.test/tillganglighetsredogorelse/'), now);

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
  t.equal(linkPrecision('Om oss', new URL('https://kommun.test/om-oss/tillganglighet/')), 0.25, 'a text that ranks goes before the address');
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
  // "testad", "tester", "testning" date an assessment as "testade" and "testat" do.
  t.same(
    ['Senast testad 2025-01-01.', 'Våra tester gjordes 2025-01-02.', 'Testningen gjordes 2025-01-03.', 'Webbplatsen testades 2025-01-04.']
      .map((s) => findDates(s, NOW).map((d) => `${d.date} ${d.keyword} ${d.kind}`)),
    [['2025-01-01 testad assessment'], ['2025-01-02 tester assessment'], ['2025-01-03 Testningen assessment'], ['2025-01-04 testades assessment']],
  );
});

t.test('dates are Swedish days: a date begins at midnight in Europe/Stockholm', async (t) => {
  const page = statement().replace('13 mars 2026', '2 juni 2026').replace('2026-03-02', '2 juni 2025');
  // 2026-06-01 22:30 UTC is 00:30 on 2 June in Sweden: "uppdaterades … 2 juni 2026" is today,
  // not in the future, and "2 juni 2025" a year old (365 days).
  const late = judgedPage(page, new Date('2026-06-01T22:30:00Z'));
  t.same(found(late), ['assessment-date-older-than-1years:warning']);
  t.match(late.data, { last_updated_date: '2026-06-02', last_updated_age_years: 0, assessment_date: '2025-06-02', assessment_age_years: 1 });
  // An hour earlier (23:30 on 1 June in Sweden) the update is still planned, and the assessment under a year old.
  const before = judgedPage(page, new Date('2026-06-01T21:30:00Z'));
  t.same(found(before), ['no-updated-date:error']);
  t.match(before.data, { last_updated_date: null, assessment_age_years: 0 });
});

t.test('12 §: "oskäligt" is the claim, not its reason; every mention of the claim is left out', async (t) => {
  const page = (body: string) => statement().replace('<p>Vi har gjort', `${body}<p>Vi har gjort`);
  const cases: [string, boolean, string | null][] = [
    // "skäl" inside "oskäligt" of the parenthesis: no reason.
    ['<p>Vi åberopar 12 § lagen (oskäligt betungande anpassning) för kartorna.</p>', false, null],
    // The heading names the claim; its paragraph repeats it: no reason either.
    ['<h2>Oskäligt betungande anpassning</h2><p>Vi åberopar undantaget för oskäligt betungande anpassning för kartorna.</p><h2>Nästa</h2>', false, null],
    ['<h2>Oskäligt betungande anpassning</h2><p>Vi åberopar 12 § lagen om oskäligt betungande anpassning för våra äldre filmer.</p><h2>Nästa</h2>', false, null],
    // "Skälet" as a word of its own is a reason.
    ['<p>Vi åberopar 12 § lagen för kartorna. Skälet är att de ska bytas ut nästa år.</p>', true, 'Skäl'],
  ];
  for (const [body, reasoned, reason] of cases) {
    const judged = judgedPage(page(body));
    t.match(judged.data.unreasonably_burdensome_accommodation, { reasoned, reason }, body);
    t.same(found(judged), [`has-unreasonably-burdensome-accommodation:${reasoned ? 'warning' : 'error'}`], body);
  }
});

t.test('text in collapsed accordions is read, as upstream\'s textContent reads it', async (t) => {
  const section = (i: number, heading: string, body: string, hide: string) =>
    `<h2><button aria-expanded="false" aria-controls="s${i}">${heading}</button></h2><div id="s${i}" ${hide}>${body}</div>`;
  const html = (hide: string) => '<title>Tillgänglighetsredogörelse</title><body><main><h1>Tillgänglighetsredogörelse</h1>' +
    section(1, 'Hur tillgänglig är webbplatsen?', '<p>Den här webbplatsen är helt förenlig med lagen.</p>', hide) +
    section(2, 'Rapportera brister', '<p>Använd <a href="/kontakt/formular/">vårt kontaktformulär</a>. <a href="https://www.digg.se/tdosanmalan">DIGG</a></p>', hide) +
    section(3, 'Hur vi testat webbplatsen', '<p>Vi har gjort en självskattning. Senaste bedömningen gjordes den 2026-03-02.</p><p>Redogörelsen uppdaterades senast den 13 mars 2026.</p>', hide) +
    '</main>';
  for (const hide of ['hidden', 'aria-hidden="true"', 'hidden="until-found"']) {
    const page = readPage(html(hide), 'https://kommun.test/tg/');
    t.match(page.statementText, /^Tillgänglighetsredogörelse Den här webbplatsen är helt förenlig med lagen\. Använd \. Vi har gjort en självskattning\./, hide);
    t.same(page.blocks.map((b) => b.kind), ['heading', 'heading', 'text', 'heading', 'text', 'heading', 'text', 'text'], hide);
    t.same(found(judgeStatement(page, NOW)), [], `${hide}: nothing missing`);
  }
});

t.test('a crawled page is read in the charset it is served in', async (t) => {
  const latin1 = (html: string) => Buffer.from(html, 'latin1');
  const site = await host('a11y-charset.test', {
    '/rubrik/': { body: startPage(['Tillgänglighetsredogörelse', '/rubrik/tg/']) },
    '/rubrik/tg/': { type: 'text/html; charset=iso-8859-1', body: latin1(statement('Tillgänglighetsredogörelse', '')) },
    '/meta/': { body: startPage(['Tillgänglighetsredogörelse', '/meta/tg/']) },
    '/meta/tg/': { type: 'text/html', body: latin1(statement('Tillgänglighetsredogörelse', '<meta charset="windows-1252">')) },
    '/http-equiv/': { body: startPage(['Tillgänglighetsredogörelse', '/http-equiv/tg/']) },
    '/http-equiv/tg/': { type: 'text/html', body: latin1(statement('Tillgänglighetsredogörelse', '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">')) },
  });
  for (const how of ['rubrik', 'meta', 'http-equiv']) {
    const r = await judge(`${site.url}${how}/`);
    // "förenlig", "självskattning" and "bedömningen" read as written: nothing missing, 5.00.
    t.same(found(r), [], how);
    t.equal(r.rating, 5, how);
    t.match(data(r), { compliance: { level: 'full' }, evaluation_method: 'självskattning', assessment_date: '2026-03-02' }, how);
  }
});

t.test('a dead link or a document is no statement: 1.0, and the link named', async (t) => {
  const site = await host('a11y-dead.test', {
    '/404/': { body: startPage(['Tillgänglighetsredogörelse', '/saknas/']) },
    '/410/': { body: startPage(['Tillgänglighetsredogörelse', '/borta/']) },
    '/borta/': { status: 410, type: 'text/plain', body: 'Gone' },
    '/pdf/': { body: startPage(['Tillgänglighetsredogörelse', '/dokument/123']) },
    '/dokument/123': { type: 'application/pdf', body: '%PDF-1.7' },
  });
  const cases: [string, string, number, string, string][] = [
    ['404', '/saknas/', 404, 'status 404', 'status 404'],
    ['410', '/borta/', 410, 'status 410', 'status 410'],
    // The same document linked as ….pdf is never followed, and gives the same 1.0.
    ['pdf', '/dokument/123', 200, 'not HTML (application/pdf)', 'inte HTML (application/pdf)'],
  ];
  for (const [name, link, status, why, sv] of cases) {
    const r = await judge(`${site.url}${name}/`);
    t.equal(r.rating, 1, name);
    t.same(found(r), ['no-a11y-statement:critical', 'link-not-a-page:warning'], name);
    t.same(data(r).not_pages, [{ url: `${site.url.slice(0, -1)}${link}`, status, why, link_text: 'Tillgänglighetsredogörelse', linked_from: `${site.url}${name}/` }], name);
    t.equal(r.findings[1].text.sv, `En länk leder inte till någon sida (”Tillgänglighetsredogörelse” till ${site.url.slice(0, -1)}${link} på ${site.url}${name}/: ${sv}).`, name);
    t.equal(r.findings[1].text.en, `A link leads to no page ("Tillgänglighetsredogörelse" to ${site.url.slice(0, -1)}${link} on ${site.url}${name}/: ${why}).`, name);
  }
});

t.test('a page that could not be read keeps a site from 1.0 when its link or address names the statement', async (t) => {
  const site = await host('a11y-unreadable.test', {
    '/503/': { body: startPage(['Tillgänglighetsredogörelse', '/tg-503/']) },
    '/tg-503/': { status: 503, body: '<h1>Underhåll</h1>' },
    '/403/': { body: startPage(['Tillgänglighetsredogörelse', '/tg-403/']) },
    '/tg-403/': { status: 403, body: '<h1>Förbjudet</h1>' },
    '/401/': { body: startPage(['Tillgänglighetsredogörelse', '/tg-401/']) },
    '/tg-401/': { status: 401, body: '<h1>Logga in</h1>' },
    '/429/': { body: startPage(['Tillgänglighetsredogörelse', '/tg-429/']) },
    '/tg-429/': { status: 429, body: '<h1>För många frågor</h1>' },
    '/natfel/': { body: startPage(['Tillgänglighetsredogörelse', '/tg-natfel/']) },
    '/tg-natfel/': { drop: true },
    '/timeout/': { body: startPage(['Tillgänglighetsredogörelse', '/tg-timeout/']) },
    '/tg-timeout/': { hang: true },
    // The cue is the link's words and the address, not its rank: "Tillgänglighet i appen" ranks
    // 0.25 (an app's link), "Om oss" 0.25, both below "Om webbplatsen".
    '/appen/': { body: startPage(['Tillgänglighet i appen', '/app/']) },
    '/app/': { status: 503 },
    '/adress/': { body: startPage(['Om oss', '/om-oss/tillganglighet/']) },
    '/om-oss/tillganglighet/': { status: 503 },
    // "Om kommunen" at /kommun/ names neither: no statement anywhere else, 1.0 with no-network.
    '/kommun/': { body: startPage(['Om kommunen', '/om-kommunen/']) },
    '/om-kommunen/': { status: 503 },
  });
  for (const [name, why] of [['503', 'status 503'], ['403', 'status 403'], ['401', 'status 401'], ['429', 'status 429'], ['natfel', null], ['timeout', 'Timed out after 2000 ms'], ['appen', 'status 503'], ['adress', 'status 503']] as const) {
    // Probes that wait 2 s for a page (10 s in production).
    const r = await judge(`${site.url}${name}/`, undefined, 2_000);
    t.equal(r.rating, NOT_RATED, name);
    t.same(r.ratings, {}, name);
    t.same(found(r), ['no-network:warning'], name);
    t.equal(data(r).unreadable_pages.length, 1, name);
    t.match(data(r).unreadable_pages[0], { promising: true, ...(why ? { why } : {}) }, name);
    // A page that gave no answer says why in each language.
    const said = { natfel: ['servern bröt anslutningen', 'the server reset the connection'], timeout: ['servern svarade inte i tid', 'the server did not answer in time'] }[name as string];
    if (said) {
      const url = data(r).unreadable_pages[0].url;
      t.same(r.findings[0].text, { sv: `Inget nätverk: 1 sida kunde inte läsas (${url}: ${said[0]}).`, en: `No network: 1 page could not be read (${url}: ${said[1]}).` }, name);
    }
    t.match(r.summary.en, /^No accessibility statement was found, but 1 page likely to lead to it could not be read/, name);
    t.equal(renderReports(r).sv.overall.split('\n').pop(), 'Inte bedömt', name);
  }
  const r = await judge(`${site.url}kommun/`);
  t.equal(r.rating, 1);
  t.same(found(r), ['no-a11y-statement:critical', 'no-network:warning']);
  t.same(data(r).unreadable_pages, [{ url: `${site.url}om-kommunen/`, status: 503, why: 'status 503', link_text: 'Om kommunen', linked_from: `${site.url}kommun/`, promising: false }]);
});

t.test('a page is read once, whichever links and redirects lead to it', async (t) => {
  const eservice = statement('Tillgänglighetsredogörelse för e-tjänsten Bygglov').replace('Den här webbplatsen är helt', 'E-tjänsten är helt');
  const premises = (h1: string) => `<!DOCTYPE html><title>${h1}</title><h1>${h1}</h1><p>Ramper och hiss.</p>`;
  const site = await host('a11y-once.test', {
    '/': {
      body: startPage(
        ['Tillgänglighetsredogörelse', '/tillganglighet'],
        ['Tillgänglighet', '/skolan/'],
        ['Tillgänglighet', '/lokaler/'],
        ['Tillgänglighetsredogörelse för e-tjänsten', '/e/bygglov/tg/'],
      ),
    },
    // The footer's first link redirects to the e-service's statement, which a lower link names directly.
    '/tillganglighet': { status: 301, location: '/e/bygglov/tg/' },
    '/e/bygglov/tg/': { body: eservice },
    '/skolan/': { body: premises('Tillgänglighet i skolan') },
    '/lokaler/': { body: premises('Tillgänglighet i lokalerna') },
  });
  const r = await judge(site.url);
  // The e-service's statement is all there is (warning −1): 99 → 4.95.
  t.same(found(r), ['statement-about-other-service:warning']);
  t.equal(data(r).statement.url, `${site.url}e/bygglov/tg/`);
  t.same(data(r).other_statements, [], 'the chosen statement is not listed again as another');
  t.equal(data(r).pages_read, 4, 'the start page and one batch of three: the direct link is not read again');
  t.same(data(r).visited.map((v: any) => [v.url, v.final_url, v.statement]), [
    [`${site.url}tillganglighet`, `${site.url}e/bygglov/tg/`, true],
    [`${site.url}skolan/`, `${site.url}skolan/`, false],
    [`${site.url}lokaler/`, `${site.url}lokaler/`, false],
  ]);
  t.equal(site.asked.get('/e/bygglov/tg/'), 1);
});

t.test('a queued link met again with a better text takes that link\'s page and depth too', async (t) => {
  const about = (h1: string, links = '') => `<!DOCTYPE html><title>${h1}</title><main><h1>${h1}</h1>${links}</main>`;
  const site = await host('a11y-upgrade.test', {
    // Four "Om …" links: the first batch reads three; "Om kommunen" (0.25) waits.
    '/': { body: `<!DOCTYPE html><title>Exempelby</title><main><a href="/om-webbplatsen/">Om webbplatsen</a><a href="/om-oss/">Om oss</a><a href="/om-skolan/">Om skolan</a><a href="/tg/">Om kommunen</a></main>` },
    '/om-webbplatsen/': { body: about('Om webbplatsen', '<a href="/tg/">Tillgänglighetsredogörelse</a>') },
    '/om-oss/': { body: about('Om oss') },
    '/om-skolan/': { body: about('Om skolan') },
    '/tg/': { body: statement() },
  });
  const r = await judge(site.url);
  // /tg/ is followed for "Tillgänglighetsredogörelse" on /om-webbplatsen/ (0.55): that link is
  // the one named, with its page and its depth; the start page's "Om kommunen" does not present
  // the statement. Depth 2 (warning −1): 99 → 4.95.
  t.match(data(r).statement, { url: `${site.url}tg/`, depth: 2, link_text: 'Tillgänglighetsredogörelse', linked_from: `${site.url}om-webbplatsen/` });
  t.same(found(r), ['statement-not-linked-from-start-page:warning']);
  t.match(r.findings[0].text.sv, `via länken ”Tillgänglighetsredogörelse” på ${site.url}om-webbplatsen/`);
});

// Hostile pages: each is run to its end and its result asserted; before the bounds each threw or
// ran for seconds to hours (the plugin's timeout cannot stop synchronous work).

t.test('hostile: 130,000 sentence ends, and 25,000 dated sentences', async (t) => {
  // Math.max over every sentence end overflowed the stack.
  t.same(findDates(`${'Ja. '.repeat(130_000)}Uppdaterad 2024-03-12.`, NOW).map((d) => `${d.date} ${d.kind}`), ['2024-03-12 update']);
  // 575 KB: quadratic before (19 s).
  const many = findDates('Uppdaterad 2024-03-12. '.repeat(25_000), NOW);
  t.equal(many.length, 25_000);
  t.ok(many.every((d) => d.kind === 'update' && d.keyword === 'Uppdaterad' && d.date === '2024-03-12'));
});

t.test('hostile: a word of 2,000,000 letters, judged on its first 200,000 characters', async (t) => {
  const word = readPage(`<title>Tillgänglighetsredogörelse</title><h1>Tillgänglighetsredogörelse</h1><p>${'a'.repeat(2_000_000)}</p>`, 'https://kommun.test/tg/');
  t.equal(word.statementText.length, 200_000);
  t.equal(word.textChars, 2_000_000 + 'Tillgänglighetsredogörelse '.length);
  t.same(word.blocks.map((b) => [b.kind, b.text.length]), [['heading', 26], ['text', 200_000 - 26]], 'the blocks cut at the same length');
  // The e-mail address and the compliance subject are tried once per word, not once per letter.
  t.same(aboutOf(word, ''), { about: 'website', reason: 'no other service named' });
  t.equal(feedbackFunction(word), null);
  const judged = judgeStatement(word, NOW);
  t.same(found(judged), ['no-compatible-word:error', 'no-feedback-function:error', 'no-notification-function-link:error', 'no-evaluation-method:error', 'no-assessment-date:error', 'no-updated-date:error']);
  t.same(judged.data.text_cut, { page_chars: word.textChars, judged_chars: 200_000 });
});

t.test('hostile: hyphenated and run-together words, an address after a long word', async (t) => {
  const hyphens = readPage(`<p>${'a-'.repeat(95_000)} är förenlig</p>`, 'https://kommun.test/tg/');
  t.same(aboutOf(hyphens, ''), { about: 'website', reason: 'no other service named' });
  const runTogether = readPage(`<p>${'redogörelse'.repeat(18_000)} gäller e-tjänsten</p>`, 'https://kommun.test/tg/');
  t.same(aboutOf(runTogether, ''), { about: 'other-service', reason: 'applies to: redogörelse gäller e-tjänsten' });
  const address = readPage(`<p>Kontakta oss: ${'a'.repeat(190_000)}@ och tillganglighet@kommun.test</p>`, 'https://kommun.test/tg/');
  t.same(feedbackFunction(address), { kind: 'email-in-text', href: null, text: 'tillganglighet@kommun.test' });
});

t.test('hostile: 18,000 claims of 12 § in one sentence that only its end negates', async (t) => {
  t.equal(burdenClaim(`${'12 § lagen '.repeat(18_000)}åberopar vi inte.`, []), null);
});

t.test('hostile: 10,000 nested divs, and 10,000 nested lists', async (t) => {
  // Recursion overflowed the stack at about 4,000.
  const deep = readPage(`<body>${'<div>'.repeat(10_000)}<a href="/x">Om oss</a>${statement().replace(/^.*<body>/, '')}`, 'https://kommun.test/');
  t.same(deep.links.map((l) => [l.text, l.url!.href]).slice(0, 2), [['Om oss', 'https://kommun.test/x'], ['vårt kontaktformulär', 'https://kommun.test/kontakt/formular/']]);
  t.same(found(judgeStatement(deep, NOW)), []);
  // Each item's text holds the items inside it (19,999 characters for the outermost): the blocks
  // stop when their text together reaches 200,000 characters.
  const lists = readPage(`<body><h2>Kända brister</h2><ul>${'<li>x<ul>'.repeat(10_000)}`, 'https://kommun.test/');
  t.same(lists.blocks.slice(0, 2), [{ kind: 'heading', level: 2, text: 'Kända brister' }, { kind: 'item', text: `${'x '.repeat(9_999)}x` }]);
  t.equal(lists.blocks.reduce((n, b) => n + b.text.length, 0), 200_000);
});

t.test('a start page without a single promising link: nothing to read, 1.0', async (t) => {
  const url = 'https://a11y-bare.test/';
  const bare = await judge(url, makeArtifacts(url, { mainDocument: { url, status: 200, headers: { 'content-type': 'text/html' }, html: '<!DOCTYPE html><title>Exempelby</title><h1>Välkommen</h1><a href="/nyheter/">Nyheter</a>' } }));
  t.same(found(bare), ['no-a11y-statement:critical']);
  t.equal(bare.rating, 1);
  t.equal(data(bare).pages_read, 1);
  t.equal(bare.summary.en, 'No accessibility statement was found: the start page is none and links to no page that could be one.');
});

t.test('a start page that could not be read is not rated', async (t) => {
  const down = await world.site('a11y-down.test', {
    handler: (_req, res) => void res.writeHead(503, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html lang="sv"><title>Underhåll</title><h1>Sidan är tillfälligt nere</h1></html>'),
  });
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

t.test('odd pages read without failing: a path that is not valid percent-encoding, a link that is no address, no list of shortcomings', async (t) => {
  t.equal(decodedPath(new URL('https://kommun.test/tillg%C3%A4nglighet')), '/tillgänglighet');
  t.equal(decodedPath(new URL('https://kommun.test/tillg%E4nglighet')), '/tillg%E4nglighet', 'Latin-1 escapes stay as they are');
  const page = readPage('<!DOCTYPE html><html lang="sv"><body><main><h1>Tillgänglighetsredogörelse</h1><p>Kommunen följer lagen.</p><a href="https://[trasig">Trasig länk</a><a href="/om-webbplatsen">Om webbplatsen</a></main></body></html>', 'https://kommun.test/');
  t.same(page.links.map((l) => [l.href, l.url?.href ?? null]), [['https://[trasig', null], ['/om-webbplatsen', 'https://kommun.test/om-webbplatsen']], 'a link that is no address is kept as written, with no URL');
  t.same(inaccessibleContent(page.blocks, 'Kommunen följer lagen. Vi brister mot 1.4.3.'), { found: true, heading: null, items: 0, wcag_criteria: ['1.4.3'] }, 'no list, but a criterion named');
  t.same(inaccessibleContent(page.blocks, 'Kommunen följer lagen.'), { found: false, heading: null, items: 0, wcag_criteria: [] }, 'neither');
});
