/**
 * Linting one script, the part of type 29 that runs in a worker thread (core/worker-task.ts):
 * ESLint's Linter is synchronous and a crafted script keeps it busy for many seconds, so it runs
 * where a deadline can stop it without stalling the service's event loop. Parsed as an ES module
 * first, as upstream does, then as a classic script. What goes back to the plugin is bounded: the
 * count of every rule's places, and at most `maxPlacesPerRule` of them.
 */
import { Linter } from 'eslint';
import { isJsRule, lintConfig, type JsRule, type SourceType } from './rules.js';

/** One place a rule fired in the script. */
export interface ScriptPlace {
  line: number;
  column: number;
  rule: JsRule;
  message: string;
}

/** A script's lint: how it parsed, every rule's count and the first places; or why it parses as neither. */
export type ScriptLint =
  | { sourceType: SourceType; counts: Partial<Record<JsRule, number>>; places: ScriptPlace[] }
  | { error: { line: number; column: number; message: string } };

const linter = new Linter();
const CONFIG = { module: lintConfig('module'), script: lintConfig('script') };

/**
 * Lints a tiny script in both source types once, as the worker starts (WorkerTask's `init`): ESLint
 * loads its rules at their first use, which must count against the worker's start, not against
 * the first script's deadline.
 */
export function warmUp(): void {
  for (const sourceType of ['module', 'script'] as const) linter.verify('debugger;\n', CONFIG[sourceType], 'script.js');
}

export function lintScript(code: string, maxPlacesPerRule: number): ScriptLint {
  let fatal: Linter.LintMessage | undefined;
  for (const sourceType of ['module', 'script'] as const) {
    const messages = linter.verify(code, CONFIG[sourceType], 'script.js');
    fatal = messages.find((m) => m.fatal);
    if (fatal) continue;
    const counts: Partial<Record<JsRule, number>> = {};
    const places: ScriptPlace[] = [];
    for (const m of messages) {
      if (!isJsRule(m.ruleId)) continue;
      const count = (counts[m.ruleId] = (counts[m.ruleId] ?? 0) + 1);
      if (count <= maxPlacesPerRule) places.push({ line: m.line, column: m.column, rule: m.ruleId, message: m.message });
    }
    return { sourceType, counts, places };
  }
  return { error: { line: fatal!.line, column: fatal!.column, message: fatal!.message } };
}
