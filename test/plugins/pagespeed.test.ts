import t from 'tap';
import pagespeed from '../../plugins/pagespeed/index.js';
import { runPlugin } from '../../core/pipeline.js';
import { loadFixture } from '../helpers/fixture-artifacts.js';

t.test('type 30 rates the good fixture from one real Lighthouse run', async (t) => {
  const { artifacts, probes } = await loadFixture(t, 'good');
  const outcome = await runPlugin(pagespeed, artifacts, { probes });
  const lh = artifacts.lighthouse!;
  const expected = (id: string) => Math.round(Math.max(1, 5 * lh.categories[id].score!) * 100) / 100;
  t.equal(outcome.error, null);
  t.equal(outcome.typeOfTest, 30);
  t.equal(outcome.ratings.pagespeed, expected('performance'));
  t.equal(outcome.ratings.a11y, expected('accessibility'));
  t.equal(lh.categories.accessibility.score, 1, 'the good fixture passes every Lighthouse accessibility audit');
  const data = outcome.data as any;
  t.same(Object.keys(data.metrics).sort(), ['cls', 'fcp_ms', 'lcp_ms', 'speed_index_ms', 'tbt_ms']);
  t.ok(data.metrics.fcp_ms > 0, 'FCP was measured');
  t.match(outcome.reports.en.overall, /^Lighthouse: performance \d+, accessibility 100, best practice \d+, SEO \d+ \(out of 100\)\./);
  t.match(outcome.reports.sv.overall, /^Lighthouse: prestanda \d+, tillgänglighet 100,/);
});

t.test('type 30 reports the flawed fixture\'s failing accessibility audits', async (t) => {
  const { artifacts, probes } = await loadFixture(t, 'flawed');
  const outcome = await runPlugin(pagespeed, artifacts, { probes });
  const failing = (outcome.data as any).failing_audits.filter((a: any) => a.category === 'accessibility').map((a: any) => a.id).sort();
  t.same(failing, ['color-contrast', 'html-has-lang', 'image-alt', 'label']);
  t.ok(outcome.ratings.a11y! < 5);
  t.match(outcome.reports.en.a11y, /^Accessibility: Rating: \d\.\d\d\n- /);
  t.match(outcome.reports.sv.a11y, /^Tillgänglighet: Betyg: \d\.\d\d\n- /);
});
