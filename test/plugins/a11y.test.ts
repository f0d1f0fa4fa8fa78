/**
 * Type 18, accessibility (plugins/a11y), on the good and flawed fixture sites, each loaded once in
 * a real Chromium by the gather step and shared by every subtest below.
 */
import t from 'tap';
import a11y, { AXE_RUN_TAGS } from '../../plugins/a11y/index.js';
import { AXE_TAGS } from '../../core/gather/gather.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import { DEDUCTION } from '../../core/rating.js';
import { NOT_RATED, type AxeRuleResult } from '../../core/plugin-api.js';
import { LOOPBACK_GUARD, loadFixture } from '../helpers/fixture-artifacts.js';

const probes = createProbes(LOOPBACK_GUARD);
const good = (await loadFixture(t, 'good')).artifacts;
const flawed = (await loadFixture(t, 'flawed')).artifacts;

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

t.test('type 18 without an axe result: the pipeline does not run it and says which artifact is missing', async (t) => {
  const outcome = await runPlugin(a11y, { ...good, axe: null }, { probes });
  t.equal(outcome.error, 'required artifact axe not collected by the page load');
  t.equal(outcome.rating, NOT_RATED);
  t.same(outcome.ratings, {});
  t.equal(outcome.reports.sv.overall, 'Testet kunde inte genomföras: required artifact axe not collected by the page load');
  t.equal(outcome.reports.en.overall, 'The test could not be completed: required artifact axe not collected by the page load');
});

t.test("type 18 records the gather step's axe tags", async (t) => {
  t.same(AXE_RUN_TAGS, AXE_TAGS);
});
