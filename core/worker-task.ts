/**
 * CPU-heavy work with a deadline, off the event loop. A WorkerTask runs the exported functions of
 * one module in a worker thread (node:worker_threads), one call at a time. Synchronous work (a
 * regular expression backtracking, a parser) cannot be interrupted from inside, so a call that
 * passes its deadline, or the owner's AbortSignal, terminates the worker; the next call starts a
 * fresh one. The worker starts at the first call, not before, and serves every later call until
 * close(): one worker per owner (a plugin run), not one per item.
 *
 * Kept warm: loading a large module (ESLint, RetireJS) in a fresh worker costs seconds, so an owner
 * may give its task `keep` (IdleWorkers: one per module, shared by the process's runs). close() then
 * hands a healthy worker that is not in the middle of a call to it instead of terminating it, and
 * the next task with the same key takes it instead of starting one. A worker that passed a deadline,
 * crashed or was aborted is never kept; idle workers end after IdleWorkers' idleMs.
 *
 * Loading: the worker's entry (worker-task-entry.ts, built beside this file) imports the module by
 * its URL: the built JavaScript of the module, as everything in dist/ runs. Workers are started
 * with no execArgv, so they load the same way under `npm start` and `npm test`.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

const ENTRY = new URL('./worker-task-entry.js', import.meta.url);
/** How long a fresh worker may take to load its module (and run `init`) by default. */
const START_MS = 30_000;

/** A call ran past its deadline; its worker was terminated. */
export class DeadlineError extends Error {
  readonly deadlineMs: number;
  constructor(deadlineMs: number) {
    super(`not done within ${deadlineMs} ms`);
    this.name = 'DeadlineError';
    this.deadlineMs = deadlineMs;
  }
}

type Callable = (...args: any[]) => unknown;
/** The names of a module's exported functions. */
type FunctionName<M> = { [K in keyof M]: M[K] extends Callable ? K : never }[keyof M] & string;
type Args<F> = F extends (...args: infer A) => unknown ? A : never;
type Result<F> = F extends (...args: any[]) => infer R ? Awaited<R> : never;

export interface WorkerTaskOptions<M> {
  /** Aborting terminates the worker; the pending call and every later one reject with the reason. */
  signal?: AbortSignal;
  /** A call each fresh worker makes before its first task: hands it data once, not with every call. */
  init?: { [K in FunctionName<M>]: { fn: K; args: Args<M[K]> } }[FunctionName<M>];
  /** Heap limits of the worker: running out ends the call with an error, not the process. */
  resourceLimits?: ResourceLimits;
  /** How long a fresh worker may take to load the module and run `init`; not part of any call's deadline. */
  startMs?: number;
  /**
   * Where close() leaves a healthy worker, and where the first call looks for one first. `key`
   * names what `init` handed it (the same key, the same data): a worker kept under another key is
   * not taken.
   */
  keep?: { workers: IdleWorkers; key: unknown };
}

interface Idle {
  worker: Worker;
  key: unknown;
  timer: NodeJS.Timeout;
  onExit: () => void;
}

/**
 * Started workers waiting for their next owner (WorkerTaskOptions.keep): at most `max`, each for at
 * most `idleMs`. An idle worker does not keep the process alive. One per module, module-level.
 */
export class IdleWorkers {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #idle: Idle[] = [];

  constructor(options: { max?: number; idleMs?: number } = {}) {
    this.#max = options.max ?? 2;
    this.#idleMs = options.idleMs ?? 60_000;
  }

  /** How many workers wait now. */
  get size(): number {
    return this.#idle.length;
  }

  /** A waiting worker kept under `key`, if any; workers kept under another key end. */
  take(key: unknown): Worker | null {
    for (const stale of this.#idle.filter((i) => i.key !== key)) this.#end(stale);
    const found = this.#idle.shift();
    if (!found) return null;
    clearTimeout(found.timer);
    found.worker.off('exit', found.onExit);
    found.worker.off('error', found.onExit);
    return found.worker;
  }

  /** Keeps `worker` (started with `key`'s init) for the next owner, or ends it when full. */
  put(worker: Worker, key: unknown): void {
    if (this.#idle.length >= this.#max) {
      worker.terminate().catch(() => {});
      return;
    }
    const entry: Idle = { worker, key, timer: setTimeout(() => void this.#end(entry), this.#idleMs), onExit: () => this.#drop(entry) };
    entry.timer.unref();
    // A worker that fails or ends while it waits is forgotten (and an 'error' event must have a listener).
    worker.on('exit', entry.onExit);
    worker.on('error', entry.onExit);
    this.#idle.push(entry);
  }

  /** Ends every waiting worker. */
  async close(): Promise<void> {
    await Promise.all([...this.#idle].map((i) => this.#end(i)));
  }

  #drop(entry: Idle): void {
    const at = this.#idle.indexOf(entry);
    if (at >= 0) this.#idle.splice(at, 1);
    clearTimeout(entry.timer);
  }

  #end(entry: Idle): Promise<void> {
    this.#drop(entry);
    entry.worker.off('exit', entry.onExit);
    entry.worker.off('error', entry.onExit);
    return entry.worker.terminate().then(() => {}, () => {});
  }
}

interface Reply {
  id?: number;
  ready?: true;
  ok?: boolean;
  value?: unknown;
  error?: { name: string; message: string; stack?: string };
}

function revive(error: NonNullable<Reply['error']>): Error {
  return Object.assign(new Error(error.message), { name: error.name, stack: error.stack });
}

/** The functions of `module` (a file URL; TypeScript is fine), run in a worker thread. */
export class WorkerTask<M> {
  readonly #module: URL;
  readonly #options: WorkerTaskOptions<M>;
  #worker: Worker | null = null;
  /** The worker once it has started (loaded the module, run `init`): only such a worker is kept. */
  #ready: Worker | null = null;
  #onGone: (() => void) | null = null;
  #starting: Promise<Worker> | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  /** Ends what is waiting on the worker now (a call or the start), with this reason. */
  #stopWaiting: ((reason: unknown) => void) | null = null;
  #ids = 0;
  #started = 0;
  #closed = false;

  constructor(module: URL, options: WorkerTaskOptions<M> = {}) {
    this.#module = module;
    this.#options = options;
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /**
   * How many workers this task started so far: 0 until the first call (and when it took a kept
   * worker); one more after each deadline or crash.
   */
  get started(): number {
    return this.#started;
  }

  /** Whether a worker is alive now. */
  get running(): boolean {
    return this.#worker !== null;
  }

  /**
   * `module[fn](...args)` in the worker; arguments and result are copied (structured clone).
   * Rejects with DeadlineError when it runs longer than `deadlineMs` (counted from the moment the
   * worker is ready, not from its start-up), with the signal's reason when it aborts, and with the
   * function's own error (message and name) when it throws.
   */
  call<K extends FunctionName<M>>(fn: K, args: Args<M[K]>, deadlineMs: number): Promise<Result<M[K]>> {
    const run = this.#queue.then(() => this.#run(fn, args, deadlineMs));
    this.#queue = run.catch(() => {});
    return run as Promise<Result<M[K]>>;
  }

  /**
   * Terminates the worker, if one runs, or leaves it to `keep` when it is ready and idle; later
   * calls reject.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    const worker = this.#worker;
    const idle = worker !== null && worker === this.#ready && this.#stopWaiting === null;
    this.#stopWaiting?.(new Error('the worker task was closed'));
    this.#forget(worker);
    if (!worker) return;
    worker.off('error', this.#onGone!);
    worker.off('exit', this.#onGone!);
    const keep = this.#options.keep;
    if (idle && keep && !this.#options.signal?.aborted) keep.workers.put(worker, keep.key);
    else await worker.terminate();
  }

  async #run(fn: string, args: unknown[], deadlineMs: number): Promise<unknown> {
    const signal = this.#options.signal;
    try {
      signal?.throwIfAborted();
      if (this.#closed) throw new Error('the worker task was closed');
      const worker = await this.#ensure();
      return await this.#send(worker, { fn, args }, deadlineMs, () => new DeadlineError(deadlineMs));
    } catch (err) {
      // Once the signal has aborted, that is the reason, whatever the worker's end looked like.
      throw signal?.aborted ? signal.reason : err;
    }
  }

  #ensure(): Promise<Worker> {
    if (this.#starting) return this.#starting;
    const keep = this.#options.keep;
    const kept = keep?.workers.take(keep.key);
    if (kept) {
      this.#adopt(kept);
      this.#ready = kept;
      this.#starting = Promise.resolve(kept);
      return this.#starting;
    }
    const worker = new Worker(ENTRY, { workerData: { module: this.#module.href }, execArgv: [], resourceLimits: this.#options.resourceLimits });
    // An idle worker does not keep the process alive; a call's timer does while it runs.
    worker.unref();
    this.#adopt(worker);
    this.#started++;
    const startMs = this.#options.startMs ?? START_MS;
    const starting = (async () => {
      const began = performance.now();
      const late = () => new Error(`the worker did not start within ${startMs} ms`);
      await this.#send(worker, null, startMs, late);
      const init = this.#options.init;
      if (init) await this.#send(worker, { fn: init.fn, args: init.args }, Math.max(1, startMs - (performance.now() - began)), late);
      if (this.#worker === worker) this.#ready = worker;
      return worker;
    })();
    this.#starting = starting;
    starting.catch(() => this.#kill(worker));
    return starting;
  }

  /** Posts a call (or, with null, waits for the worker's "ready") and waits for its reply, at most `ms`. */
  #send(worker: Worker, call: { fn: string; args: unknown[] } | null, ms: number, late: () => Error): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = call ? ++this.#ids : 0;
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        this.#stopWaiting = null;
      };
      const onMessage = (reply: Reply) => {
        if (call ? reply.id !== id : !reply.ready) return;
        done();
        if (!call || reply.ok) resolve(reply.value);
        else reject(revive(reply.error!));
      };
      const onError = (err: Error) => {
        done();
        this.#kill(worker);
        reject(err);
      };
      const onExit = (code: number) => {
        done();
        reject(new Error(`the worker stopped (exit code ${code})`));
      };
      const timer = setTimeout(() => {
        done();
        this.#kill(worker);
        reject(late());
      }, ms);
      this.#stopWaiting = (reason) => {
        done();
        reject(reason);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      if (!call) return;
      try {
        worker.postMessage({ id, ...call });
      } catch (err) {
        done();
        reject(err);
      }
    });
  }

  #onAbort = () => {
    this.#stopWaiting?.(this.#options.signal!.reason);
    this.#kill(this.#worker);
  };

  /** Makes `worker` this task's: always listened to, as an 'error' event nobody listens to would throw in this thread. */
  #adopt(worker: Worker): void {
    this.#onGone = () => this.#forget(worker);
    worker.on('error', this.#onGone);
    worker.on('exit', this.#onGone);
    this.#worker = worker;
  }

  #forget(worker: Worker | null): void {
    if (!worker || this.#worker !== worker) return;
    this.#worker = null;
    this.#ready = null;
    this.#starting = null;
  }

  #kill(worker: Worker | null): void {
    if (!worker) return;
    this.#forget(worker);
    worker.terminate().catch(() => {});
  }
}
