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
import { startWorld } from '../helpers/world/index.js';

const text = { sv: 'x', en: 'x' };
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
