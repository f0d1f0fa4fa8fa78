/**
 * Reading plugin outcomes the way the reference rules state them (webperf-reference.md): each
 * failing rule deducts 10 (error) or 1 (warning) from 100, rating = max(1, score / 100 × 5),
 * overall = mean of the categories. Shared by the plugin tests that work ratings out by hand.
 */
import { runPlugin, type TestOutcome } from '../../core/pipeline.js';
import type { Artifacts, PluginResult, Probes, TestPlugin } from '../../core/plugin-api.js';

export type Expected = Record<string, { category: string; severity: string; count: number }>;

/** Two decimals, half up, without binary surprises ((5 + 4.95) / 2 = 4.975 → 4.98). */
export const twoPlaces = (x: number) => Math.round(Number((x * 100).toPrecision(12))) / 100;

/** Reference rules: 100 − 10 per failing error rule − 1 per failing warning rule → 1..5. */
export function rating(errors: number, warnings: number): number {
  const score = Math.max(0, 100 - 10 * errors - warnings);
  return twoPlaces(Math.max(1, (score / 100) * 5));
}

export const mean = (...ratings: number[]) => twoPlaces(ratings.reduce((a, b) => a + b, 0) / ratings.length);

/** Runs a plugin through the pipeline, keeping its raw result too (the outcome has no findings). */
export async function rate(plugin: TestPlugin, artifacts: Artifacts, probes: Probes): Promise<{ outcome: TestOutcome; result: PluginResult }> {
  let result: PluginResult | undefined;
  const spy: TestPlugin = { meta: plugin.meta, run: async (a, c) => (result = await plugin.run(a, c)) };
  const outcome = await runPlugin(spy, artifacts, { probes });
  if (outcome.error) throw new Error(`type ${plugin.meta.id} failed: ${outcome.error}`);
  return { outcome, result: result! };
}

export function findingsOf(result: PluginResult): Expected {
  return Object.fromEntries(result.findings.map((f) => [f.rule, { category: f.category, severity: f.severity, count: f.count ?? 1 }]));
}

/** An expected error / warning finding. */
export const e = (count = 1, category = 'webstandard') => ({ category, severity: 'error', count });
export const w = (count = 1, category = 'webstandard') => ({ category, severity: 'warning', count });

/** A report section: a rating line, then one bullet per improvable finding (or "nothing"). */
export function reportLines(outcome: TestOutcome, lang: 'sv' | 'en', field: 'stand' | 'sec' = 'stand'): string[] {
  return outcome.reports[lang][field].split('\n');
}
