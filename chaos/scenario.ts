/**
 * The contract of one chaos scenario. `npm run chaos` (chaos/run.ts) discovers every module in
 * chaos/scenarios/, runs each in file-name order and prints one table of what each one measured.
 * Scenarios that fit in CI also have a test under test/chaos/ that asserts the same outcomes.
 *
 * Every scenario sends traffic only to loopback addresses on this machine and stops by itself:
 * bounded in request count and in time (`budgetMs`).
 */
export type ChaosArea = 'bad input' | 'slow clients' | 'faults' | 'load' | 'guard';

export interface ChaosRow {
  area: ChaosArea;
  /** What was done, e.g. "PostgreSQL SIGKILL under traffic". */
  scenario: string;
  /** What was measured or held, e.g. "requests", "orders/s", "p99 ms", "5xx". */
  figure: string;
  /** The measured value, already formatted for people ("12,000", "41 ms", "0"). */
  value: string;
  /** Results, jobs, credits or deliveries lost or duplicated: must be 0. */
  dataLost: number;
  /** Whether the scenario's own goal held (it says which in `scenario` or `figure`). */
  ok: boolean;
}

export interface ChaosScenario {
  /** Short name, used to select it: `npm run chaos -- fuzz`. */
  name: string;
  /** Upper bound of its run time; the runner aborts the scenario past it. */
  budgetMs: number;
  run(ctx: { signal: AbortSignal; log: (line: string) => void }): Promise<ChaosRow[]>;
}
