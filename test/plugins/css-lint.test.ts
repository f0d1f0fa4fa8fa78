/**
 * Type 27, CSS Lint (plugins/css-lint). The good and flawed fixture sites are each gathered once
 * in a real Chromium; edge cases vary the good fixture's stylesheets.
 * Expected ratings are worked out here from the reference rules (webperf-reference.md): each
 * failing rule deducts 10 (error) or 1 (warning) from 100, rating = max(1, score / 100 × 5),
 * overall = mean of the categories.
 */
import t from 'tap';
import { NOT_RATED, type Artifacts } from '../../core/plugin-api.js';
import cssLint from '../../plugins/css-lint/index.js';
import { loadFixture } from '../helpers/fixture-artifacts.js';
import { e, findingsOf, rate, rating, reportLines, w } from '../helpers/plugin-outcomes.js';

// One gather per fixture for the whole file.
const good = await loadFixture(t, 'good');
const flawed = await loadFixture(t, 'flawed');
const goodOrigin = new URL(good.url).origin;
const flawedOrigin = new URL(flawed.url).origin;

t.test('type 27 CSS Lint', async (t) => {
  t.equal(cssLint.meta.id, 27);

  t.test('the good fixture\'s stylesheet is valid', async (t) => {
    const { outcome, result } = await rate(cssLint, good.artifacts, good.probes);
    t.same(findingsOf(result), {});
    t.equal(outcome.rating, 5);
    t.same(outcome.ratings, { webstandard: 5 });
    const data = outcome.data as any;
    t.equal(data.linter, 'stylelint');
    t.match(data.version, /^17\./);
    t.same(data.stylesheets, [{ url: `${goodOrigin}/style.css`, messages: [] }]);
    t.same(reportLines(outcome, 'sv'), ['Standarder: Betyg: 5.00', '- Inget att förbättra hittades.']);
  });

  t.test('the flawed fixture: three invalid declarations and a duplicate selector', async (t) => {
    const { outcome, result } = await rate(cssLint, flawed.artifacts, flawed.probes);
    t.same(findingsOf(result), {
      'property-no-unknown': e(),
      'color-no-invalid-hex': e(),
      'declaration-property-value-no-unknown': e(),
      'no-duplicate-selectors': w(),
    });
    const expected = rating(3, 1); // 100 − 10 × 3 − 1 → 69 → 3.45
    t.equal(expected, 3.45);
    t.equal(outcome.rating, expected);
    t.same(outcome.ratings, { webstandard: expected });
    const data = outcome.data as any;
    t.same(data.stylesheets, [
      {
        url: `${flawedOrigin}/style.css`,
        messages: [
          { rule: 'property-no-unknown', severity: 'error', line: 12, column: 3, text: 'Unknown property "colr"' },
          { rule: 'color-no-invalid-hex', severity: 'error', line: 13, column: 28, text: 'Invalid hex color "#ggg"' },
          { rule: 'declaration-property-value-no-unknown', severity: 'error', line: 13, column: 28, text: 'Unknown value "#ggg" for property "border-bottom"' },
          { rule: 'no-duplicate-selectors', severity: 'warning', line: 20, column: 1, text: 'Duplicate selector "h1", first used at line 11' },
        ],
      },
    ]);
    t.equal(data.errors, 3);
    t.equal(data.warnings, 1);
    t.same(reportLines(outcome, 'en'), [
      'Standards: Rating: 3.45',
      `- Unknown property (property-no-unknown). First case: ${flawedOrigin}/style.css, line 12: Unknown property "colr"`,
      `- Invalid hex colour (color-no-invalid-hex). First case: ${flawedOrigin}/style.css, line 13: Invalid hex color "#ggg"`,
      `- Invalid value for the property (declaration-property-value-no-unknown). First case: ${flawedOrigin}/style.css, line 13: Unknown value "#ggg" for property "border-bottom"`,
      `- The same selector occurs several times (no-duplicate-selectors). First case: ${flawedOrigin}/style.css, line 20: Duplicate selector "h1", first used at line 11`,
    ]);
    t.equal(reportLines(outcome, 'sv')[0], 'Standarder: Betyg: 3.45');
    t.equal(outcome.reports.sv.overall, `1 stilmall validerade med stylelint ${data.version}: 3 fel och 1 varning.\nBetyg: 3.45`);
  });

  t.test('inline sheets are named in order; a sheet that cannot be parsed is a syntax error', async (t) => {
    const artifacts: Artifacts = {
      ...good.artifacts,
      stylesheets: [
        { url: '', content: 'p { color: red; ' },
        { url: `${goodOrigin}/extra.css`, content: 'a { color: blue; color: blue; }' },
        { url: '', content: 'p:hover {}\np { color: #fff; }' },
      ],
    };
    const { outcome, result } = await rate(cssLint, artifacts, good.probes);
    t.same(findingsOf(result), {
      'css-syntax-error': e(),
      'declaration-block-no-duplicate-properties': w(),
      'block-no-empty': w(),
    });
    t.equal(outcome.rating, rating(1, 2)); // 100 − 10 − 2 → 88 → 4.40
    t.same(
      (outcome.data as any).stylesheets.map((s: any) => [s.url, s.messages.map((m: any) => m.rule)]),
      [
        ['inline #1', ['css-syntax-error']],
        [`${goodOrigin}/extra.css`, ['declaration-block-no-duplicate-properties']],
        ['inline #2', ['block-no-empty']],
      ],
    );
    t.equal(reportLines(outcome, 'en')[1], '- The stylesheet has a syntax error and cannot be parsed (css-syntax-error). First case: inline #1, line 1: Unclosed block');
  });

  t.test('a page without stylesheets is not rated', async (t) => {
    const { outcome } = await rate(cssLint, { ...good.artifacts, stylesheets: [] }, good.probes);
    t.equal(outcome.rating, NOT_RATED);
    t.same(outcome.ratings, {});
  });
});
