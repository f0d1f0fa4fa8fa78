/**
 * Type 28: HTML Lint. Validates the served HTML document (the gathered `mainDocument.html`, so no
 * second page load) with html-validate; one finding per failing rule, counted per message.
 *
 * Why html-validate and not the Nu Html Checker (what W3C's validator runs): Nu needs a Java
 * runtime and a ~30 MB jar fetched from outside the npm registry, or a call to a remote service.
 * html-validate is an npm package that runs in-process, offline and fast.
 *
 * Preset: html-validate 10 ships `recommended`, `standard`, `a11y`, `document`, `browser` and
 * `prettier`. We use `html-validate:standard`: the rules that check conformance with the HTML
 * standard (content models, required attributes, deprecated elements, duplicate ids...).
 * `recommended` adds style opinions (quoting, inline style, trailing whitespace) and WCAG
 * technique rules; style is not validity, and accessibility is rated by type 18 (axe-core).
 *
 * Severity: html-validate's 2 (error) is an error finding, 1 (warn) a warning.
 */
import { createRequire } from 'node:module';
import type { HtmlValidate, Message } from 'html-validate';
import { meta } from './meta.js';
import { definePlugin, NOT_RATED, type Finding, type Severity } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { RULES, STRINGS } from './strings.js';


export const PRESET = 'html-validate:standard';
/** json_check_data keeps at most this many messages (the counts stay complete). */
const MAX_STORED_MESSAGES = 500;

/** html-validate's version, read from its package file: loading the validator waits for a run. */
const htmlValidateVersion: string = (createRequire(import.meta.url)('html-validate/package.json') as { version: string }).version;

let validator: Promise<HtmlValidate> | null = null;
/**
 * The validator, loaded at the first page it validates (html-validate is about 100 ms of a process
 * start): a process that never runs this type (the API, an operator command) never loads it.
 */
function theValidator(): Promise<HtmlValidate> {
  validator ??= import('html-validate').then(({ HtmlValidate }) => new HtmlValidate({ root: true, extends: [PRESET] }));
  return validator;
}

function severityOf(level: number): Severity {
  return level >= 2 ? 'error' : 'warning';
}

export default definePlugin({
  meta,
  async run(artifacts) {
    const html = artifacts.mainDocument.html;
    if (!html.trim()) {
      return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.noHtml, data: { validator: 'html-validate', version: htmlValidateVersion, preset: PRESET } };
    }
    const report = await (await theValidator()).validateString(html, artifacts.mainDocument.url || 'document.html');
    const messages: Message[] = report.results.flatMap((r) => r.messages);

    const byRule = new Map<string, Message[]>();
    for (const m of messages) {
      const list = byRule.get(m.ruleId) ?? [];
      list.push(m);
      byRule.set(m.ruleId, list);
    }
    const findings: Finding[] = [];
    for (const [rule, list] of byRule) {
      const first = list[0];
      findings.push({
        rule,
        category: 'webstandard',
        severity: severityOf(Math.max(...list.map((m) => m.severity))),
        text: STRINGS.finding(rule, RULES[rule] ?? STRINGS.otherRule, first.line, first.message),
        count: list.length,
      });
    }

    const errors = messages.filter((m) => m.severity >= 2).length;
    const warnings = messages.length - errors;
    return {
      ...issueRatings(findings, ['webstandard']),
      findings,
      summary: STRINGS.summary(htmlValidateVersion, errors, warnings),
      data: {
        validator: 'html-validate',
        version: htmlValidateVersion,
        preset: PRESET,
        messages: messages.slice(0, MAX_STORED_MESSAGES).map((m) => ({
          rule: m.ruleId,
          severity: severityOf(m.severity),
          message: m.message,
          line: m.line,
          column: m.column,
          selector: m.selector,
        })),
        errors,
        warnings,
      },
    };
  },
});
