/**
 * Gather once, rate many: run every selected plugin on one set of artifacts. Like Lighthouse's
 * runner, the pipeline enforces the plugin contract: required artifacts are checked before run(),
 * a rating of a category the plugin did not declare is rejected, and a plugin that throws or runs
 * out of time yields an error outcome; none of these sinks the others.
 */
import { CATEGORIES, ComponentUnavailable, NOT_RATED, type Artifacts, type Finding, type Category, type PluginResult, type Probes, type TestPlugin } from './plugin-api.js';
import { errorReports, failureReports, judgedWithoutPage, renderReports, type Reports } from './report.js';
import type { ReportText } from './i18n/langs.js';
import { round } from './rating.js';
import { untilAborted } from './abort.js';

/** Why the page could not be loaded (core/gather/load-failure.ts), as every outcome reports it. */
export interface PageFailure {
  /** The error code (TARGET_REFUSED, TARGET_CERTIFICATE...). */
  code: string;
  /** In English: the outcome's error. */
  message: string;
  /** In the report languages: the outcome's reports. */
  text: ReportText;
  /** Kept in json_check_data beside the code. */
  details?: Record<string, unknown>;
  /** The probes read the page although the browser did not: plugins with meta.judgesFromProbes run. */
  probesSuffice: boolean;
}

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
  /**
   * The program this runner lacks (PluginMeta.requires) when the type could not run here: not
   * rated, not the site's latest result, and a re-test is not charged for it.
   */
  unavailable?: string;
}

export interface RunPluginsOptions {
  probes: Probes;
  onPlugin?: (plugin: TestPlugin, outcome: TestOutcome) => void;
  /**
   * The caller's limit (the job's time limit). Joined with each plugin's own timeout; when either
   * aborts, the plugin's outcome is an error and the pipeline stops waiting for it at once.
   */
  signal?: AbortSignal;
  /**
   * The page could not be loaded, for this reason: a plugin's outcome is that reason, not rated,
   * and its run() is not called; save for a plugin that judges from the probes alone
   * (meta.judgesFromProbes) when the probes suffice, which runs on the artifacts given (the probes'
   * reading of the page) and whose reports say it was judged without the page.
   */
  pageFailure?: PageFailure;
  /** The time of the run the plugins judge ages against (context.now); default: when they start. */
  now?: Date;
}

/** Default time limit of one plugin's run(). */
export const PLUGIN_TIMEOUT_MS = 30_000;

function clampRating(r: number): number {
  if (r === NOT_RATED || !Number.isFinite(r)) return NOT_RATED;
  return round(Math.min(5, Math.max(1, r)), 5);
}

/** Artifacts the plugin declared and the gather step did not deliver (null or absent). */
function missingArtifacts(plugin: TestPlugin, artifacts: Artifacts): (keyof Artifacts)[] {
  return plugin.meta.requiredArtifacts.filter((name) => artifacts[name] === null || artifacts[name] === undefined);
}

function checkedRatings(plugin: TestPlugin, result: PluginResult): Partial<Record<Category, number>> {
  const ratings: Partial<Record<Category, number>> = {};
  for (const [k, v] of Object.entries(result.ratings ?? {})) {
    if (v === undefined) continue;
    if (!(CATEGORIES as readonly string[]).includes(k) || !plugin.meta.categories.includes(k as Category)) {
      const declared = plugin.meta.categories.length ? plugin.meta.categories.join(', ') : 'none';
      throw new Error(`the plugin rated the category "${k}", which its meta does not declare (declared: ${declared})`);
    }
    if (typeof v === 'number') ratings[k as Category] = clampRating(v);
  }
  return ratings;
}

/** Not rated, the reason in every report language and in json_check_data. */
function errorOutcome(plugin: TestPlugin, message: string, started: number): TestOutcome {
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
}

/** The page could not be loaded: not rated, the reason in every report language and in json_check_data. */
function failureOutcome(plugin: TestPlugin, failure: PageFailure, started: number): TestOutcome {
  return {
    typeOfTest: plugin.meta.id,
    rating: NOT_RATED,
    ratings: {},
    reports: failureReports(failure.text),
    findings: [],
    data: { error: failure.message, code: failure.code, ...failure.details },
    error: failure.message,
    durationMs: Date.now() - started,
  };
}

/**
 * A plugin's judgement made although the page could not be loaded (from the probes, or of
 * something other than the page): its reports and data say so and why. Outcomes that are not a
 * judgement (an error, a type not available) are left as they are.
 */
export function judgedDespite(outcome: TestOutcome, failure: PageFailure): TestOutcome {
  if (outcome.error !== null) return outcome;
  return {
    ...outcome,
    reports: judgedWithoutPage(outcome.reports, failure.text),
    data: { ...outcome.data, page_load_failure: { code: failure.code, message: failure.message } },
  };
}

/** The type needs a program this runner lacks: not rated, said in the report languages. */
function unavailableOutcome(plugin: TestPlugin, err: ComponentUnavailable, started: number): TestOutcome {
  const text: ReportText = {
    sv: `Testtypen går inte att köra på den här testmaskinen: ${err.component} saknas (${err.message}). Testtypen har inte debiterats.`,
    en: `The test type is not available on this test runner: ${err.component} is missing (${err.message}). It was not charged for.`,
  };
  return {
    typeOfTest: plugin.meta.id,
    rating: NOT_RATED,
    ratings: {},
    reports: failureReports(text),
    findings: [],
    data: { error: err.message, code: 'TEST_TYPE_UNAVAILABLE', component: err.component },
    error: `not available on this runner: ${err.component} is missing (${err.message})`,
    durationMs: Date.now() - started,
    unavailable: err.component,
  };
}

export async function runPlugin(plugin: TestPlugin, artifacts: Artifacts, options: RunPluginsOptions): Promise<TestOutcome> {
  const started = Date.now();
  const failure = options.pageFailure;
  if (failure && plugin.meta.needsPage !== false && !(failure.probesSuffice && plugin.meta.judgesFromProbes)) return failureOutcome(plugin, failure, started);
  const timeoutMs = plugin.meta.timeoutMs ?? PLUGIN_TIMEOUT_MS;
  const own = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, own]) : own;
  const missing = missingArtifacts(plugin, artifacts);
  if (missing.length) {
    // Decided here once, for every plugin: run() never sees an artifact it declared as null.
    return errorOutcome(plugin, `required artifact${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not collected by the page load`, started);
  }
  try {
    // A job already out of time starts nothing.
    signal.throwIfAborted();
    const result = await untilAborted(Promise.resolve().then(() => plugin.run(artifacts, { probes: options.probes, signal, now: options.now ?? new Date(started) })), signal);
    const outcome: TestOutcome = {
      typeOfTest: plugin.meta.id,
      rating: clampRating(result.rating),
      ratings: checkedRatings(plugin, result),
      reports: renderReports(result),
      findings: result.findings,
      data: result.data ?? {},
      error: null,
      durationMs: Date.now() - started,
    };
    return failure ? judgedDespite(outcome, failure) : outcome;
  } catch (err) {
    if (err instanceof ComponentUnavailable && !signal.aborted) return unavailableOutcome(plugin, err, started);
    // Once the signal has aborted, that is the reason, whatever the plugin threw on seeing it.
    const reason: unknown = signal.aborted ? signal.reason : err;
    const text = reason instanceof Error ? reason.message : String(reason);
    const message = !signal.aborted ? text : reason === own.reason ? `took longer than ${timeoutMs} ms` : `stopped: ${text}`;
    return errorOutcome(plugin, message, started);
  }
}

export async function runPlugins(plugins: readonly TestPlugin[], artifacts: Artifacts, options: RunPluginsOptions): Promise<TestOutcome[]> {
  // One time for the whole run: every plugin judges ages against the same moment.
  const shared = { ...options, now: options.now ?? new Date() };
  return Promise.all(
    plugins.map(async (p) => {
      const outcome = await runPlugin(p, artifacts, shared);
      options.onPlugin?.(p, outcome);
      return outcome;
    }),
  );
}
