/**
 * The page's scripts through RetireJS, in bounded time. Each script is scanned in a worker thread
 * (core/worker-task.ts running retire-worker.ts): one worker per plugin run at a time, handed the
 * repository once. A healthy worker is kept warm for the next run (WARM) as long as the repository
 * is the same object (loadRetire() returns a new one after a refresh). A script gets SCRIPT_DEADLINE_MS; past it,
 * the worker is terminated (a backtracking regular expression cannot be stopped otherwise), the
 * script counts as not scanned, and the next script gets a fresh worker. The scans of a run share
 * SCAN_BUDGET_MS: no scan starts after it and none runs past it. The plugin's signal terminates
 * the worker at once. Size caps are retire-scan.ts's (MAX_CONTENT_CHARS, MAX_URL_PATH_CHARS).
 */
import { DeadlineError, IdleWorkers, WorkerTask } from '../../core/worker-task.js';
import type { RetireData } from './retire-data.js';
import type { RetireHit } from './retire-scan.js';
import type * as RetireWorker from './retire-worker.js';

/** The longest one script is scanned (its URL and its text together). */
export const SCRIPT_DEADLINE_MS = 5_000;
/** Scanning starts no script after this long, and no scan runs past it. */
export const SCAN_BUDGET_MS = 30_000;
/** The longest a fresh worker may take to load RetireJS and take the repository. */
const WORKER_START_MS = 10_000;
/** A crafted script must not take the process's memory with it: the worker's heap ends there. */
const WORKER_HEAP_MB = 512;
const WORKER = new URL('./retire-worker.js', import.meta.url);
/** Workers that have loaded RetireJS and a repository, waiting for the process's next run. */
export const WARM = new IdleWorkers();

/** The bounds of a run's scans; tests give a short deadline or a clock of their own. */
export interface ScanLimits {
  scriptDeadlineMs: number;
  budgetMs: number;
  /** Milliseconds from any fixed origin (performance.now()); the budget is measured on it. */
  clock: () => number;
}

export const SCAN_LIMITS: ScanLimits = { scriptDeadlineMs: SCRIPT_DEADLINE_MS, budgetMs: SCAN_BUDGET_MS, clock: () => performance.now() };

/**
 * What became of one script: scanned (its libraries, maybe none); not scanned because RetireJS
 * does not scan such scripts (dont-check); or not scanned for want of time (timed-out: its own
 * deadline; out-of-time: the run's budget) or because the worker broke (failed, out of memory).
 */
export type ScriptScan =
  | { status: 'scanned'; hits: RetireHit[] }
  | { status: 'dont-check' }
  | { status: 'timed-out' | 'out-of-time' }
  | { status: 'failed'; error: string };

/** Scans scripts one by one for one plugin run; close() when done. */
export class ScriptScanner {
  readonly #task: WorkerTask<typeof RetireWorker>;
  readonly #signal: AbortSignal;
  readonly #limits: ScanLimits;
  readonly #started: number;

  constructor(retire: RetireData, signal: AbortSignal, limits: ScanLimits = SCAN_LIMITS) {
    this.#signal = signal;
    this.#limits = limits;
    this.#started = limits.clock();
    this.#task = new WorkerTask<typeof RetireWorker>(WORKER, {
      signal,
      init: { fn: 'setRepository', args: [retire.repository, retire.dontCheck] },
      keep: { workers: WARM, key: retire },
      startMs: WORKER_START_MS,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
  }

  /** One script; rejects only with the signal's reason. */
  async scan(script: { url: string; content: string | null }): Promise<ScriptScan> {
    this.#signal.throwIfAborted();
    const { scriptDeadlineMs, budgetMs, clock } = this.#limits;
    const left = budgetMs - (clock() - this.#started);
    if (left <= 0) return { status: 'out-of-time' };
    const deadline = Math.min(scriptDeadlineMs, left);
    try {
      const result = await this.#task.call('scan', [script], deadline);
      return result === 'dont-check' ? { status: 'dont-check' } : { status: 'scanned', hits: result };
    } catch (err) {
      if (this.#signal.aborted) throw this.#signal.reason;
      if (err instanceof DeadlineError) return { status: deadline < scriptDeadlineMs ? 'out-of-time' : 'timed-out' };
      return { status: 'failed', error: err instanceof Error ? err.message : String(err) };
    }
  }

  close(): Promise<void> {
    return this.#task.close();
  }
}
