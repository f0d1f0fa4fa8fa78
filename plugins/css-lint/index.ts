/**
 * Type 27: CSS Lint. Every stylesheet the page used (external and inline, as gathered) is linted
 * in-process with stylelint's Node API and the rules in rules.ts; a sheet that cannot be parsed
 * is one `css-syntax-error` finding. One finding per failing rule over all sheets, counted per
 * message. Inline sheets have no URL and are named "inline #n" in their order in the page.
 */
import { createRequire } from 'node:module';
import type Stylelint from 'stylelint';
import { meta } from './meta.js';
import { definePlugin, NOT_RATED, type Finding, type Severity } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { ERROR_RULES, STYLELINT_CONFIG, SYNTAX_ERROR_RULE, WARNING_RULES } from './rules.js';
import { RULES, STRINGS } from './strings.js';

const STYLELINT_VERSION: string = createRequire(import.meta.url)('stylelint/package.json').version;

let linter: Promise<typeof Stylelint> | null = null;
/**
 * stylelint, loaded at the first sheet it lints (its modules are about 200 and 160 ms of a process
 * start): a process that never runs this type (the API, an operator command) never loads it.
 */
function theLinter(): Promise<typeof Stylelint> {
  linter ??= import('stylelint').then((m) => m.default);
  return linter;
}

/** One stylelint message, as stored in json_check_data. */
interface LintMessage {
  rule: string;
  severity: Severity;
  line: number;
  column: number;
  text: string;
}

async function lintSheet(code: string): Promise<LintMessage[]> {
  const { results } = await (await theLinter()).lint({ code, config: STYLELINT_CONFIG });
  const out: LintMessage[] = [];
  for (const w of results.flatMap((r) => r.warnings)) {
    const rule = w.rule === 'CssSyntaxError' ? SYNTAX_ERROR_RULE : w.rule;
    out.push({
      rule,
      severity: w.severity === 'error' ? 'error' : 'warning',
      line: w.line,
      column: w.column,
      // stylelint ends each text with " (rule-id)"; the rule is a field of its own here.
      text: w.text.replace(/\s*\([^()]+\)\s*$/, ''),
    });
  }
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

export default definePlugin({
  meta,
  async run(artifacts, { signal }) {
    const base = { linter: 'stylelint', version: STYLELINT_VERSION, rules: [...ERROR_RULES, ...WARNING_RULES] };
    if (artifacts.stylesheets.length === 0) {
      return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.noStylesheets, data: { ...base, stylesheets: [], errors: 0, warnings: 0 } };
    }

    let inline = 0;
    const sheets: { url: string; messages: LintMessage[] }[] = [];
    for (const sheet of artifacts.stylesheets) {
      if (signal.aborted) break; // out of time: the pipeline has already given up on this run
      const url = sheet.url || STRINGS.inline(++inline);
      sheets.push({ url, messages: sheet.content.trim() ? await lintSheet(sheet.content) : [] });
    }

    const byRule = new Map<string, { severity: Severity; first: LintMessage & { url: string }; count: number }>();
    for (const { url, messages } of sheets) {
      for (const m of messages) {
        const seen = byRule.get(m.rule);
        if (seen) {
          seen.count++;
          if (m.severity === 'error') seen.severity = 'error';
        } else {
          byRule.set(m.rule, { severity: m.severity, first: { ...m, url }, count: 1 });
        }
      }
    }
    const findings: Finding[] = [...byRule].map(([rule, { severity, first, count }]) => ({
      rule,
      category: 'webstandard',
      severity,
      text: STRINGS.finding(rule, RULES[rule] ?? STRINGS.otherRule, first.url, first.line, first.text),
      count,
    }));

    const all = sheets.flatMap((s) => s.messages);
    const errors = all.filter((m) => m.severity === 'error').length;
    const warnings = all.length - errors;
    return {
      ...issueRatings(findings, ['webstandard']),
      findings,
      summary: STRINGS.summary(sheets.length, STYLELINT_VERSION, errors, warnings),
      data: { ...base, stylesheets: sheets, errors, warnings },
    };
  },
});
