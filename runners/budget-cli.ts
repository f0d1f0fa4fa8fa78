/**
 * The budget options `webperf test` and `webperf audit` share: `--assert` (repeatable, commas
 * allowed) and `--budget FILE.json`, read and checked before a page is loaded, and the lines a
 * command prints about them. The rules themselves are core's (core/budgets.ts).
 *
 * Exit codes of both commands: 0 every page tested and every budget met; 1 the page could not be
 * tested (`webperf test`; it wins over 3), or the command failed (no Chromium); 2 bad usage, a bad
 * assertion or budget file among it; 3 a budget is broken.
 */
import { readFile } from 'node:fs/promises';
import { brokenBudgetLine, budgetSummary, checkBudgets, parseAssertions, parseBudgetFile, unique, type Budget, type BudgetResult } from '../core/budgets.js';
import { isWebperfError } from '../core/errors.js';
import type { TestPlugin } from '../core/plugin-api.js';
import { PROCESS_IO } from './command-io.js';

/** The exit code of a command whose page was tested and one of whose budgets is broken. */
export const EXIT_BUDGET_BROKEN = 3;

/** parseArgs options of the budgets. */
export const BUDGET_OPTIONS = {
  assert: { type: 'string', multiple: true },
  budget: { type: 'string' },
} as const;

type Fail = (message: string, code?: number) => never;

/** The budgets of `--assert` and `--budget`, in that order, each once; bad ones end the command (2). */
export async function readBudgets(command: string, values: { assert?: string[]; budget?: string }, fail: Fail): Promise<Budget[]> {
  const budgets: Budget[] = [];
  try {
    budgets.push(...parseAssertions(values.assert ?? []));
  } catch (err) {
    if (isWebperfError(err)) fail(`${command}: --assert: ${err.message}`);
    throw err;
  }
  if (values.budget !== undefined) {
    let text: string;
    try {
      text = await readFile(values.budget, 'utf8');
    } catch (err) {
      fail(`${command}: budget file ${values.budget} cannot be read: ${(err as Error).message}`);
    }
    try {
      budgets.push(...parseBudgetFile(text));
    } catch (err) {
      if (isWebperfError(err)) fail(`${command}: budget file ${values.budget}: ${err.message}`);
      throw err;
    }
  }
  return unique(budgets);
}

/** Ends the command (2) when a budget names a test type or category the command does not rate. */
export function checkBudgetsOrFail(command: string, budgets: readonly Budget[], plugins: readonly TestPlugin[], fail: Fail): void {
  try {
    checkBudgets(budgets, plugins.map((p) => ({ id: p.meta.id, categories: p.meta.categories })));
  } catch (err) {
    if (isWebperfError(err)) fail(err.message.split('\n').map((line) => `${command}: ${line}`).join('\n'));
    throw err;
  }
}

/** One line per broken budget on stderr (or `err`), then the count; true when one is broken. */
export function printBudgets(pages: readonly { url: string; budgets: readonly BudgetResult[] }[], err: (text: string) => void = PROCESS_IO.err): boolean {
  const all = pages.flatMap((p) => p.budgets);
  if (all.length === 0) return false;
  for (const page of pages) for (const r of page.budgets) if (!r.met) err(`${brokenBudgetLine(r, page.url)}\n`);
  err(`${budgetSummary(all)}\n`);
  return all.some((r) => !r.met);
}
