/**
 * Type 28, HTML Lint (plugins/html-validate). The good and flawed fixture sites are each gathered
 * once in a real Chromium.
 * Expected ratings are worked out here from the reference rules (webperf-reference.md): each
 * failing rule deducts 10 (error) or 1 (warning) from 100, rating = max(1, score / 100 × 5),
 * overall = mean of the categories.
 */
import t from 'tap';
import { NOT_RATED } from '../../core/plugin-api.js';
import htmlLint from '../../plugins/html-validate/index.js';
import { loadFixture } from '../helpers/fixture-artifacts.js';
import { e, findingsOf, rate, rating, reportLines } from '../helpers/plugin-outcomes.js';

// One gather per fixture for the whole file.
const good = await loadFixture(t, 'good');
const flawed = await loadFixture(t, 'flawed');

t.test('type 28 HTML Lint', async (t) => {
  t.equal(htmlLint.meta.id, 28);
  t.same(htmlLint.meta.categories, ['webstandard']);

  t.test('the good fixture is valid under html-validate:standard', async (t) => {
    const { outcome, result } = await rate(htmlLint, good.artifacts, good.probes);
    t.same(findingsOf(result), {});
    t.equal(outcome.rating, 5);
    t.same(outcome.ratings, { webstandard: 5 });
    const data = outcome.data as any;
    t.equal(data.validator, 'html-validate');
    t.equal(data.preset, 'html-validate:standard');
    t.match(data.version, /^10\./);
    t.same(data.messages, []);
    t.equal(data.errors, 0);
    t.equal(data.warnings, 0);
    t.same(reportLines(outcome, 'sv'), ['Standarder: Betyg: 5.00', '- Inget att förbättra hittades.']);
    t.same(reportLines(outcome, 'en'), ['Standards: Rating: 5.00', '- Nothing to improve was found.']);
    t.match(outcome.reports.en.overall, /^The HTML document validated with html-validate 10\.\d+\.\d+ \(standard preset\): 0 errors and 0 warnings\.\nRating: 5\.00$/);
  });

  t.test('the flawed fixture fails four rules, one place each', async (t) => {
    const { outcome, result } = await rate(htmlLint, flawed.artifacts, flawed.probes);
    t.same(findingsOf(result), {
      'element-required-attributes': e(),
      deprecated: e(),
      'element-permitted-content': e(),
      'no-dup-id': e(),
    });
    const expected = rating(4, 0); // 100 − 10 × 4 → 60 → 3.00
    t.equal(expected, 3);
    t.equal(outcome.rating, expected);
    t.same(outcome.ratings, { webstandard: expected });
    const data = outcome.data as any;
    t.same(
      data.messages.map((m: any) => [m.rule, m.severity, m.line, m.column, m.selector]),
      [
        ['element-required-attributes', 'error', 2, 2, 'html'],
        ['deprecated', 'error', 18, 2, 'html > body > div > center'],
        ['element-permitted-content', 'error', 18, 2, 'html > body > div > center'],
        ['no-dup-id', 'error', 21, 9, 'html > body > main > h1'],
      ],
    );
    t.equal(data.errors, 4);
    t.equal(data.warnings, 0);
    t.equal(outcome.reports.en.overall, `The HTML document validated with html-validate ${data.version} (standard preset): 4 errors and 0 warnings.\nRating: 3.00`);
    t.same(reportLines(outcome, 'sv'), [
      'Standarder: Betyg: 3.00',
      '- Element saknar obligatoriskt attribut (element-required-attributes). Första fallet, rad 2: <html> is missing required "lang" attribute',
      '- Föråldrat element används (deprecated). Första fallet, rad 18: <center> is deprecated: use CSS instead',
      '- Element står där det inte får förekomma (element-permitted-content). Första fallet, rad 18: <center> element is not permitted as content under <div>',
      '- Samma id används av flera element (no-dup-id). Första fallet, rad 21: Duplicate ID "top"',
    ]);
    t.same(reportLines(outcome, 'en')[0], 'Standards: Rating: 3.00');
    t.equal(reportLines(outcome, 'en')[4], '- The same id is used by several elements (no-dup-id). First case, line 21: Duplicate ID "top"');
  });

  t.test('an empty document is not rated', async (t) => {
    const artifacts = { ...good.artifacts, mainDocument: { ...good.artifacts.mainDocument, html: '' } };
    const { outcome, result } = await rate(htmlLint, artifacts, good.probes);
    t.same(result.findings, []);
    t.equal(outcome.rating, NOT_RATED);
    t.same(outcome.ratings, {});
    t.equal(outcome.reports.en.overall, 'The page served no HTML document to validate.\nNot rated');
  });
});
