/**
 * Type 29, JS Lint (plugins/js-lint), on the scripts of page loads given as artifacts (no browser:
 * the plugin reads artifacts.scripts only, and fetches nothing). The fixture scripts are the
 * note's (webperf_core-tests-next.md §5), with c.js given a second line so that linting it shows:
 *
 *   inline   eval('1')                                   no-eval 1:1
 *   a.js     setTimeout("x()", 1); debugger;              no-implied-eval 1:1, no-debugger 2:1
 *   b.js     location.href = "javascript:void(0)";        no-script-url 1:17
 *   c.js     with (obj) {}  window.setTimeout("y()", 2)   not a module (`with`); linted as a classic
 *                                                        script: no-implied-eval 2:1 (upstream: nothing)
 *   d.js     /* eslint-disable *\/ eval("3")              inline config not obeyed: no-eval 2:1
 *                                                        (upstream: suppressed)
 *   e.js     function (                                  parses as neither: info, not linted
 *
 * Expected ratings by hand (family B: a category starts at 100, each rule that fired deducts 10
 * once; rating = score / 20, at least 1; overall = the mean):
 *   security: no-eval, no-implied-eval, no-script-url fired → 100 − 30 = 70 → 3.5
 *   standards: no-debugger fired → 100 − 10 = 90 → 4.5
 *   overall (3.5 + 4.5) / 2 = 4.0 — the note's expected ratings; the with/eslint-disable
 *   deviations add places (counts), not rules.
 */
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { NOT_RATED, type TextResource } from '../../core/plugin-api.js';
import { runPlugin } from '../../core/pipeline.js';
import jsLint, { createJsLint, LINT_BUDGET_MS, MAX_PLACES_PER_RULE, MAX_SCRIPT_BYTES } from '../../plugins/js-lint/index.js';
import { LOOPBACK_GUARD, makeArtifacts } from '../helpers/fixture-artifacts.js';
import { findingsOf, mean, rate, rating, reportLines } from '../helpers/plugin-outcomes.js';

const probes = createProbes(LOOPBACK_GUARD);
const PAGE = 'https://kommun.test/';

const FIXTURE_SCRIPTS: TextResource[] = [
  { url: '', content: "eval('1')" },
  { url: `${PAGE}a.js`, content: 'setTimeout("x()", 1);\ndebugger;\n' },
  { url: `${PAGE}b.js`, content: 'location.href = "javascript:void(0)";\n' },
  { url: `${PAGE}c.js`, content: 'with (obj) {}\nwindow.setTimeout("y()", 2);\n' },
  { url: `${PAGE}d.js`, content: '/* eslint-disable */\neval("3");\n' },
  { url: `${PAGE}e.js`, content: 'function (\n' },
];

const withScripts = (scripts: TextResource[]) => makeArtifacts(PAGE, { scripts });
const INLINE_1 = `inline script 1 on ${PAGE}`;

t.test('the note\'s fixture scripts: security 3.5, standards 4.5, overall 4.0', async (t) => {
  const { outcome, result } = await rate(jsLint, withScripts(FIXTURE_SCRIPTS), probes);
  const security = rating(3, 0);
  const standards = rating(1, 0);
  t.equal(security, 3.5);
  t.equal(standards, 4.5);
  t.equal(outcome.rating, mean(security, standards));
  t.equal(outcome.rating, 4);
  t.same(outcome.ratings, { infosec: 3.5, webstandard: 4.5 });
  t.same(findingsOf(result), {
    'no-eval': { category: 'infosec', severity: 'error', count: 2 },
    'no-implied-eval': { category: 'infosec', severity: 'error', count: 2 },
    'no-script-url': { category: 'infosec', severity: 'error', count: 1 },
    'no-debugger': { category: 'webstandard', severity: 'error', count: 1 },
    'js-unparsable': { category: 'webstandard', severity: 'info', count: 1 },
  });
  const data = outcome.data as any;
  t.equal(data.linter, 'eslint');
  t.match(data.version, /^10\./);
  t.equal(data.no_inline_config, true);
  t.same(data.rules, { 'no-eval': 'infosec', 'no-implied-eval': 'infosec', 'no-script-url': 'infosec', 'no-debugger': 'webstandard' });
  t.same(data.places, [
    { script: INLINE_1, line: 1, column: 1, rule: 'no-eval', message: '`eval` can be harmful.' },
    { script: `${PAGE}a.js`, line: 1, column: 1, rule: 'no-implied-eval', message: 'Implied eval. Consider passing a function instead of a string.' },
    { script: `${PAGE}a.js`, line: 2, column: 1, rule: 'no-debugger', message: "Unexpected 'debugger' statement." },
    { script: `${PAGE}b.js`, line: 1, column: 17, rule: 'no-script-url', message: 'Script URL is a form of eval.' },
    { script: `${PAGE}c.js`, line: 2, column: 1, rule: 'no-implied-eval', message: 'Implied eval. Consider passing a function instead of a string.' },
    { script: `${PAGE}d.js`, line: 2, column: 1, rule: 'no-eval', message: '`eval` can be harmful.' },
  ]);
  t.same(
    data.scripts.map((s: any) => [s.script, s.status, s.source_type, s.places]),
    [
      [INLINE_1, 'linted', 'module', 1],
      [`${PAGE}a.js`, 'linted', 'module', 2],
      [`${PAGE}b.js`, 'linted', 'module', 1],
      [`${PAGE}c.js`, 'linted', 'script', 1],
      [`${PAGE}d.js`, 'linted', 'module', 1],
      [`${PAGE}e.js`, 'unparsable', null, 0],
    ],
  );
  t.match(data.scripts[5].parse_error, { line: 1, column: Number, message: /^Parsing error: / });
  t.equal(data.scripts[1].bytes, 32);

  t.same(reportLines(outcome, 'sv', 'sec'), [
    'Integritet & säkerhet: Betyg: 3.50',
    `- Javascript, förbjud användning av eval() (no-eval). Första stället: inbäddat skript 1 på ${PAGE}, rad 1, kolumn 1 (2)`,
    `- Javascript, förbjud användning av eval()-liknande metoder (no-implied-eval). Första stället: ${PAGE}a.js, rad 1, kolumn 1 (2)`,
    `- Javascript, förbjud javascript: URLer (no-script-url). Första stället: ${PAGE}b.js, rad 1, kolumn 17`,
  ]);
  t.same(reportLines(outcome, 'en', 'stand'), [
    'Standards: Rating: 4.50',
    `- Javascript, disallow debugger statements (no-debugger). First place: ${PAGE}a.js, line 2, column 1`,
  ]);
  t.equal(
    outcome.reports.sv.overall,
    `5 av 6 skript granskade med ESLint ${data.version} (no-eval, no-implied-eval, no-script-url, no-debugger): 6 fynd.\n` +
      `1 skript gick varken att tolka som modul eller som klassiskt skript och granskades inte: ${PAGE}e.js\n` +
      'Betyg: 4.00',
  );
  t.equal(
    outcome.reports.en.overall,
    `5 of 6 scripts linted with ESLint ${data.version} (no-eval, no-implied-eval, no-script-url, no-debugger): 6 findings.\n` +
      `1 script could be parsed neither as a module nor as a classic script and was not linted: ${PAGE}e.js\n` +
      'Rating: 4.00',
  );
});

t.test('clean scripts: 5.0 in both categories, every rule resolved', async (t) => {
  const scripts = [
    { url: '', content: "document.title = 'Start';" },
    { url: '', content: 'export const x = 1;' },
    { url: `${PAGE}app.js`, content: 'setTimeout(() => run(), 1);\nconst link = "https://kommun.test/";\n' },
  ];
  const { outcome, result } = await rate(jsLint, withScripts(scripts), probes);
  t.equal(outcome.rating, 5);
  t.same(outcome.ratings, { infosec: 5, webstandard: 5 });
  t.same(
    result.findings.map((f) => [f.rule, f.category, f.severity, f.text.sv]),
    [
      ['no-eval', 'infosec', 'resolved', 'Javascript, förbjud användning av eval() (löst)'],
      ['no-implied-eval', 'infosec', 'resolved', 'Javascript, förbjud användning av eval()-liknande metoder (löst)'],
      ['no-script-url', 'infosec', 'resolved', 'Javascript, förbjud javascript: URLer (löst)'],
      ['no-debugger', 'webstandard', 'resolved', 'Javascript, förbjud debugger-satser (löst)'],
    ],
  );
  t.same((outcome.data as any).scripts.map((s: any) => s.script), [INLINE_1, `inline script 2 on ${PAGE}`, `${PAGE}app.js`]);
  t.same(reportLines(outcome, 'sv', 'sec'), ['Integritet & säkerhet: Betyg: 5.00', '- Inget att förbättra hittades.']);
});

t.test('a classic script only (with, legacy octal) is linted as one', async (t) => {
  const scripts = [{ url: `${PAGE}legacy.js`, content: 'var mode = 0755;\nwith (document) { eval(title); }\n' }];
  const { outcome, result } = await rate(jsLint, withScripts(scripts), probes);
  // no-eval fired: security 90 → 4.5; standards 100 → 5; overall 4.75.
  t.equal(outcome.rating, mean(rating(1, 0), rating(0, 0)));
  t.equal(outcome.rating, 4.75);
  t.same(findingsOf(result)['no-eval'], { category: 'infosec', severity: 'error', count: 1 });
  t.same((outcome.data as any).scripts[0].source_type, 'script');
  t.same((outcome.data as any).places.map((p: any) => [p.rule, p.line, p.column]), [['no-eval', 2, 19]]);
});

t.test('no scripts: 5.0 as upstream rates it, every rule resolved; scripts none of which could be linted: not rated', async (t) => {
  const none = await rate(jsLint, withScripts([]), probes);
  t.equal(none.outcome.rating, 5);
  t.same(none.outcome.ratings, { infosec: 5, webstandard: 5 });
  t.same(findingsOf(none.result), {
    'no-eval': { category: 'infosec', severity: 'resolved', count: 1 },
    'no-implied-eval': { category: 'infosec', severity: 'resolved', count: 1 },
    'no-script-url': { category: 'infosec', severity: 'resolved', count: 1 },
    'no-debugger': { category: 'webstandard', severity: 'resolved', count: 1 },
  });
  t.equal(none.outcome.reports.sv.overall.split('\n')[0], 'Sidan kör inga skript; det finns ingen JavaScript att granska och inget att rätta.');
  t.equal(none.outcome.reports.en.overall.split('\n')[0], 'The page runs no scripts; there is no JavaScript to lint and nothing to fix.');
  t.same((none.outcome.data as any).scripts, []);

  const broken = await rate(jsLint, withScripts([{ url: '', content: '{"@context": "https://schema.org"}' }]), probes);
  t.equal(broken.outcome.rating, NOT_RATED);
  t.same(broken.outcome.ratings, {});
  t.same(findingsOf(broken.result), { 'js-unparsable': { category: 'webstandard', severity: 'info', count: 1 } });
  t.equal(
    broken.outcome.reports.en.overall,
    `None of the page's 1 script could be linted, so the page is not rated.\n1 script could be parsed neither as a module nor as a classic script and was not linted: ${INLINE_1}\nNot rated`,
  );
  t.equal(broken.outcome.reports.sv.overall.split('\n')[0], 'Sidans enda skript kunde inte granskas, så sidan bedöms inte.');
});

t.test('bounded: a script over 2 MB is named, not linted; the others are rated', async (t) => {
  const big = `// ${'x'.repeat(MAX_SCRIPT_BYTES)}\neval("never linted");\n`;
  const scripts = [
    { url: `${PAGE}bundle.js`, content: big },
    { url: `${PAGE}small.js`, content: 'debugger;\n' },
  ];
  const { outcome, result } = await rate(jsLint, withScripts(scripts), probes);
  // Only small.js is linted: no-debugger → standards 4.5, security 5, overall 4.75.
  t.equal(outcome.rating, 4.75);
  t.same(outcome.ratings, { infosec: 5, webstandard: 4.5 });
  t.same(findingsOf(result), {
    'no-debugger': { category: 'webstandard', severity: 'error', count: 1 },
    'js-too-large': { category: 'webstandard', severity: 'info', count: 1 },
    'no-eval': { category: 'infosec', severity: 'resolved', count: 1 },
    'no-implied-eval': { category: 'infosec', severity: 'resolved', count: 1 },
    'no-script-url': { category: 'infosec', severity: 'resolved', count: 1 },
  });
  const data = outcome.data as any;
  t.same(data.scripts.map((s: any) => [s.script, s.status, s.bytes]), [
    [`${PAGE}bundle.js`, 'too-large', Buffer.byteLength(big)],
    [`${PAGE}small.js`, 'linted', 10],
  ]);
  t.equal(outcome.reports.sv.overall.split('\n')[1], `1 skript är större än 2 MB och granskades inte: ${PAGE}bundle.js`);
});

/** A script ESLint needs many seconds for (the review's: 21.9 s for 1.9 MB): every call a no-implied-eval place. */
const SLOW = 'setTimeout("a");'.repeat(60_000);
const NOW = new Date('2026-11-27T00:00:00Z');

/** How many times a 10 ms interval fired while `work` ran: the event loop's turns. */
async function ticksDuring<T>(work: T | Promise<T>): Promise<{ ticks: number; ms: number; result: T }> {
  let ticks = 0;
  const started = performance.now();
  const interval = setInterval(() => ticks++, 10);
  try {
    const result = await work;
    return { ticks, ms: performance.now() - started, result };
  } finally {
    clearInterval(interval);
  }
}

t.test('bounded: a script past its deadline is named, its worker ended; the loop kept turning; the next script is linted', async (t) => {
  const plugin = createJsLint({ scriptDeadlineMs: 300 });
  const scripts = [
    { url: `${PAGE}slow.js`, content: SLOW },
    { url: `${PAGE}after.js`, content: 'debugger;\n' },
  ];
  const { ticks, ms, result } = await ticksDuring(plugin.run(withScripts(scripts), { probes, signal: new AbortController().signal, now: NOW }));
  t.ok(ms < 5_000, `done in ${Math.round(ms)} ms, not the script's many seconds`);
  t.ok(ticks >= 10, `the event loop turned while the worker linted (${ticks} ticks)`);
  const data = result.data as any;
  t.same(data.scripts.map((s: any) => [s.script, s.status, s.places]), [
    [`${PAGE}slow.js`, 'timed-out', 0],
    [`${PAGE}after.js`, 'linted', 1],
  ]);
  t.same(data.limits, { max_script_bytes: MAX_SCRIPT_BYTES, script_deadline_ms: 300, budget_ms: LINT_BUDGET_MS, max_places_per_rule: MAX_PLACES_PER_RULE });
  // Only after.js is linted: no-debugger → standards 4.5, security 5, overall 4.75.
  t.equal(result.rating, 4.75);
  t.same(result.findings.filter((f) => f.severity === 'info').map((f) => [f.rule, f.category, f.count]), [['js-lint-timeout', 'webstandard', 1]]);
  t.equal(result.summary.en.split('\n')[1], `1 script could not be linted within 0.3 s per script and was not linted: ${PAGE}slow.js`);
  t.equal(result.summary.sv.split('\n')[1], `1 skript kunde inte granskas inom 0.3 s per skript och granskades inte: ${PAGE}slow.js`);
});

t.test('bounded: the 40 s budget, on a clock of the test\'s own: no script starts after it, none runs past it', async (t) => {
  // The clock reads 0 at the start, then what each script finds: 10 s, 39.8 s (200 ms left, so
  // the slow script is cut at 200 ms and counts as out of time, not as over its own 5 s), 40 s.
  const readings = [0, 10_000, 39_800, 40_000, 41_000];
  const plugin = createJsLint({ clock: () => readings.shift() ?? 50_000 });
  const scripts = [
    { url: `${PAGE}first.js`, content: 'eval("1");\n' },
    { url: `${PAGE}slow.js`, content: SLOW },
    { url: `${PAGE}late.js`, content: 'debugger;\n' },
    { url: '', content: 'debugger;\n' },
  ];
  const { ms, result } = await ticksDuring(plugin.run(withScripts(scripts), { probes, signal: new AbortController().signal, now: NOW }));
  t.ok(ms < 5_000, `done in ${Math.round(ms)} ms`);
  t.same((result.data as any).scripts.map((s: any) => s.status), ['linted', 'not-linted', 'not-linted', 'not-linted']);
  t.same(result.findings.filter((f) => f.severity !== 'resolved').map((f) => [f.rule, f.severity, f.count]), [
    ['no-eval', 'error', 1],
    ['js-out-of-time', 'info', 3],
  ]);
  t.equal(result.summary.en.split('\n')[1], `The time for linting (40 s) ran out; 3 scripts were not linted: ${PAGE}slow.js, ${PAGE}late.js, ${INLINE_1}`);
});

t.test('bounded: at most 20 places per rule are kept, every place is counted', async (t) => {
  const scripts = [
    { url: `${PAGE}a.js`, content: 'eval(1);\n'.repeat(15) + 'debugger;\n'.repeat(3) },
    { url: `${PAGE}b.js`, content: 'eval(2);\n'.repeat(35) },
  ];
  const { outcome, result } = await rate(jsLint, withScripts(scripts), probes);
  const data = outcome.data as any;
  t.same(findingsOf(result)['no-eval'], { category: 'infosec', severity: 'error', count: 50 });
  t.same(findingsOf(result)['no-debugger'], { category: 'webstandard', severity: 'error', count: 3 });
  t.same(data.place_counts, { 'no-eval': 50, 'no-debugger': 3 });
  t.same(data.scripts.map((s: any) => s.places), [18, 35]);
  t.equal(data.places.filter((p: any) => p.rule === 'no-eval').length, MAX_PLACES_PER_RULE);
  t.same(data.places.filter((p: any) => p.rule === 'no-eval').map((p: any) => `${p.script} ${p.line}`).slice(13), [
    `${PAGE}a.js 14`, `${PAGE}a.js 15`, `${PAGE}b.js 1`, `${PAGE}b.js 2`, `${PAGE}b.js 3`, `${PAGE}b.js 4`, `${PAGE}b.js 5`,
  ]);
  t.equal(data.places.filter((p: any) => p.rule === 'no-debugger').length, 3);
  t.match(outcome.reports.en.overall, /^2 of 2 scripts linted with ESLint .*: 53 findings\./);
});

t.test('an aborted run ends its worker mid-script and rejects with the reason; the pipeline says it was stopped', async (t) => {
  const scripts = [{ url: `${PAGE}slow.js`, content: SLOW }, { url: `${PAGE}a.js`, content: 'debugger;\n' }];
  // 1.5 s: the worker has started and is in the slow script, which needs several more seconds.
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('the job was cancelled')), 1_500);
  const { ms } = await ticksDuring(t.rejects(Promise.resolve(jsLint.run(withScripts(scripts), { probes, signal: controller.signal, now: NOW })), { message: 'the job was cancelled' }));
  t.ok(ms < 2_500, `stopped at once (${Math.round(ms)} ms), not after the script`);

  const stop = new AbortController();
  setTimeout(() => stop.abort(new Error('shutting down')), 1_500);
  const outcome = await runPlugin(jsLint, withScripts(scripts), { probes, signal: stop.signal, now: NOW });
  t.equal(outcome.error, 'stopped: shutting down');
  t.notMatch(outcome.reports.en.overall, /ran out/);
});
