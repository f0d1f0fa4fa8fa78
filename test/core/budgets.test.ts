/**
 * Budgets as core reads and judges them: the assertion grammar (every form, aliases, and every way
 * an assertion can be wrong, each with its message), the budget file's schema and its errors
 * naming the bad entry, the check against the test types run, the evaluation on outcomes, and the
 * JUnit report, parsed back as a CI system reads it.
 */
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { brokenBudgetLine, budgetSummary, checkBudgets, evaluateBudgets, formatRating, parseAssertion, parseAssertions, parseBudgetFile, type RatedType } from '../../core/budgets.js';
import { WebperfError } from '../../core/errors.js';
import { junitReport } from '../../core/junit-report.js';
import { NOT_RATED } from '../../core/plugin-api.js';

/** The message of what `fn` throws, checked to be a VALIDATION error of the catalogue. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebperfError && err.code === 'VALIDATION') return err.message;
    throw err;
  }
  throw new Error('not refused');
}

t.test('the three forms of an assertion, with spaces, aliases and any case', async (t) => {
  t.strictSame(parseAssertion('21>=4'), { name: '21>=4', typeOfTest: 21, category: null, min: 4 });
  t.strictSame(parseAssertion('30:pagespeed>=4'), { name: '30:pagespeed>=4', typeOfTest: 30, category: 'pagespeed', min: 4 });
  t.strictSame(parseAssertion('a11y>=4.5'), { name: 'a11y>=4.5', typeOfTest: null, category: 'a11y', min: 4.5 });
  t.strictSame(parseAssertion(' 30 : Performance >= 4.50 '), { name: '30:pagespeed>=4.5', typeOfTest: 30, category: 'pagespeed', min: 4.5 }, 'the canonical name uses the category\'s own name');
  t.equal(parseAssertion('accessibility>=1').name, 'a11y>=1');
  t.equal(parseAssertion('SECURITY>=5').name, 'infosec>=5');
  t.equal(parseAssertion('standards>=3').name, 'webstandard>=3');
  t.equal(parseAssertion('infosec>=2').name, 'infosec>=2');
  t.equal(parseAssertion('webstandard>=5.0').name, 'webstandard>=5');
  t.equal(parseAssertion('030>=4').name, '30>=4');
  t.equal(parseAssertion('0>=1').name, '0>=1', 'any id reads; whether it is run is checked against the test types');
});

t.test('every way an assertion can be wrong says so, naming it', async (t) => {
  const forms = 'expected TYPE>=N, CATEGORY>=N or TYPE:CATEGORY>=N, e.g. 21>=4, a11y>=4.5, 30:pagespeed>=4';
  const cases: [string, string][] = [
    ['', `budget "": empty; ${forms}`],
    ['a11y', `budget "a11y": ${forms}`],
    ['a11y>4', 'budget "a11y>4": budgets are minimum ratings: the only comparison is >='],
    ['a11y<=4', 'budget "a11y<=4": budgets are minimum ratings: the only comparison is >='],
    ['a11y=>4', 'budget "a11y=>4": budgets are minimum ratings: the only comparison is >='],
    ['a11y>=>=4', 'budget "a11y>=>=4": budgets are minimum ratings: the only comparison is >='],
    ['a11y>=', 'budget "a11y>=": the limit must be a rating from 1 to 5, e.g. 4 or 4.5'],
    ['a11y>=0.5', 'budget "a11y>=0.5": the limit must be a rating from 1 to 5, e.g. 4 or 4.5'],
    ['a11y>=5.01', 'budget "a11y>=5.01": the limit must be a rating from 1 to 5, e.g. 4 or 4.5'],
    ['a11y>=4,5', 'budget "a11y>=4,5": the limit must be a rating from 1 to 5, e.g. 4 or 4.5'],
    ['a11y>=-1', 'budget "a11y>=-1": the limit must be a rating from 1 to 5, e.g. 4 or 4.5'],
    ['a11y>=4.', 'budget "a11y>=4.": the limit must be a rating from 1 to 5, e.g. 4 or 4.5'],
    ['a11y>=1e0', 'budget "a11y>=1e0": the limit must be a rating from 1 to 5, e.g. 4 or 4.5'],
    ['seo>=4', 'budget "seo>=4": unknown category "seo": a11y, pagespeed, infosec, webstandard (or accessibility, performance, security, standards)'],
    ['30:seo>=4', 'budget "30:seo>=4": unknown category "seo": a11y, pagespeed, infosec, webstandard (or accessibility, performance, security, standards)'],
    ['a11y:30>=4', 'budget "a11y:30>=4": "a11y" is not a test type id (a whole number such as 30)'],
    ['99999999999999999999>=4', 'budget "99999999999999999999>=4": "99999999999999999999" is not a test type id (a whole number such as 30)'],
    ['-1>=4', 'budget "-1>=4": unknown category "-1": a11y, pagespeed, infosec, webstandard (or accessibility, performance, security, standards)'],
    ['3.5>=4', 'budget "3.5>=4": "3.5" is not a test type id (a whole number such as 30)'],
    ['30x>=4', 'budget "30x>=4": "30x" is not a test type id (a whole number such as 30)'],
    ['>=4', `budget ">=4": ${forms}`],
    ['30:>=4', `budget "30:>=4": ${forms}`],
    ['1:2:a11y>=4', `budget "1:2:a11y>=4": ${forms}`],
  ];
  for (const [text, message] of cases) t.equal(refusal(() => parseAssertion(text)), message, JSON.stringify(text));
});

t.test('--assert values: comma-separated, repeated, each budget once', async (t) => {
  t.strictSame(parseAssertions(['a11y>=4.5,30:pagespeed>=4', '21>=4', 'accessibility>=4.5']).map((b) => b.name), ['a11y>=4.5', '30:pagespeed>=4', '21>=4']);
  t.strictSame(parseAssertions([]), []);
  t.equal(refusal(() => parseAssertions(['a11y>=4.5,'])), 'budget "": empty; expected TYPE>=N, CATEGORY>=N or TYPE:CATEGORY>=N, e.g. 21>=4, a11y>=4.5, 30:pagespeed>=4', 'a trailing comma is an empty budget');
  t.equal(refusal(() => parseAssertions(['21>=4', 'a11y>=9'])), 'budget "a11y>=9": the limit must be a rating from 1 to 5, e.g. 4 or 4.5');
});

t.test('the budget file: strings and objects, every error naming the bad entry', async (t) => {
  const file = JSON.stringify({
    budgets: ['a11y>=4.5', { type: 30, category: 'performance', min: 4 }, { type: 21, min: 4 }, { category: 'infosec', min: 3.5 }, '21>=4'],
  });
  t.strictSame(parseBudgetFile(file), [
    { name: 'a11y>=4.5', typeOfTest: null, category: 'a11y', min: 4.5 },
    { name: '30:pagespeed>=4', typeOfTest: 30, category: 'pagespeed', min: 4 },
    { name: '21>=4', typeOfTest: 21, category: null, min: 4 },
    { name: 'infosec>=3.5', typeOfTest: null, category: 'infosec', min: 3.5 },
  ], 'in order, the repeated 21>=4 once');
  t.equal(parseBudgetFile(`\uFEFF{"budgets": ["21>=1"]}`)[0].name, '21>=1', 'a byte-order mark is allowed');

  const cases: [string, string | RegExp][] = [
    ['{"budgets": ["a11y>=4.5",]}', /^not JSON: /],
    ['', /^not JSON: /],
    ['["a11y>=4.5"]', 'expected an object: {"budgets": [...]}'],
    ['null', 'expected an object: {"budgets": [...]}'],
    ['{"budget": ["a11y>=4.5"]}', 'unknown field "budget": the file has one field, "budgets"'],
    ['{}', '"budgets" must be a list of budgets: {"budgets": ["a11y>=4.5", {"type": 30, "category": "pagespeed", "min": 4}]}'],
    ['{"budgets": "a11y>=4.5"}', '"budgets" must be a list of budgets: {"budgets": ["a11y>=4.5", {"type": 30, "category": "pagespeed", "min": 4}]}'],
    ['{"budgets": []}', '"budgets" is empty: name at least one budget'],
    ['{"budgets": ["a11y>=4.5", "a11y>4"]}', 'budgets[1] "a11y>4": budgets are minimum ratings: the only comparison is >='],
    ['{"budgets": ["seo>=4"]}', 'budgets[0] "seo>=4": unknown category "seo": a11y, pagespeed, infosec, webstandard (or accessibility, performance, security, standards)'],
    ['{"budgets": [4]}', 'budgets[0] 4: expected an assertion such as "a11y>=4.5" or an object {"type": 30, "category": "pagespeed", "min": 4}'],
    ['{"budgets": [null]}', 'budgets[0] null: expected an assertion such as "a11y>=4.5" or an object {"type": 30, "category": "pagespeed", "min": 4}'],
    ['{"budgets": ["21>=4", {"type": 30, "category": "pagespeed"}]}', 'budgets[1] {"type":30,"category":"pagespeed"}: "min" is missing: the lowest rating that meets the budget, 1 to 5'],
    ['{"budgets": [{"type": 30, "minimum": 4}]}', 'budgets[0] {"type":30,"minimum":4}: unknown field "minimum" (a budget has type, category and min)'],
    ['{"budgets": [{"type": 30, "min": "4"}]}', 'budgets[0] {"type":30,"min":"4"}: "min" must be a number from 1 to 5'],
    ['{"budgets": [{"type": 30, "min": 6}]}', 'budgets[0] {"type":30,"min":6}: "min" must be a number from 1 to 5'],
    ['{"budgets": [{"type": "30", "min": 4}]}', 'budgets[0] {"type":"30","min":4}: "type" must be a test type id, a whole number such as 30'],
    ['{"budgets": [{"type": 30.5, "min": 4}]}', 'budgets[0] {"type":30.5,"min":4}: "type" must be a test type id, a whole number such as 30'],
    ['{"budgets": [{"type": -1, "min": 4}]}', 'budgets[0] {"type":-1,"min":4}: "type" must be a test type id, a whole number such as 30'],
    ['{"budgets": [{"category": "seo", "min": 4}]}', 'budgets[0] {"category":"seo","min":4}: unknown category "seo": a11y, pagespeed, infosec, webstandard (or accessibility, performance, security, standards)'],
    ['{"budgets": [{"category": 1, "min": 4}]}', 'budgets[0] {"category":1,"min":4}: "category" must be one of a11y, pagespeed, infosec, webstandard (or accessibility, performance, security, standards)'],
    ['{"budgets": [{"min": 4}]}', 'budgets[0] {"min":4}: name a "type", a "category" or both'],
  ];
  for (const [text, message] of cases) {
    const got = refusal(() => parseBudgetFile(text));
    if (typeof message === 'string') t.equal(got, message, text);
    else t.match(got, message, text);
  }
});

const TYPES = [
  { id: 18, categories: ['a11y'] as const },
  { id: 21, categories: ['infosec', 'webstandard'] as const },
  { id: 30, categories: ['a11y', 'pagespeed'] as const },
  { id: 101, categories: [] as const },
];

t.test('budgets are checked against the test types run, every bad one on its own line', async (t) => {
  checkBudgets(parseAssertions(['18>=4,21:infosec>=4,a11y>=4,pagespeed>=3,101>=1']), TYPES);
  t.equal(
    refusal(() => checkBudgets(parseAssertions(['28>=4,21:a11y>=4,101:a11y>=4,a11y>=4,18:a11y>=4']), TYPES)),
    [
      'budget "28>=4": test type 28 is not run (the test types run: 18, 21, 30, 101)',
      'budget "21:a11y>=4": test type 21 does not rate a11y (it rates infosec, webstandard)',
      'budget "101:a11y>=4": test type 101 does not rate a11y (it rates no category, only overall)',
    ].join('\n'),
  );
  t.equal(refusal(() => checkBudgets(parseAssertions(['pagespeed>=4']), TYPES.slice(0, 2))), 'budget "pagespeed>=4": none of the test types run (18, 21) rates pagespeed');
});

const rated = (typeOfTest: number, rating: number, ratings: RatedType['ratings'], categories: RatedType['categories'], error: string | null = null): RatedType => ({ typeOfTest, rating, ratings, error, categories });

t.test('budgets judged on a page: met, broken, not rated, and a category\'s mean', async (t) => {
  const page = [
    rated(18, 3.6, { a11y: 3.6 }, ['a11y']),
    rated(21, 4.25, { infosec: 4, webstandard: 4.5 }, ['infosec', 'webstandard']),
    rated(30, 4.6, { a11y: 4.6, pagespeed: 4.6 }, ['a11y', 'pagespeed']),
    rated(101, NOT_RATED, {}, []),
  ];
  const results = evaluateBudgets(parseAssertions(['a11y>=4.1,a11y>=4.2,21>=4.25,21:infosec>=4.5,infosec>=4,101>=1,pagespeed>=4.61']), page);
  t.strictSame(results.map((r) => [r.budget.name, r.met, r.actual, r.actualText]), [
    ['a11y>=4.1', true, 4.1, '4.10 (mean of 18: 3.60, 30: 4.60)'],
    ['a11y>=4.2', false, 4.1, '4.10 (mean of 18: 3.60, 30: 4.60)'],
    ['21>=4.25', true, 4.25, '4.25'],
    ['21:infosec>=4.5', false, 4, '4.00'],
    ['infosec>=4', true, 4, '4.00 (test type 21)'],
    ['101>=1', false, null, 'not rated'],
    ['pagespeed>=4.61', false, 4.6, '4.60 (test type 30)'],
  ]);
  t.equal(brokenBudgetLine(results[1], 'https://flawed.test/'), 'budget broken: a11y>=4.2 on https://flawed.test/: 4.10 (mean of 18: 3.60, 30: 4.60), limit 4.2');
  t.equal(brokenBudgetLine(results[5], 'https://flawed.test/'), 'budget broken: 101>=1 on https://flawed.test/: not rated, limit 1');
  t.equal(budgetSummary(results), 'budgets: 4 of 7 broken');
  t.equal(budgetSummary(results.filter((r) => r.met)), 'budgets: all 3 met');

  // Five decimals, as ratings are kept: 4.1, 4.2 and 4.3 make 4.2, not 4.199999….
  const three = [rated(2, 4.1, { webstandard: 4.1 }, ['webstandard']), rated(21, 4.2, { webstandard: 4.2 }, ['webstandard']), rated(28, 4.3, { webstandard: 4.3 }, ['webstandard'])];
  t.strictSame(evaluateBudgets(parseAssertions(['webstandard>=4.2']), three).map((r) => [r.met, r.actual]), [[true, 4.2]]);
  // Shown with the decimals it takes to see why it is broken.
  t.equal(formatRating(4.499, 4.5), '4.499');
  t.equal(formatRating(4.4949, 4.5), '4.49');
  t.equal(formatRating(5, 4.5), '5.00');
});

t.test('a test type not rated breaks every budget that names it, saying why', async (t) => {
  const failed = 'The website answered with a server error (5xx) instead of the page';
  const page = [
    rated(18, 4.5, { a11y: 4.5 }, ['a11y']),
    rated(21, 4, { infosec: 4 }, ['infosec', 'webstandard']),
    rated(30, NOT_RATED, {}, ['a11y', 'pagespeed'], 'Lighthouse\nfailed:  NO_FCP'),
  ];
  const results = evaluateBudgets(parseAssertions(['30>=1,30:pagespeed>=1,a11y>=1,21:webstandard>=1,webstandard>=1,18>=4.5,404>=1']), page);
  t.strictSame(results.map((r) => [r.budget.name, r.met, r.actualText]), [
    ['30>=1', false, 'not rated: Lighthouse failed: NO_FCP'],
    ['30:pagespeed>=1', false, 'not rated: Lighthouse failed: NO_FCP'],
    ['a11y>=1', false, 'not rated by test type 30: Lighthouse failed: NO_FCP'],
    ['21:webstandard>=1', false, 'not rated in webstandard'],
    ['webstandard>=1', false, 'not rated in webstandard'],
    ['18>=4.5', true, '4.50'],
    ['404>=1', false, 'not rated: not run'],
  ]);
  // The page could not be loaded: every type says the same; said once.
  const down = [rated(18, NOT_RATED, {}, ['a11y'], failed), rated(30, NOT_RATED, {}, ['a11y', 'pagespeed'], failed)];
  t.equal(evaluateBudgets(parseAssertions(['a11y>=1']), down)[0].actualText, `not rated by test types 18, 30: ${failed}`);
  const mixed = [rated(18, NOT_RATED, {}, ['a11y'], 'axe failed'), rated(30, NOT_RATED, {}, ['a11y', 'pagespeed'], 'no FCP')];
  t.equal(evaluateBudgets(parseAssertions(['a11y>=1']), mixed)[0].actualText, 'not rated by test type 18: axe failed; test type 30: no FCP');
  // A type with nothing to judge (no error) is left out of a category's mean; none rated at all breaks it.
  const nothing = [rated(27, NOT_RATED, {}, ['webstandard']), rated(28, 3, { webstandard: 3 }, ['webstandard'])];
  t.strictSame(evaluateBudgets(parseAssertions(['webstandard>=3,27>=1']), nothing).map((r) => [r.met, r.actualText]), [[true, '3.00 (test type 28)'], [false, 'not rated']]);
  t.strictSame(evaluateBudgets(parseAssertions(['webstandard>=1']), nothing.slice(0, 1)).map((r) => [r.met, r.actualText]), [[false, 'not rated in webstandard']]);
});

t.test('the JUnit report: a suite per page, a case per test type and per budget', async (t) => {
  const page = [
    rated(18, 3.6, { a11y: 3.6 }, ['a11y']),
    rated(30, NOT_RATED, {}, ['a11y', 'pagespeed'], 'Lighthouse failed <NO_FCP> & "gave up"'),
    rated(101, NOT_RATED, {}, []),
  ];
  const budgets = evaluateBudgets(parseAssertions(['18>=3.5,18>=4']), page);
  const xml = junitReport([
    {
      url: 'https://flawed.test/?a=1&b=2',
      types: [
        { typeOfTest: 18, name: 'Accessibility', rating: 3.6, error: null, report: 'Accessibility: 3.60\n- image-alt', durationMs: 1250 },
        { typeOfTest: 30, name: 'Lighthouse', rating: NOT_RATED, error: 'Lighthouse failed <NO_FCP> & "gave up"' },
        { typeOfTest: 101, name: 'Web analytics', rating: NOT_RATED, error: null },
      ],
      budgets,
    },
    { url: 'https://good.test/', types: [{ typeOfTest: 18, name: 'Accessibility', rating: 5, error: null }], budgets: [] },
  ], { name: 'webperf test', timestamp: new Date(2025, 0, 2, 3, 4, 5) });
  t.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml);
  const root = doc.testsuites;
  t.strictSame([root.name, root.tests, root.failures, root.errors, root.skipped], ['webperf test', '6', '2', '0', '1']);
  const [flawed, good] = root.testsuite;
  t.strictSame([flawed.name, flawed.tests, flawed.failures, flawed.skipped, flawed.timestamp], ['https://flawed.test/?a=1&b=2', '5', '2', '1', '2025-01-02T03:04:05'], 'the local time, as JUnit has it (no zone)');
  t.strictSame(flawed.testcase.map((c: any) => [c.classname, c.name]), [
    ['https://flawed.test/?a=1&b=2', 'test type 18 Accessibility'],
    ['https://flawed.test/?a=1&b=2', 'test type 30 Lighthouse'],
    ['https://flawed.test/?a=1&b=2', 'test type 101 Web analytics'],
    ['https://flawed.test/?a=1&b=2', 'budget 18>=3.5'],
    ['https://flawed.test/?a=1&b=2', 'budget 18>=4'],
  ]);
  const [a11y, lighthouse, analytics, met, broken] = flawed.testcase;
  t.equal(a11y.time, '1.25');
  t.equal(a11y.failure, undefined);
  t.equal(a11y['system-out'], 'rating 3.60\nAccessibility: 3.60\n- image-alt');
  t.strictSame(lighthouse.failure, { message: 'not rated: Lighthouse failed <NO_FCP> & "gave up"', type: 'error' });
  t.equal(analytics.skipped, '');
  t.equal(analytics.failure, undefined);
  t.equal(met.failure, undefined);
  t.equal(met['system-out'], '3.60, limit 3.5');
  t.strictSame(broken.failure, { message: '3.60, limit 4', type: 'budget' });
  t.strictSame([good.name, good.tests, good.failures, good.testcase.length], ['https://good.test/', '1', '0', 1]);
});
