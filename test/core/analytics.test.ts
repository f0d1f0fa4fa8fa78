import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { ANALYTICS_RULES, ANALYTICS_TOOLS, analyticsCookieTool, analyticsCookieTools, analyticsOfPage, COOKIE_ORIGINATORS, detectAnalytics } from '../../core/analytics.js';
import { PROJECT_ROOT } from '../../core/config.js';
import { fixtureRoot } from '../helpers/fixture-artifacts.js';

const none = { urls: [], bodies: [], cookies: [] };
const tools = (input: Partial<Parameters<typeof detectAnalytics>[0]>) => detectAnalytics({ ...none, ...input }).map((d) => d.tool);

t.test('the 29 tools of the rules file, in its order', async (t) => {
  const raw = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'core', 'data', 'analytics-rules.json'), 'utf8'));
  t.equal(ANALYTICS_TOOLS.length, 29);
  t.same(ANALYTICS_TOOLS, raw.map((r: { name: string }) => r.name));
  t.same(ANALYTICS_TOOLS.slice(0, 5), ['Piwik PRO', 'Matomo', 'Matomo Tag Manager', 'Google Analytics', 'Google Tag Manager']);
  t.throws(() => (ANALYTICS_TOOLS as string[]).push('x'), 'the list is frozen');
});

t.test('comment lines are no cookie prefixes', async (t) => {
  for (const rule of ANALYTICS_RULES) {
    for (const prefix of rule.cookies) t.notOk(prefix.startsWith('source:') || /\s/.test(prefix), `${rule.name}: ${prefix}`);
  }
  t.same(ANALYTICS_RULES.find((r) => r.name === 'Mixpanel')!.cookies, [], "Mixpanel's note is not a prefix");
  t.same(ANALYTICS_RULES.find((r) => r.name === 'Vizzit')!.cookies, ['___vizzit']);
  t.same(tools({ cookies: [{ name: 'source' }, { name: 'they' }] }), []);
});

t.test('every tool is detected, alone, by each of its match strings in a body and in a URL', async (t) => {
  for (const rule of ANALYTICS_RULES) {
    t.ok(rule.matches.length > 0, `${rule.name} has match strings`);
    for (const m of rule.matches) {
      t.same(detectAnalytics({ ...none, bodies: [`<html>…${m}…</html>`] }), [{ tool: rule.name, evidence: [{ kind: 'body', match: m }] }], `${rule.name} by body ${m}`);
      t.same(detectAnalytics({ ...none, urls: [`https://cdn.example/x/${m}?v=1`] }), [{ tool: rule.name, evidence: [{ kind: 'url', match: m }] }], `${rule.name} by URL ${m}`);
    }
  }
});

t.test('every cookie prefix names a tool', async (t) => {
  for (const rule of ANALYTICS_RULES) {
    for (const prefix of rule.cookies) {
      const owner = analyticsCookieTool(`${prefix}123`, [rule.name]);
      t.equal(owner, rule.name, `${prefix} → ${rule.name}`);
    }
  }
});

t.test('matching is case-sensitive, as the rules are written', async (t) => {
  t.same(tools({ bodies: ['WINDOW.GOOGLEANALYTICSOBJECT = "ga"'] }), []);
  t.same(tools({ bodies: ['window.GoogleAnalyticsObject = "ga"'] }), ['Google Analytics']);
  t.same(tools({ cookies: [{ name: '_GA' }] }), []);
});

t.test('cookies: unique prefixes, and prefixes several tools share', async (t) => {
  t.same(detectAnalytics({ ...none, cookies: [{ name: '_hjSession_12345' }, { name: 'session' }] }), [
    { tool: 'Hotjar', evidence: [{ kind: 'cookie', match: '_hjSession_12345' }] },
  ]);

  // _ga belongs to Google Analytics and Google Tag Manager: alone, it names Google Analytics.
  t.same(detectAnalytics({ ...none, cookies: [{ name: '_ga' }, { name: '_ga_ABC123' }] }), [
    { tool: 'Google Analytics', evidence: [{ kind: 'cookie', match: '_ga' }, { kind: 'cookie', match: '_ga_ABC123' }] },
  ]);
  // With Tag Manager's container and no Google Analytics code, _ga goes to Google Tag Manager only.
  t.same(detectAnalytics({ ...none, urls: ['https://www.googletagmanager.com/gtm.js?id=GTM-1'], cookies: [{ name: '_ga' }] }), [
    { tool: 'Google Tag Manager', evidence: [{ kind: 'url', match: 'googletagmanager.com/gtm.js' }, { kind: 'cookie', match: '_ga' }] },
  ]);
  // Both present: both get the cookie.
  t.same(
    detectAnalytics({
      ...none,
      urls: ['https://www.googletagmanager.com/gtm.js?id=GTM-1', 'https://www.google-analytics.com/analytics.js'],
      cookies: [{ name: '_gid' }],
    }),
    [
      { tool: 'Google Analytics', evidence: [{ kind: 'url', match: 'google-analytics.com/analytics.js' }, { kind: 'cookie', match: '_gid' }] },
      { tool: 'Google Tag Manager', evidence: [{ kind: 'url', match: 'googletagmanager.com/gtm.js' }, { kind: 'cookie', match: '_gid' }] },
    ],
  );

  // _pk_id belongs to Piwik PRO and Matomo: alone, Matomo (it introduced the cookie, as Piwik) ...
  t.same(tools({ cookies: [{ name: '_pk_id.1.a1b2' }] }), ['Matomo']);
  // ... with Piwik PRO's code, Piwik PRO ...
  t.same(tools({ urls: ['https://example.piwik.pro/ppms.js'], cookies: [{ name: '_pk_id.1.a1b2' }] }), ['Piwik PRO']);
  // ... with Matomo's code, Matomo ...
  t.same(tools({ bodies: ['_paq.push(["setTrackerUrl", "/matomo.php"])'], cookies: [{ name: '_pk_id.1.a1b2' }] }), ['Matomo']);
  // ... and with a cookie only Matomo sets (_pk_ref), Matomo too.
  t.same(detectAnalytics({ ...none, cookies: [{ name: '_pk_ses.1.a1b2' }, { name: '_pk_ref.1.a1b2' }, { name: '_pk_id.1.a1b2' }] }), [
    {
      tool: 'Matomo',
      evidence: [
        { kind: 'cookie', match: '_pk_ref.1.a1b2' },
        { kind: 'cookie', match: '_pk_id.1.a1b2' },
        { kind: 'cookie', match: '_pk_ses.1.a1b2' },
      ],
    },
  ]);
  // Piwik PRO's own cookie makes _pk_id Piwik PRO's.
  t.same(tools({ cookies: [{ name: '_pk_id.1.a1b2' }, { name: 'ppms_privacy_abc' }] }), ['Piwik PRO']);

  for (const tool of COOKIE_ORIGINATORS) t.ok(ANALYTICS_TOOLS.includes(tool), `${tool} is a tool of the rules`);
  t.equal(analyticsCookieTool('_ga'), 'Google Analytics');
  t.equal(analyticsCookieTool('_ga', ['Google Tag Manager']), 'Google Tag Manager');
  t.equal(analyticsCookieTool('_pk_id.1.a1b2'), 'Matomo');
  t.equal(analyticsCookieTool('_pk_id.1.a1b2', ['Piwik PRO']), 'Piwik PRO');
  t.equal(analyticsCookieTool('_pk_id.1.a1b2', ['Piwik PRO', 'Matomo']), 'Piwik PRO, Matomo', 'both present: both named, rules order');
  t.same(analyticsCookieTools('_ga', ['Google Tag Manager', 'Google Analytics']), ['Google Analytics', 'Google Tag Manager']);
  t.same(analyticsCookieTools('_ga'), ['Google Analytics']);
  t.same(analyticsCookieTools('session'), []);
  t.equal(analyticsCookieTool('_pk_ref.1.a1b2'), 'Matomo');
  t.equal(analyticsCookieTool('ai_session'), 'Application Insights');
  t.equal(analyticsCookieTool('session'), null);
  t.equal(analyticsCookieTool(''), null);
});

t.test('evidence is listed once per rule string, tools sorted by name', async (t) => {
  const found = detectAnalytics({
    urls: ['https://static.hotjar.com/c/hotjar-1.js?sv=6', 'https://static.hotjar.com/c/hotjar-1.js?sv=7', 'https://cdn.usefathom.com/script.js'],
    bodies: ['window.hj=window.hj||function(){}', 'window.hj=window.hj||function(){}; window._hjSettings={}'],
    cookies: [{ name: '_hjSession_1' }, { name: '_hjSession_1' }],
  });
  t.same(found, [
    { tool: 'Fathom Analytics', evidence: [{ kind: 'url', match: 'cdn.usefathom.com' }] },
    {
      tool: 'Hotjar',
      evidence: [
        { kind: 'url', match: 'https://static.hotjar.com/c/hotjar-' },
        { kind: 'body', match: 'window._hjSettings' },
        { kind: 'body', match: 'window.hj=window.hj' },
        { kind: 'cookie', match: '_hjSession_1' },
      ],
    },
  ]);
});

t.test('no false positive on a plain page', async (t) => {
  const html = await readFile(path.join(fixtureRoot('good'), 'index.html'), 'utf8');
  const plainScript = 'document.querySelector("form").addEventListener("submit", (e) => { if (!e.target.checkValidity()) e.preventDefault(); });';
  t.same(
    detectAnalytics({
      urls: ['https://www.example.org/', 'https://www.example.org/style.css', 'https://www.example.org/images/logo.svg', 'https://www.example.org/js/app.js'],
      bodies: [html, plainScript],
      cookies: [{ name: 'session' }, { name: 'lang' }, { name: 'cookieconsent_status' }],
    }),
    [],
  );
  t.same(detectAnalytics(none), []);
});

t.test('our amendments: the shipped file stays as upstream, ours sits beside it with a reason per entry', async (t) => {
  const shipped = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'core', 'data', 'analytics-rules.json'), 'utf8'));
  const local = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'core', 'data', 'analytics-rules.local.json'), 'utf8'));
  t.same(shipped.find((r: any) => r.name === 'Google Tag Manager').matches, ['googletagmanager.com/gtm.js', 'googletagmanager.com/gtag', '"value": "Google Tag Manager"']);
  for (const entry of local) t.ok(entry.why.length > 40, `${entry.name} says why`);
  const rule = (name: string) => ANALYTICS_RULES.find((r) => r.name === name)!;
  t.same(rule('Google Tag Manager').matches, ['googletagmanager.com/gtm.js', '"value": "Google Tag Manager"']);
  t.same(rule('Google Analytics').matches, [
    'window.GoogleAnalyticsObject',
    'google-analytics.com/analytics.js',
    'google-analytics.com/ga.js',
    'googletagmanager.com/gtag/js?id=G-',
    'google-analytics.com/g/collect',
    'analytics.google.com/g/collect',
    "gtag('config', 'G-",
    'gtag("config", "G-',
  ]);
});

t.test('Google Analytics 4 through the Google tag is Google Analytics, a GTM- container is Tag Manager, both are both', async (t) => {
  const ga4 = {
    urls: ['https://www.googletagmanager.com/gtag/js?id=G-ABC123', 'https://region1.google-analytics.com/g/collect?v=2&tid=G-ABC123&en=page_view'],
    bodies: ["window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);} gtag('js', new Date()); gtag('config', 'G-ABC123');"],
    cookies: [{ name: '_ga' }, { name: '_ga_ABC123' }],
  };
  t.same(detectAnalytics(ga4), [
    {
      tool: 'Google Analytics',
      evidence: [
        { kind: 'url', match: 'googletagmanager.com/gtag/js?id=G-' },
        { kind: 'url', match: 'google-analytics.com/g/collect' },
        { kind: 'body', match: "gtag('config', 'G-" },
        { kind: 'cookie', match: '_ga' },
        { kind: 'cookie', match: '_ga_ABC123' },
      ],
    },
  ]);
  const gtm = {
    urls: ['https://www.googletagmanager.com/gtm.js?id=GTM-XYZ9'],
    bodies: ["(function(w,d,s,l,i){j.src='https://www.googletagmanager.com/gtm.js?id='+i+dl;})(window,document,'script','dataLayer','GTM-XYZ9');"],
    cookies: [],
  };
  t.same(detectAnalytics(gtm), [
    { tool: 'Google Tag Manager', evidence: [{ kind: 'url', match: 'googletagmanager.com/gtm.js' }, { kind: 'body', match: 'googletagmanager.com/gtm.js' }] },
  ]);
  // Both: each keeps its own evidence, and the cookies they share are evidence for both.
  const both = detectAnalytics({ urls: [...ga4.urls, ...gtm.urls], bodies: [...ga4.bodies, ...gtm.bodies], cookies: ga4.cookies });
  t.same(both.map((d) => d.tool), ['Google Analytics', 'Google Tag Manager']);
  t.same(both[1].evidence, [
    { kind: 'url', match: 'googletagmanager.com/gtm.js' },
    { kind: 'body', match: 'googletagmanager.com/gtm.js' },
    { kind: 'cookie', match: '_ga' },
    { kind: 'cookie', match: '_ga_ABC123' },
  ]);
  t.same(both[0].evidence.filter((e) => e.kind === 'cookie').map((e) => e.match), ['_ga', '_ga_ABC123']);
  // The Google tag loading only an Ads id is neither tool.
  t.same(tools({ urls: ['https://www.googletagmanager.com/gtag/js?id=AW-123'] }), []);
});

t.test('a page load is searched once, whichever test types ask: the same detections as detectAnalytics', async (t) => {
  const page = {
    network: [{ url: 'https://www.googletagmanager.com/gtag/js?id=G-ABC123' }, { url: 'https://kommun.test/app.js' }],
    mainDocument: { html: '<script>var _paq = window._paq = window._paq || [];</script>' },
    scripts: [{ content: "gtag('config', 'G-ABC123');" }],
    cookies: [{ name: '_pk_id.1.abcd' }, { name: '_ga' }],
  };
  const first = analyticsOfPage(page);
  t.same(first, detectAnalytics({ urls: page.network.map((r) => r.url), bodies: [page.mainDocument.html, page.scripts[0].content], cookies: page.cookies }));
  t.same(first.map((d) => d.tool), ['Google Analytics', 'Matomo']);
  t.equal(analyticsOfPage(page), first, 'the second ask gets the first answer: not searched again');
  t.not(analyticsOfPage({ ...page }), first, 'another page load is searched afresh');
});
