/**
 * Type 29: JS Lint, as webperf.se's (webperf_core with plugin-javascript's harAnalyzer.js).
 *
 * What is judged: every script the page ran (artifacts.scripts, first and third party; external
 * ones by URL, inline ones named "inline script N on <final URL>" in their order), linted with
 * ESLint's Linter (in a worker thread, see below) and upstream's four rules (rules.ts): no-eval,
 * no-implied-eval and no-script-url count against security (infosec), no-debugger against
 * standards (webstandard).
 * languageOptions: ecmaVersion latest, browser and node globals.
 *
 * How it is rated (family B, the issue score): each category starts at 100, each rule that fired
 * anywhere deducts 10 once (severity error); rating = score / 20, at least 1; overall = the mean of
 * security and standards, so 4.0–5.0 in practice. One finding per rule that fired, its count the
 * number of places; data.places lists the places {script, line, column, rule, message} (at most
 * 20 per rule, see below). A rule that did not fire is a `resolved` finding, as upstream adds
 * them. A page without scripts is rated as upstream rates it: every rule resolved, 5.0 (there is
 * nothing to fix). A page whose scripts could none be linted is NOT_RATED (nothing was judged).
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
 * - Bounded work, so that no page can stall the service or blow up its result:
 *   - a script over 2 MB (UTF-8) is not linted (info `js-too-large`, named);
 *   - ESLint runs in a worker thread (core/worker-task.ts; one per run at a time, reused for its
 *     scripts and kept warm for the process's next run), so the event loop keeps turning while it
 *     works and ESLint is loaded once, not once per run;
 *   - each script has 5 s (SCRIPT_DEADLINE_MS, both parses together): a script still being linted
 *     then has its worker terminated and is named as not lintable in time (info `js-lint-timeout`);
 *     the next script gets a fresh worker;
 *   - the run has a 40 s budget (LINT_BUDGET_MS): no script starts after it and none runs past
 *     it; scripts it leaves are named (info `js-out-of-time`) and the run rates what was linted;
 *   - at most 20 places per rule (MAX_PLACES_PER_RULE) are kept in data.places; every place is
 *     counted (the findings' counts, data.place_counts);
 *   - when context.signal aborts, the worker is terminated at once and run() rejects with the
 *     signal's reason (the pipeline reports why it stopped); it does not pretend to have rated.
 *   data.limits states these bounds.
 * - Upstream's `no-network` (no HTML response) has no counterpart: the page load is this
 *   service's, and a page that could not be loaded is not rated by any plugin.
 */
import { createRequire } from 'node:module';
import { definePlugin, NOT_RATED, type Finding, type ReportText, type TestPlugin } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { DeadlineError, IdleWorkers, WorkerTask } from '../../core/worker-task.js';
import type * as LintWorker from './lint-worker.js';
import { meta } from './meta.js';
import { JS_RULES, RULE_CATEGORY, type JsRule, type SourceType } from './rules.js';
import { scriptName, STRINGS } from './strings.js';

/** Scripts larger than this (UTF-8 bytes) are not linted. */
export const MAX_SCRIPT_BYTES = 2_000_000;
const MAX_SCRIPT_TEXT = '2 MB';
/** The longest one script is linted (both parses); then its worker is terminated. */
export const SCRIPT_DEADLINE_MS = 5_000;
/** Linting starts no script after this long, and no script runs past it. */
export const LINT_BUDGET_MS = 40_000;
/** Places kept in data.places per rule; all are counted. */
export const MAX_PLACES_PER_RULE = 20;
/** The longest a fresh worker may take to load ESLint and its rules (on top of the budget, within meta.timeoutMs). */
const WORKER_START_MS = 10_000;
/** A crafted script must not take the process's memory with it: the worker's heap ends there. */
const WORKER_HEAP_MB = 1_024;
const WORKER = new URL('./lint-worker.js', import.meta.url);
/** Workers that have loaded ESLint, waiting for the process's next run. */
export const WARM = new IdleWorkers();
/** ESLint's version, read from its package file: ESLint itself is loaded by the worker only, not here too. */
const ESLINT_VERSION = (createRequire(import.meta.url)('eslint/package.json') as { version: string }).version;

/** The bounds of a run; tests give a short deadline or a clock of their own. */
export interface JsLintLimits {
  scriptDeadlineMs: number;
  budgetMs: number;
  maxPlacesPerRule: number;
  /** Milliseconds from any fixed origin (performance.now()); the budget is measured on it. */
  clock: () => number;
}

const LIMITS: JsLintLimits = { scriptDeadlineMs: SCRIPT_DEADLINE_MS, budgetMs: LINT_BUDGET_MS, maxPlacesPerRule: MAX_PLACES_PER_RULE, clock: () => performance.now() };

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
  /** not-linted: the budget ran out before it; timed-out: its own deadline passed; failed: the worker broke (its error). */
  status: 'linted' | 'unparsable' | 'too-large' | 'not-linted' | 'timed-out' | 'failed';
  /** How it was parsed when linted: as a module, or as a classic script after failing as one. */
  source_type: SourceType | null;
  /** Why it parses as neither (the classic-script attempt's error). */
  parse_error?: { line: number; column: number; message: string };
  /** Why the worker could not lint it (status failed). */
  error?: string;
  /** Every place a rule fired in it (data.places keeps the first few per rule). */
  places: number;
}

/** Type 29 with these bounds (the default export has the documented ones). */
export function createJsLint(limits: Partial<JsLintLimits> = {}): TestPlugin {
  const { scriptDeadlineMs, budgetMs, maxPlacesPerRule, clock } = { ...LIMITS, ...limits };
  return definePlugin({
    meta,
    async run(artifacts, { signal }) {
      const started = clock();
      let inline = 0;
      const scripts = artifacts.scripts.map((s) => ({ ...s, name: scriptName({ url: s.url, inline: s.url ? 0 : ++inline, page: artifacts.finalUrl }) }));
      const base = {
        linter: 'eslint',
        version: ESLINT_VERSION,
        rules: RULE_CATEGORY,
        no_inline_config: true,
        max_script_bytes: MAX_SCRIPT_BYTES,
        limits: { max_script_bytes: MAX_SCRIPT_BYTES, script_deadline_ms: scriptDeadlineMs, budget_ms: budgetMs, max_places_per_rule: maxPlacesPerRule },
      };
      if (scripts.length === 0) {
        // As upstream: nothing to fix, every rule resolved, 5.0 in both categories.
        const findings: Finding[] = JS_RULES.map((rule) => ({ rule, category: RULE_CATEGORY[rule], severity: 'resolved', text: STRINGS.resolved(rule) }));
        return { ...issueRatings(findings, meta.categories), findings, summary: STRINGS.noScripts, data: { ...base, scripts: [], places: [], place_counts: {} } };
      }

      const outcomes: ScriptOutcome[] = [];
      const places: LintPlace[] = [];
      const counts: Partial<Record<JsRule, number>> = {};
      const stored = new Map<JsRule, number>();
      const firstPlace = new Map<JsRule, { where: ReportText; line: number; column: number }>();
      // Taken warm or started at the first script to lint; terminated at a deadline or when the
      // signal aborts, else kept warm for the next run.
      const worker = new WorkerTask<typeof LintWorker>(WORKER, { signal, init: { fn: 'warmUp', args: [] }, startMs: WORKER_START_MS, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }, keep: { workers: WARM, key: WORKER.href } });
      try {
        for (const s of scripts) {
          const bytes = Buffer.byteLength(s.content);
          const outcome: ScriptOutcome = { script: s.name.en, url: s.url, bytes, status: 'not-linted', source_type: null, places: 0 };
          outcomes.push(outcome);
          if (bytes > MAX_SCRIPT_BYTES) {
            outcome.status = 'too-large';
            continue;
          }
          signal.throwIfAborted();
          const left = budgetMs - (clock() - started);
          if (left <= 0) continue;
          const deadline = Math.min(scriptDeadlineMs, left);
          let result: LintWorker.ScriptLint;
          try {
            result = await worker.call('lintScript', [s.content, maxPlacesPerRule], deadline);
          } catch (err) {
            if (signal.aborted) throw signal.reason;
            if (err instanceof DeadlineError) outcome.status = deadline < scriptDeadlineMs ? 'not-linted' : 'timed-out';
            else {
              outcome.status = 'failed';
              outcome.error = err instanceof Error ? err.message : String(err);
            }
            continue;
          }
          if ('error' in result) {
            outcome.status = 'unparsable';
            outcome.parse_error = result.error;
            continue;
          }
          outcome.status = 'linted';
          outcome.source_type = result.sourceType;
          for (const rule of JS_RULES) {
            const n = result.counts[rule] ?? 0;
            outcome.places += n;
            if (n) counts[rule] = (counts[rule] ?? 0) + n;
          }
          for (const m of result.places) {
            const kept = stored.get(m.rule) ?? 0;
            if (kept < maxPlacesPerRule) {
              places.push({ script: s.name.en, ...m });
              stored.set(m.rule, kept + 1);
            }
            if (!firstPlace.has(m.rule)) firstPlace.set(m.rule, { where: s.name, line: m.line, column: m.column });
          }
        }
      } finally {
        await worker.close();
      }

      const findings: Finding[] = [];
      for (const rule of JS_RULES) {
        const first = firstPlace.get(rule);
        if (first) findings.push({ rule, category: RULE_CATEGORY[rule], severity: 'error', text: STRINGS.finding(rule, first.where, first.line, first.column), count: counts[rule] });
      }
      const named = (status: ScriptOutcome['status']) => scripts.filter((_, i) => outcomes[i].status === status).map((s) => s.name);
      const notes: { rule: string; text: ReportText; count: number }[] = [];
      const unparsable = named('unparsable');
      if (unparsable.length) notes.push({ rule: 'js-unparsable', text: STRINGS.unparsable(unparsable), count: unparsable.length });
      const tooLarge = named('too-large');
      if (tooLarge.length) notes.push({ rule: 'js-too-large', text: STRINGS.tooLarge(tooLarge, MAX_SCRIPT_TEXT), count: tooLarge.length });
      const timedOut = named('timed-out');
      if (timedOut.length) notes.push({ rule: 'js-lint-timeout', text: STRINGS.timedOut(timedOut, scriptDeadlineMs / 1000), count: timedOut.length });
      const failed = named('failed');
      if (failed.length) notes.push({ rule: 'js-lint-failed', text: STRINGS.failed(failed), count: failed.length });
      const notLinted = named('not-linted');
      if (notLinted.length) notes.push({ rule: 'js-out-of-time', text: STRINGS.outOfTime(notLinted, budgetMs / 1000), count: notLinted.length });
      for (const note of notes) findings.push({ ...note, category: 'webstandard', severity: 'info' });

      const linted = outcomes.filter((o) => o.status === 'linted').length;
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      const data = { ...base, scripts: outcomes, places, place_counts: counts };
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
        summary: withNotes(STRINGS.summary(linted, scripts.length, ESLINT_VERSION, total)),
        data,
      };
    },
  });
}

export default createJsLint();
