/**
 * Fixed-window request counters for the rate limit (api/plugins/rate-limit.ts adapts them to
 * @fastify/rate-limit's store): in one process's memory, or in the database every API process
 * shares, with this process's memory as the fallback while the database does not answer.
 *
 * Both answer `incr(name, callback, windowMs)` with the name's count in its current window (this
 * request included) and the milliseconds until the window ends, through a callback, as
 * @fastify/rate-limit calls its stores.
 */
import type { Db } from './db/database.js';
import { counterDigest, incrementCounters, sweepCounters } from './store/rate-limits.js';

/** A counter's state after an increment. */
export interface WindowCount {
  /** Requests in the window, this one included. */
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

export type CountCallback = (err: Error | null, res?: WindowCount) => void;

/** A fixed-window counter of requests per name. */
export interface WindowCounter {
  incr(name: string, cb: CountCallback, windowMs: number): void;
}

/** Sweep expired counters once the map holds this many. */
const SWEEP_AT = 10_000;

/** Counts in this process's memory: exact for one process, per process with several. */
export class MemoryWindowCounter implements WindowCounter {
  readonly #counters = new Map<string, { current: number; startMs: number }>();

  incr(name: string, cb: CountCallback, windowMs: number): void {
    const now = Date.now();
    if (this.#counters.size >= SWEEP_AT) {
      for (const [k, c] of this.#counters) if (c.startMs + windowMs <= now) this.#counters.delete(k);
    }
    let c = this.#counters.get(name);
    if (!c || c.startMs + windowMs <= now) {
      c = { current: 0, startMs: now };
      this.#counters.set(name, c);
    }
    c.current++;
    cb(null, { current: c.current, ttl: c.startMs + windowMs - now });
  }

  read(name: string, cb: CountCallback, windowMs: number): void {
    const now = Date.now();
    const c = this.#counters.get(name);
    if (!c || c.startMs + windowMs <= now) return cb(null, { current: 0, ttl: 0 });
    cb(null, { current: c.current, ttl: c.startMs + windowMs - now });
  }
}

/** Where a shared counter counts now. */
export type CountingIn = 'database' | 'memory';

export interface SharedWindowCounterOptions {
  /** The window every name is counted in (ms). */
  windowMs: number;
  /**
   * Longest wait for the database's answer to a batch; past it (or on an error) the batch, and
   * every request until `retryAfterMs` has passed, is counted in memory. Default 1 s.
   */
  timeoutMs?: number;
  /** How long to count in memory after the database failed, before it is asked again. Default 5 s. */
  retryAfterMs?: number;
  /** Told when counting moves to memory (with the reason) and back to the database. */
  onSwitch?: (to: CountingIn, reason: string | null) => void;
  /** Told of a failed sweep of expired counters (nothing else depends on it). */
  onSweepError?: (err: unknown) => void;
}

interface Waiting {
  name: string;
  callbacks: CountCallback[];
}

/**
 * Counts in the database (core/store/rate-limits.ts), exactly, across every process that uses it.
 *
 * Cost: one statement at a time per process. Requests that arrive while it runs wait for it and
 * then go together in the next one: the names are distinct in a statement, each with how many of
 * its requests it adds, and the requests of one name get the consecutive counts it returns, in the
 * order they came. No request is counted twice, none is missed, and the database's count stays the
 * exact sum over the processes, so what passes in a window is the limit, whichever process answers.
 * Under load a statement carries many requests (one round trip, not one per request); at rest a
 * request waits for one round trip.
 *
 * The database unreachable or slow: a batch without an answer in `timeoutMs` (or with an error)
 * is counted in this process's memory instead, and so is every request for `retryAfterMs`; then
 * the database is asked again. A request therefore never waits longer than about two timeouts,
 * and the limit holds per process meanwhile (a key may get the limit once per process). Counts
 * made in memory are not carried over to the database.
 *
 * Expired counters are deleted once per window by whichever request's statement comes first after
 * it, without waiting for it, so the table holds about the counters of the last window.
 */
export class SharedWindowCounter implements WindowCounter {
  readonly #db: Db;
  readonly #windowMs: number;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #onSwitch: (to: CountingIn, reason: string | null) => void;
  readonly #onSweepError: (err: unknown) => void;
  /** Where counts go while the database does not answer. */
  readonly #memory = new MemoryWindowCounter();
  #pending = new Map<string, Waiting>();
  /** A statement is being sent or runs; requests meanwhile wait in #pending. */
  #busy = false;
  /** The statement that runs has outlived its timeout: its answer, if any, is no longer awaited. */
  #abandoned = false;
  /** Count in memory until then (Date.now() ms). */
  #memoryUntil = 0;
  #countingIn: CountingIn = 'database';
  #lastSweep = 0;
  #statements = 0;
  #counted = 0;

  constructor(db: Db, options: SharedWindowCounterOptions) {
    this.#db = db;
    this.#windowMs = options.windowMs;
    this.#timeoutMs = options.timeoutMs ?? 1_000;
    this.#retryAfterMs = options.retryAfterMs ?? 5_000;
    this.#onSwitch = options.onSwitch ?? (() => {});
    this.#onSweepError = options.onSweepError ?? (() => {});
  }

  /** Statements sent, and the requests they counted (their ratio: requests per round trip). */
  get sent(): { statements: number; requests: number } {
    return { statements: this.#statements, requests: this.#counted };
  }

  /** Where requests are counted now. */
  get countingIn(): CountingIn {
    return this.#countingIn;
  }

  /** `windowMs` is the counter's own (options.windowMs); the argument is @fastify/rate-limit's, the same. */
  incr(name: string, cb: CountCallback, _windowMs?: number): void {
    if (this.#abandoned || Date.now() < this.#memoryUntil) {
      this.#memory.incr(name, cb, this.#windowMs);
      return;
    }
    let waiting = this.#pending.get(name);
    if (!waiting) {
      waiting = { name, callbacks: [] };
      this.#pending.set(name, waiting);
    }
    waiting.callbacks.push(cb);
    if (!this.#busy) {
      this.#busy = true;
      // After this turn of the event loop: requests arriving in the same turn join the statement.
      process.nextTick(() => this.#send());
    }
  }

  #send(): void {
    const batch = this.#pending;
    this.#pending = new Map();
    if (batch.size === 0) {
      this.#busy = false;
      return;
    }
    const byKey = new Map<string, { waiting: Waiting; key: Buffer }>();
    for (const waiting of batch.values()) {
      const key = counterDigest(waiting.name);
      byKey.set(key.toString('hex'), { waiting, key });
    }
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      this.#abandoned = true;
      this.#fail(batch, `no answer from the database within ${this.#timeoutMs} ms`);
    }, this.#timeoutMs);
    const increments = [...byKey.values()].map(({ waiting, key }) => ({ key, by: waiting.callbacks.length }));
    this.#statements++;
    for (const i of increments) this.#counted += i.by;
    incrementCounters(this.#db, increments, this.#windowMs).then(
      (rows) => {
        clearTimeout(timer);
        // Too late: those requests were counted in memory; the database counted them too.
        if (settled) return;
        settled = true;
        if (this.#countingIn === 'memory') this.#switch('database', null);
        for (const row of rows) {
          const entry = byKey.get(row.key.toString('hex'));
          if (!entry) continue;
          const { callbacks } = entry.waiting;
          const ttl = Math.max(0, this.#windowMs - row.ageMs);
          const first = row.count - callbacks.length + 1;
          byKey.delete(row.key.toString('hex'));
          callbacks.forEach((cb, i) => cb(null, { current: first + i, ttl }));
        }
        // Never expected: a counter the statement did not return is counted in memory, not left waiting.
        for (const { waiting } of byKey.values()) for (const cb of waiting.callbacks) this.#memory.incr(waiting.name, cb, this.#windowMs);
        this.#sweepNow();
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        this.#fail(batch, err instanceof Error ? err.message : String(err));
      },
    ).finally(() => {
      this.#abandoned = false;
      this.#busy = false;
      if (this.#pending.size > 0) {
        this.#busy = true;
        this.#send();
      }
    });
  }

  /** The batch, and every request waiting behind it, counted in memory; memory until #memoryUntil. */
  #fail(batch: Map<string, Waiting>, reason: string): void {
    this.#memoryUntil = Date.now() + this.#retryAfterMs;
    if (this.#countingIn === 'database') this.#switch('memory', reason);
    const waiting = [...batch.values(), ...this.#pending.values()];
    this.#pending = new Map();
    for (const w of waiting) for (const cb of w.callbacks) this.#memory.incr(w.name, cb, this.#windowMs);
  }

  #switch(to: CountingIn, reason: string | null): void {
    this.#countingIn = to;
    this.#onSwitch(to, reason);
  }

  #sweepNow(): void {
    const now = Date.now();
    if (now - this.#lastSweep < this.#windowMs) return;
    this.#lastSweep = now;
    sweepCounters(this.#db, this.#windowMs).catch((err: unknown) => this.#onSweepError(err));
  }
}
