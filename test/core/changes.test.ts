/**
 * What changed between two runs (core/changes.ts, issue 31): the diff of findings, its identity
 * and its noise rules; and every test type run twice on unchanged fixture sites of the world (one
 * full page load each, every active type) gives each finding a key of its own and zero changes.
 */
import t from 'tap';
import { diffFindings, duplicateKeys, findingKey, normaliseLocator, storedFinding, type StoredFinding } from '../../core/changes.js';
import { testPage } from '../../core/engine.js';
import { loadPlugins } from '../../core/registry.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { thirdParties } from '../helpers/third-parties.js';
import { startWorld } from '../helpers/world/index.js';

const text = { sv: 'x', en: 'x' };

/**
 * Per test type, the changes the one-change-per-kind pair yields (the last test): each type sees
 * the changes it judges, and those only. The Google tag sets _ga and _ga_<id> by script (first
 * party, two years, no flags), and the page's own language cookie loses Secure: the cookie rules
 * of tracking (23) and privacy (31) fire for both. HSTS gone: privacy's weaker complaint about it
 * (no preload) goes with it. The new image is served without cache headers: Lighthouse's cache
 * insight (30) notices. Analytics (101) lists the tag among its tools, which is no problem.
 */
const EXPECTED_CHANGES: Record<number, string[]> = {
  2: [], 9: [], 22: [], 25: [], 27: [], 28: [], 32: [], 100: [], 101: [],
  18: ['added a11y image-alt'],
  21: ['added infosec hsts-missing'],
  23: ['added infosec analytics-cookie-without-consent', 'added infosec cookie-long-lifetime', 'added infosec cookie-not-httponly', 'added infosec cookie-not-secure', 'added infosec cookie-samesite-missing', 'added infosec third-party-requests'],
  24: ['added infosec spf-pass-all', 'added webstandard spf-pass-all'],
  26: ['added a11y assessment-date-older-than-1years', 'added a11y updated-date-older-than-1years'],
  29: ['added infosec no-eval'],
  30: ['added a11y image-alt', 'added pagespeed cache-insight'],
  31: ['added infosec cookies-long-lived', 'added infosec cookies-not-httponly', 'added infosec cookies-not-secure', 'added infosec cookies-weak-samesite', 'added infosec hsts-missing', 'resolved infosec hsts-no-preload', 'added infosec known-trackers', 'added infosec sri-missing', 'added infosec third-party-hosts'],
};
const f = (rule: string, severity: StoredFinding['severity'], count = 1, category: StoredFinding['category'] = 'a11y', locator?: string): StoredFinding =>
  ({ rule, category, severity, count, text, ...(locator ? { locator } : {}) });

t.test('the diff: problems added, resolved and changed; passed checks, notes and timing counts are no change', async (t) => {
  const before = [f('image-alt', 'error', 3), f('color-contrast', 'error', 14), f('hsts-missing', 'error', 1, 'infosec'), f('label', 'resolved'), f('unused-css', 'warning', 4, 'pagespeed'), f('cookie-secure', 'warning', 1, 'infosec', 'sid')];
  const after = [f('image-alt', 'error', 4), f('color-contrast', 'warning', 14), f('label', 'resolved'), f('tracker', 'warning', 1, 'infosec'), f('unused-css', 'warning', 9, 'pagespeed'), f('x-note', 'info'), f('cookie-secure', 'warning', 1, 'infosec', 'lang')];
  t.strictSame(diffFindings(before, after).map((c) => [c.key, c.change, c.before, c.after]), [
    ['a11y color-contrast', 'changed', { severity: 'error', count: 14 }, { severity: 'warning', count: 14 }],
    ['a11y image-alt', 'changed', { severity: 'error', count: 3 }, { severity: 'error', count: 4 }],
    ['infosec cookie-secure lang', 'added', null, { severity: 'warning', count: 1 }],
    ['infosec cookie-secure sid', 'resolved', { severity: 'warning', count: 1 }, null],
    ['infosec hsts-missing', 'resolved', { severity: 'error', count: 1 }, null],
    ['infosec tracker', 'added', null, { severity: 'warning', count: 1 }],
  ]);
  t.strictSame(diffFindings(after, after), [], 'the same findings: nothing');
  // A measurement within 25 % of the other run's is jitter, whichever side of its threshold it fell on.
  const lcp = (severity: StoredFinding['severity'], value: number) => ({ ...f('largest-contentful-paint', severity, 1, 'pagespeed'), value });
  t.strictSame(diffFindings([lcp('warning', 2600)], [lcp('resolved', 2300)]), [], 'warning → passed within 25 %: no change');
  t.strictSame(diffFindings([lcp('resolved', 2300)], [lcp('warning', 2800)]), [], 'passed → warning within 25 %: no change');
  t.strictSame(diffFindings([lcp('resolved', 1200)], [lcp('error', 4800)]).map((c) => [c.change, c.after]), [['added', { severity: 'error', count: 1 }]], 'four times slower: a change');
  t.strictSame(diffFindings([lcp('warning', 2600)], []).map((c) => c.change), ['resolved'], 'gone from the result: resolved');
  // Small timings move by more than 25 % on a busy machine: within the unit's floor (250 ms) they are the same.
  const fid = (severity: StoredFinding['severity'], value: number) => ({ ...f('max-potential-fid', severity, 1, 'pagespeed'), value, unit: 'millisecond' });
  t.strictSame(diffFindings([fid('resolved', 63)], [fid('warning', 191)]), [], '63 → 191 ms: jitter');
  t.strictSame(diffFindings([fid('resolved', 63)], [fid('error', 900)]).map((c) => c.change), ['added'], '63 → 900 ms: a change');
  const cls = (severity: StoredFinding['severity'], value: number) => ({ ...f('cumulative-layout-shift', severity, 1, 'pagespeed'), value, unit: 'unitless' });
  t.strictSame(diffFindings([cls('resolved', 0.02)], [cls('error', 0.4)]).map((c) => c.change), ['added'], 'a layout shift of 0.4: a change (the floor is the unit\'s)');
  t.strictSame(duplicateKeys([f('a', 'error'), f('a', 'warning'), f('a', 'error', 1, 'infosec'), f('b', 'error', 1, 'a11y', 'x'), f('b', 'error', 1, 'a11y', 'y')]), ['a11y a']);
});

t.test('a locator as its identity reads it', async (t) => {
  t.equal(normaliseLocator('https://Kommun.test/Bild.png?v=3&w=200&utm_source=x#top'), 'https://kommun.test/bild.png?w=200');
  t.equal(normaliseLocator(' Set-Cookie: SID '), 'set-cookie: sid');
  t.equal(findingKey(storedFinding({ rule: 'r', category: 'infosec', severity: 'error', text, locator: 'HTTPS://A.test/x?_=123' })), 'infosec r https://a.test/x');
});

t.test('every type, twice on unchanged fixture sites: a key of its own for each finding, and no change', async (t) => {
  const world = await startWorld(t);
  const registry = await loadPlugins({ external: [] });
  const plugins = registry.select(null);
  const guard = world.guard();
  for (const fixture of ['flawed', 'good']) {
    const site = await world.site(`${fixture}-twice.test`, { root: fixture });
    const runs = [];
    for (let i = 0; i < 2; i++) runs.push(await testPage(site.url, plugins, { browser: await testBrowserPool().acquire(), guard, registry }, { loadFailure: 'report' }));
    for (const [i, p] of plugins.entries()) {
      const [a, b] = runs.map((r) => r.outcomes[i].findings.map(storedFinding));
      t.strictSame([duplicateKeys(a), duplicateKeys(b)], [[], []], `${fixture}, type ${p.meta.id}: each finding a key of its own`);
      t.strictSame(diffFindings(a, b).map((c) => `${c.change} ${c.key} ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`), [], `${fixture}, type ${p.meta.id}: no change (${a.length} findings)`);
    }
  }
});

/**
 * One site changed between two runs, one thing for each kind of test (issue 31, item 6): HSTS
 * removed, an image without alternative text, the Google tag (a tracker, analytics, a third party
 * setting cookies), a script calling eval, a cookie without Secure, the SPF record broken, the
 * accessibility statement's date aged past a year. Each test type's pair yields exactly the
 * changes listed here for it and nothing else.
 */
t.test('one change of each kind between two runs: each type reports exactly its own', async (t) => {
  const world = await startWorld(t);
  await thirdParties(world);
  const registry = await loadPlugins({ external: [] });
  const plugins = registry.select(null);
  const guard = world.guard();
  let changed = false;
  const dayMs = 86_400_000;
  const iso = (daysAgo: number) => new Date(Date.now() - daysAgo * dayMs).toISOString().slice(0, 10);
  const start = () => `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Ändringar</title>
${changed ? '<script async src="https://www.googletagmanager.com/gtag/js?id=G-CHANGES1"></script>' : ''}</head>
<body><main><h1>Kommunen</h1><p>Välkommen till kommunens webbplats. Här finns information om service.</p>${changed ? '<img src="/bild.png" width="10" height="10">' : ''}
<p><a href="/tillganglighet/">Tillgänglighetsredogörelse</a></p></main>
<script>window.kommun = 1;${changed ? ' eval("1 + 1");' : ''}</script></body></html>`;
  const statement = () => `<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><title>Tillgänglighetsredogörelse</title></head><body><main>
<h1>Tillgänglighetsredogörelse</h1><p>Den här webbplatsen är helt förenlig med lagen om tillgänglighet till digital offentlig service.</p>
<p>Meddela oss om du upptäcker problem: <a href="mailto:webb@andras.test">webb@andras.test</a>.</p>
<p>Myndigheten för digital förvaltning har ansvaret för tillsyn: <a href="https://www.digg.se/tdosanmalan">anmäl</a>.</p>
<p>Vi har gjort en självskattning. Bedömningen gjordes ${iso(changed ? 500 : 30)}.</p><p>Redogörelsen uppdaterades senast ${iso(changed ? 500 : 30)}.</p></main></body></html>`;
  const site = await world.site('andras.test', {
    handler: (req, res) => {
      const p = new URL(req.url ?? '/', 'https://andras.test').pathname;
      const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-security-policy': "frame-ancestors 'none'" };
      if (!changed) headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
      if (p === '/bild.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex'));
      if (p === '/tillganglighet/') return void res.writeHead(200, headers).end(statement());
      if (p !== '/') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('saknas');
      res.setHeader('set-cookie', `sprak=sv; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax${changed ? '' : '; Secure'}`);
      res.writeHead(200, headers).end(start());
    },
  });
  const spf = (broken: boolean) => world.record('andras.test', { MX: [{ exchange: 'mx.andras.test', priority: 10 }], TXT: [[broken ? 'v=spf1 ip4:192.0.2.0/24 +all' : 'v=spf1 ip4:192.0.2.0/24 -all']] });
  world.record('mx.andras.test', { A: ['192.0.2.30'] });
  world.record('_dmarc.andras.test', { TXT: [['v=DMARC1; p=reject']] });
  spf(false);
  const run = async () => (await testPage(site.url, plugins, { browser: await testBrowserPool().acquire(), guard, registry }, { loadFailure: 'report' })).outcomes;
  const before = await run();
  changed = true;
  spf(true);
  const after = await run();
  const diffs = Object.fromEntries(plugins.map((p, i) => [p.meta.id, diffFindings(before[i].findings.map(storedFinding), after[i].findings.map(storedFinding)).map((c) => `${c.change} ${c.key}`)]));
  t.strictSame(diffs, EXPECTED_CHANGES);
});
