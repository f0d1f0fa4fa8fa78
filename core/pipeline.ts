/**
 * Gather once, rate many: run every selected plugin on one set of artifacts. A plugin that throws
 * or runs out of time yields an error outcome; it never sinks the others.
 */
import { NOT_RATED, type Artifacts, type Finding, type Category, type PluginResult, type Probes, type TestPlugin } from './plugin-api.js';
import type { Lang } from './i18n/langs.js';
import { errorReports, renderReports, type Reports } from './report.js';
import { round } from './rating.js';

/** One plugin's outcome, ready to store. */
export interface TestOutcome {
  typeOfTest: number;
  rating: number;
  ratings: Partial<Record<Category, number>>;
  reports: Reports;
  /** The plugin's findings (reports are rendered from them). */
  findings: Finding[];
  data: Record<string, unknown>;
  error: string | null;
  durationMs: number;
}

export interface RunPluginsOptions {
  lang?: Lang;
  probes: Probes;
  onPlugin?: (plugin: TestPlugin, outcome: TestOutcome) => void;
  /** Stops the plugins' work (the job's time limit, a runner shutting down). */
  signal?: AbortSignal;
  /** Run the plugins concurrently (default) or one by one. */
  concurrent?: boolean;
}

function clampRating(r: number): number {
  if (r === NOT_RATED || !Number.isFinite(r)) return NOT_RATED;
  return round(Math.min(5, Math.max(1, r)), 5);
}

export async function runPlugin(plugin: TestPlugin, artifacts: Artifacts, options: RunPluginsOptions): Promise<TestOutcome> {
  const started = Date.now();
  const timeoutMs = plugin.meta.timeoutMs ?? 30_000;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  try {
    const result: PluginResult = await Promise.race([
      Promise.resolve().then(() => plugin.run(artifacts, { lang: options.lang ?? 'sv', probes: options.probes, signal: controller.signal })),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new Error(`took longer than ${timeoutMs} ms`));
        }, timeoutMs);
      }),
    ]);
    const ratings: Partial<Record<Category, number>> = {};
    for (const [k, v] of Object.entries(result.ratings)) if (typeof v === 'number') ratings[k as Category] = clampRating(v);
    return {
      typeOfTest: plugin.meta.id,
      rating: clampRating(result.rating),
      ratings,
      reports: renderReports(result),
      findings: result.findings,
      data: result.data ?? {},
      error: null,
      durationMs: Date.now() - started,
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      typeOfTest: plugin.meta.id,
      rating: NOT_RATED,
      ratings: {},
      reports: errorReports(message),
      findings: [],
      data: { error: message },
      error: message,
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
  }
}

export async function runPlugins(plugins: readonly TestPlugin[], artifacts: Artifacts, options: RunPluginsOptions): Promise<TestOutcome[]> {
  const one = async (p: TestPlugin) => {
    const outcome = await runPlugin(p, artifacts, options);
    options.onPlugin?.(p, outcome);
    return outcome;
  };
  if (options.concurrent === false) {
    const out: TestOutcome[] = [];
    for (const p of plugins) out.push(await one(p));
    return out;
  }
  return Promise.all(plugins.map(one));
}
