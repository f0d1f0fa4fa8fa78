/**
 * Type 29: JS Lint, as webperf.se's (webperf_core with plugin-javascript's harAnalyzer.js).
 *
 * What is judged: every script the page ran (artifacts.scripts, first and third party; external
 * ones by URL, inline ones named "inline script N on <final URL>" in their order), linted in
 * process with ESLint's Linter and upstream's four rules (rules.ts): no-eval, no-implied-eval and
 * no-script-url count against security (infosec), no-debugger against standards (webstandard).
 * languageOptions: ecmaVersion latest, browser and node globals.
 *
 * How it is rated (family B, the issue score): each category starts at 100, each rule that fired
 * anywhere deducts 10 once (severity error); rating = score / 20, at least 1; overall = the mean of
 * security and standards, so 4.0–5.0 in practice. One finding per rule that fired, its count the
 * number of places; data.places lists each place {script, line, column, rule, message}. A rule that
 * did not fire is a `resolved` finding, as upstream adds them. A page without scripts, or whose
 * scripts could none be linted, is NOT_RATED.
 *
 * Deviations from upstream:
 * - Upstream lints everything as an ES module, so a classic script a module cannot be (`with`,
 *   legacy octal, `arguments`/`eval` as names...) fails to parse and its parse error is dropped
 *   with the other messages without a rule id: silently unlinted. Here a script that does not
 *   parse as a module is linted again as a classic script (sourceType 'script'); one that parses
 *   as neither is an info finding (`js-unparsable`) with the count and the names, in the summary
 *   and in data (its parse error per script), never dropped silently.
 * - Inline configuration comments in the page's scripts (`/* eslint-disable *\/`...) are not
 *   obeyed (linterOptions.noInlineConfig): see rules.ts.
 * - Bounded work: a script over 2 MB (UTF-8) is not linted (info `js-too-large`, named); between
 *   scripts the run yields, stops when context.signal aborts, and stops linting once its 40 s
 *   budget is used (info `js-out-of-time`, named), rating what was linted.
 * - Upstream's `no-network` (no HTML response) has no counterpart: the page load is this
 *   service's, and a page that could not be loaded is not rated by any plugin.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Linter } from 'eslint';
import { definePlugin, NOT_RATED, type Finding, type ReportText } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { meta } from './meta.js';
import { isJsRule, JS_RULES, lintConfig, RULE_CATEGORY, type JsRule, type SourceType } from './rules.js';
import { scriptName, STRINGS } from './strings.js';

/** Scripts larger than this (UTF-8 bytes) are not linted. */
export const MAX_SCRIPT_BYTES = 2_000_000;
const MAX_SCRIPT_TEXT = '2 MB';
/** Linting starts no new script after this long. */
export const LINT_BUDGET_MS = 40_000;

/** One place a rule fired, as stored in json_check_data. */
export interface LintPlace {
  script: string;
  line: number;
  column: number;
  rule: JsRule;
  message: string;
}

/** One script's outcome, as stored in json_check_data. */
interface ScriptOutcome {
  script: string;
  url: string;
  bytes: number;
  status: 'linted' | 'unparsable' | 'too-large' | 'not-linted';
  /** How it was parsed when linted: as a module, or as a classic script after failing as one. */
  source_type: SourceType | null;
  /** Why it parses as neither (the classic-script attempt's error). */
  parse_error?: { line: number; column: number; message: string };
  places: number;
}

const linter = new Linter();
const CONFIG = { module: lintConfig('module'), script: lintConfig('script') };

type Lint = { sourceType: SourceType; messages: Linter.LintMessage[] } | { error: Linter.LintMessage };

function lint(code: string): Lint {
  let fatal: Linter.LintMessage | undefined;
  for (const sourceType of ['module', 'script'] as const) {
    const messages = linter.verify(code, CONFIG[sourceType], 'script.js');
    fatal = messages.find((m) => m.fatal);
    if (!fatal) return { sourceType, messages: messages.filter((m) => isJsRule(m.ruleId)) };
  }
  return { error: fatal! };
}

export default definePlugin({
  meta,
  async run(artifacts, { signal }) {
    const started = performance.now();
    let inline = 0;
    const scripts = artifacts.scripts.map((s) => ({ ...s, name: scriptName({ url: s.url, inline: s.url ? 0 : ++inline, page: artifacts.finalUrl }) }));
    const base = {
      linter: 'eslint',
      version: Linter.version,
      rules: RULE_CATEGORY,
      no_inline_config: true,
      max_script_bytes: MAX_SCRIPT_BYTES,
    };
    if (scripts.length === 0) {
      return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.noScripts, data: { ...base, scripts: [], places: [] } };
    }

    const outcomes: ScriptOutcome[] = [];
    const places: LintPlace[] = [];
    const firstPlace = new Map<JsRule, { where: ReportText; line: number; column: number; count: number }>();
    for (const s of scripts) {
      const bytes = Buffer.byteLength(s.content);
      const outcome: ScriptOutcome = { script: s.name.en, url: s.url, bytes, status: 'not-linted', source_type: null, places: 0 };
      outcomes.push(outcome);
      if (bytes > MAX_SCRIPT_BYTES) {
        outcome.status = 'too-large';
        continue;
      }
      if (signal.aborted || performance.now() - started > LINT_BUDGET_MS) continue;
      const result = lint(s.content);
      if ('error' in result) {
        outcome.status = 'unparsable';
        outcome.parse_error = { line: result.error.line, column: result.error.column, message: result.error.message };
      } else {
        outcome.status = 'linted';
        outcome.source_type = result.sourceType;
        outcome.places = result.messages.length;
        for (const m of result.messages) {
          const rule = m.ruleId as JsRule;
          places.push({ script: s.name.en, line: m.line, column: m.column, rule, message: m.message });
          const seen = firstPlace.get(rule);
          if (seen) seen.count++;
          else firstPlace.set(rule, { where: s.name, line: m.line, column: m.column, count: 1 });
        }
      }
      // Linter.verify is synchronous: give the pipeline's timers a turn between scripts.
      await nextTurn();
    }

    const findings: Finding[] = [];
    for (const rule of JS_RULES) {
      const first = firstPlace.get(rule);
      if (first) findings.push({ rule, category: RULE_CATEGORY[rule], severity: 'error', text: STRINGS.finding(rule, first.where, first.line, first.column), count: first.count });
    }
    const named = (status: ScriptOutcome['status']) => scripts.filter((_, i) => outcomes[i].status === status).map((s) => s.name);
    const notes: { rule: string; text: ReportText; count: number }[] = [];
    const unparsable = named('unparsable');
    if (unparsable.length) notes.push({ rule: 'js-unparsable', text: STRINGS.unparsable(unparsable), count: unparsable.length });
    const tooLarge = named('too-large');
    if (tooLarge.length) notes.push({ rule: 'js-too-large', text: STRINGS.tooLarge(tooLarge, MAX_SCRIPT_TEXT), count: tooLarge.length });
    const notLinted = named('not-linted');
    if (notLinted.length) notes.push({ rule: 'js-out-of-time', text: STRINGS.outOfTime(notLinted), count: notLinted.length });
    for (const note of notes) findings.push({ ...note, category: 'webstandard', severity: 'info' });

    const linted = outcomes.filter((o) => o.status === 'linted').length;
    const data = { ...base, scripts: outcomes, places };
    // Info findings are not report bullets: the summary carries them.
    const withNotes = (head: ReportText): ReportText => ({
      sv: [head.sv, ...notes.map((x) => x.text.sv)].join('\n'),
      en: [head.en, ...notes.map((x) => x.text.en)].join('\n'),
    });
    if (linted === 0) {
      return { rating: NOT_RATED, ratings: {}, findings, summary: withNotes(STRINGS.nothingLinted(scripts.length)), data };
    }
    for (const rule of JS_RULES) {
      if (!firstPlace.has(rule)) findings.push({ rule, category: RULE_CATEGORY[rule], severity: 'resolved', text: STRINGS.resolved(rule) });
    }
    return {
      ...issueRatings(findings, meta.categories),
      findings,
      summary: withNotes(STRINGS.summary(linted, scripts.length, Linter.version, places.length)),
      data,
    };
  },
});
