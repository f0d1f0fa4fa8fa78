/**
 * Types 18 (accessibility), 100 (LIX) and 101 (web analytics) on real fixture sites, each loaded
 * once in a real Chromium by the gather step and shared by every subtest below.
 */
import t from 'tap';
import a11y, { AXE_RUN_TAGS } from '../../plugins/a11y/index.js';
import analytics from '../../plugins/analytics/index.js';
import lixPlugin from '../../plugins/lix/index.js';
import { AXE_TAGS } from '../../core/gather/gather.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import { DEDUCTION } from '../../core/rating.js';
import { NOT_RATED, type AxeRuleResult } from '../../core/plugin-api.js';
import { LOOPBACK_GUARD, loadFixture } from '../helpers/fixture-artifacts.js';

const probes = createProbes(LOOPBACK_GUARD);
const good = (await loadFixture(t, 'good')).artifacts;
const flawed = (await loadFixture(t, 'flawed')).artifacts;
const local = (await loadFixture(t, 'analytics-local')).artifacts;

/** The reference's issue-based rating: 100 minus each failing rule's deduction, max(1, score/100 × 5). */
const referenceRating = (severities: (keyof typeof DEDUCTION)[]) =>
  Math.max(1, ((100 - severities.reduce((s, v) => s + DEDUCTION[v], 0)) / 100) * 5);

t.test('type 18: the good fixture has no axe violation', async (t) => {
  const outcome = await runPlugin(a11y, good, { probes });
  t.equal(outcome.error, null);
  t.equal(outcome.typeOfTest, 18);
  t.equal(outcome.rating, 5);
  t.same(outcome.ratings, { a11y: 5 });
  const data = outcome.data as any;
  t.equal(data.axe_version, good.axe!.version);
  t.match(data.axe_version, /^4\.\d+\.\d+$/);
  t.same(data.tags, ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']);
  t.same(data.violations, []);
  t.equal(outcome.reports.sv.a11y, 'Tillgänglighet: Betyg: 5.00\n- Inget att förbättra hittades.');
  t.match(outcome.reports.en.overall, /^axe-core 4\.\d+\.\d+ found no failures against WCAG 2\.2 A and AA \(\d+ rules passed\)\./);
});

t.test('type 18: the flawed fixture fails exactly four WCAG rules', async (t) => {
  const outcome = await runPlugin(a11y, flawed, { probes });
  const data = outcome.data as any;
  const version = flawed.axe!.version.split('.').slice(0, 2).join('.');
  const url = (rule: string) => `https://dequeuniversity.com/rules/axe/${version}/${rule}?application=axeAPI`;
  // Most severe first, then by rule id. (`region` is a best-practice rule, outside the WCAG tags run.)
  t.same(data.violations, [
    { rule: 'image-alt', impact: 'critical', count: 1, selectors: ['img'], help_url: url('image-alt') },
    { rule: 'label', impact: 'critical', count: 1, selectors: ['input'], help_url: url('label') },
    { rule: 'color-contrast', impact: 'serious', count: 1, selectors: ['.ljus'], help_url: url('color-contrast') },
    { rule: 'html-has-lang', impact: 'serious', count: 1, selectors: ['html'], help_url: url('html-has-lang') },
  ]);
  // critical × 2 → −50, serious (error) × 2 → −20: 30 → 1.5.
  const expected = referenceRating(['critical', 'critical', 'error', 'error']);
  t.equal(expected, 1.5);
  t.equal(outcome.rating, expected);
  t.same(outcome.ratings, { a11y: expected });
  t.equal(
    outcome.reports.sv.a11y,
    [
      'Tillgänglighet: Betyg: 1.50',
      '- Bilder saknar alternativtext (1 element)',
      '- Formulärfält saknar etikett (1 element)',
      '- Text har för låg kontrast mot bakgrunden (1 element)',
      '- Sidan anger inte sitt språk (lang-attribut på <html>) (1 element)',
    ].join('\n'),
  );
  t.equal(
    outcome.reports.en.a11y,
    [
      'Accessibility: Rating: 1.50',
      '- Images must have alternative text (1 element)',
      '- Form elements must have labels (1 element)',
      '- Elements must meet minimum color contrast ratio thresholds (1 element)',
      '- <html> element must have a lang attribute (1 element)',
    ].join('\n'),
  );
  t.match(outcome.reports.sv.overall, /^axe-core 4\.\d+\.\d+ hittade brister mot 4 regler i WCAG 2\.2 A och AA, i sammanlagt 4 element \(\d+ regler godkända\)\.\nBetyg: 1\.50$/);
});

t.test('type 18: impacts, fallbacks and long element lists', async (t) => {
  const nodes = (n: number) => Array.from({ length: n }, (_, i) => ({ target: [`li:nth-child(${i + 1})`], html: '<li>' }));
  const rule = (id: string, impact: AxeRuleResult['impact'], n: number): AxeRuleResult => ({
    id, impact, tags: ['wcag2a'], help: `${id} help`, helpUrl: `https://example.org/${id}`, nodes: nodes(n),
  });
  const axe = {
    version: '4.14.1',
    passes: 10,
    incomplete: 0,
    violations: [rule('made-up-rule', 'moderate', 25), rule('link-name', 'minor', 2), rule('list', null, 1), rule('frame-title', 'serious', 1)],
  };
  const outcome = await runPlugin(a11y, { ...good, axe }, { probes });
  // serious → error (−10); moderate, minor and no impact → warning (−1 each): 87 → 4.35.
  t.equal(outcome.rating, referenceRating(['error', 'warning', 'warning', 'warning']));
  t.equal(outcome.rating, 4.35);
  const data = outcome.data as any;
  t.same(data.violations.map((v: any) => v.rule), ['frame-title', 'link-name', 'list', 'made-up-rule']);
  const madeUp = data.violations.find((v: any) => v.rule === 'made-up-rule');
  t.equal(madeUp.count, 25);
  t.equal(madeUp.selectors.length, 20, 'selectors are cut at 20');
  t.equal(madeUp.selectors[19], 'li:nth-child(20)');
  t.match(outcome.reports.sv.a11y, '- made-up-rule help (25 element)', 'unknown rules fall back to axe help');
  t.match(outcome.reports.sv.a11y, '- Länkar saknar text som beskriver dem (2 element)');
  t.match(outcome.reports.en.a11y, '- made-up-rule help (25 elements)');
});

t.test('type 18: no axe result is not rated', async (t) => {
  const outcome = await runPlugin(a11y, { ...good, axe: null }, { probes });
  t.equal(outcome.error, null);
  t.equal(outcome.rating, NOT_RATED);
  t.same(outcome.ratings, {});
  t.equal(outcome.reports.sv.overall, 'axe-core kunde inte köras på sidan, så tillgängligheten är inte bedömd.\nInte bedömt');
  t.equal(outcome.reports.en.overall, 'axe-core could not run on the page, so accessibility is not rated.\nNot rated');
});

t.test("type 18 records the gather step's axe tags", async (t) => {
  t.same(AXE_RUN_TAGS, AXE_TAGS);
});

t.test('type 100: LIX of the good fixture\'s main text', async (t) => {
  t.notMatch(good.mainText, 'Quay Street', 'the footer is left out');
  t.notMatch(good.mainText, 'News feed', 'the navigation is left out');
  const outcome = await runPlugin(lixPlugin, good, { probes });
  t.equal(outcome.error, null);
  t.equal(outcome.typeOfTest, 100);
  // 243 words in 22 sentences (5 headings, 14 sentences of body text, 2 form labels and the
  // button each on a line of their own), 46 long words: 243/22 + 100 × 46/243 = 29.98 → 30.0.
  t.same(outcome.data, { lix: 30, words: 243, sentences: 22, long_words: 46, band: 'easy', short_text: false });
  t.equal(outcome.rating, 5);
  t.same(outcome.ratings, {});
  t.equal(outcome.reports.sv.overall, 'LIX 30,0: Lättläst, skönlitteratur, populärtidningar (243 ord, 22 meningar, 19 % långa ord).\nBetyg: 5.00');
  t.equal(outcome.reports.en.overall, 'LIX 30.0: Easy: fiction, popular magazines (243 words, 22 sentences, 19% long words).\nRating: 5.00');
});

t.test('type 100: LIX of the flawed fixture\'s short Swedish text', async (t) => {
  const outcome = await runPlugin(lixPlugin, flawed, { probes });
  // Hand-counted: heading 3 words (2 long), four paragraphs' sentences 7/11/14 · 10/14/12/16 words
  // (2+3+4 · 0+3+2+4 long), the newsletter line 12 words (3 long), the button "Skicka":
  // 100 words, 10 sentences, 23 long → 10 + 23 = 33.0.
  t.same(outcome.data, { lix: 33, words: 100, sentences: 10, long_words: 23, band: 'easy', short_text: true });
  t.equal(outcome.rating, 5, 'a short text is still rated');
  t.equal(
    outcome.reports.sv.overall,
    'LIX 33,0: Lättläst, skönlitteratur, populärtidningar (100 ord, 10 meningar, 23 % långa ord).\n- Texten är kort (100 ord, under 200): värdet är osäkert.\nBetyg: 5.00',
  );
  t.equal(
    outcome.reports.en.overall,
    'LIX 33.0: Easy: fiction, popular magazines (100 words, 10 sentences, 23% long words).\n- The text is short (100 words, fewer than 200): the value is unreliable.\nRating: 5.00',
  );
});

t.test('type 100: ratings per band, and a page without words', async (t) => {
  const sentence = (words: number, long: number) =>
    Array.from({ length: words }, (_, i) => (i < long ? 'förvaltning' : 'ord')).join(' ') + '.';
  // One sentence of n short words: LIX n.
  for (const [words, rating] of [[39, 5], [40, 4], [50, 3], [60, 2], [90, 2]] as const) {
    const outcome = await runPlugin(lixPlugin, { ...good, mainText: sentence(words, 0) }, { probes });
    t.equal(outcome.rating, rating, `LIX ${words} → ${rating}`);
  }
  const none = await runPlugin(lixPlugin, { ...good, mainText: '1952 – 2025' }, { probes });
  t.equal(none.rating, NOT_RATED);
  t.same(none.data, { lix: null, words: 0, sentences: 0, long_words: 0, band: null, short_text: true });
  t.equal(none.reports.sv.overall, 'Sidan har ingen huvudtext att mäta läsbarheten på.\nInte bedömt');
});

t.test('type 101: the flawed fixture uses Google Analytics and Matomo', async (t) => {
  const outcome = await runPlugin(analytics, flawed, { probes });
  t.equal(outcome.error, null);
  t.equal(outcome.typeOfTest, 101);
  t.equal(outcome.rating, NOT_RATED);
  t.same(outcome.ratings, {});
  t.same(outcome.data, {
    tools: ['Google Analytics', 'Matomo'],
    detections: [
      // _ga is shared with Google Tag Manager, which has no evidence of its own here.
      { tool: 'Google Analytics', evidence: [{ kind: 'body', match: 'window.GoogleAnalyticsObject' }, { kind: 'cookie', match: '_ga' }] },
      { tool: 'Matomo', evidence: [{ kind: 'body', match: 'matomo.php' }] },
    ],
  });
  t.equal(
    outcome.reports.sv.overall,
    [
      'Webbanalys som används: Google Analytics, Matomo. Detta är en kartläggning, inget betyg.',
      '- Google Analytics: kod window.GoogleAnalyticsObject, kaka _ga',
      '- Matomo: kod matomo.php',
      'Inte bedömt',
    ].join('\n'),
  );
  t.match(outcome.reports.en.overall, /^Web analytics in use: Google Analytics, Matomo\. This is a detection, not a judgement: not rated\.\n/);
});

t.test('type 101: the good fixture uses no analytics', async (t) => {
  const outcome = await runPlugin(analytics, good, { probes });
  t.equal(outcome.rating, NOT_RATED);
  t.same(outcome.data, { tools: [], detections: [] });
  t.equal(outcome.reports.en.overall, 'None of 29 known web-analytics tools was found. This is a detection, not a judgement: not rated.\nNot rated');
});

t.test('type 101: request URLs, external script text and cookies only', async (t) => {
  // /js/umami.js is requested (url) and named in the HTML (body); window.fathom is only in the
  // external /js/stats.js; _pk_ref is Matomo's alone, so the shared _pk_id goes to Matomo too;
  // a lone _gid (shared by Google Analytics and Google Tag Manager) goes to Google Analytics.
  const outcome = await runPlugin(analytics, local, { probes });
  t.same(outcome.data, {
    tools: ['Fathom Analytics', 'Google Analytics', 'Matomo', 'Umami'],
    detections: [
      { tool: 'Fathom Analytics', evidence: [{ kind: 'body', match: 'window.fathom' }] },
      { tool: 'Google Analytics', evidence: [{ kind: 'cookie', match: '_gid' }] },
      { tool: 'Matomo', evidence: [{ kind: 'cookie', match: '_pk_ref.1.a1b2' }, { kind: 'cookie', match: '_pk_id.1.a1b2' }] },
      { tool: 'Umami', evidence: [{ kind: 'url', match: '/umami.js' }, { kind: 'body', match: '/umami.js' }] },
    ],
  });
});
