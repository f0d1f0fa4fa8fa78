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
  /** `max`: the limit the count is judged against, when the counter may use it (SharedWindowCounter's leases). */
  incr(name: string, cb: CountCallback, windowMs: number, max?: number): void;
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
  max: number | undefined;
}

/** What this process knows of a name's counter in the database, from its last statement. */
interface Known {
  /** Counts claimed for this process and not yet given to a request: next..last (none when next > last); `last` is the count the database answered. */
  next: number;
  last: number;
  /** When the counter's window ends, from the database's answer (performance.now() ms). */
  endsAt: number;
  /** When it answered (performance.now() ms), and the requests for the name since. */
  since: number;
  demand: number;
}

/** A lease covers what the name asked of this process in about this long (ms). */
const LEASE_MS = 50;
/** A lease takes at most this share of what is left of the limit (1/16), */
const LEASE_SHARE = 16;
/** and at most this many counts. */
const MAX_LEASE = 1_000;
/** Forget names whose window is over once this many are known. */
const FORGET_AT = 10_000;

/**
 * Counts in the database (core/store/rate-limits.ts), across every process that uses it, never
 * letting more than the limit through in a window, whichever process answers.
 *
 * Cost: one statement at a time per process. Requests that arrive while it runs wait for it and
 * then go together in the next one: the names are distinct in a statement, each with how many of
 * its requests it adds, and the requests of one name get the consecutive counts it returns, in the
 * order they came. No request is counted twice, none is missed. At rest a request waits for one
 * round trip.
 *
 * Leases, for a name that asks much of this process: its statement adds, beside its waiting
 * requests, as many counts as the name asked of this process in the last LEASE_MS (its rate since
 * its previous statement), but at most a sixteenth of what was left of the limit and at most
 * MAX_LEASE; the process then gives those counts to the name's next requests without a round trip,
 * until they run out or the window ends. Every count a request gets is its own in the database,
 * so no more than the limit passes in a window, over all processes. The price: counts leased and
 * not used (the name stopped asking, or the window ended) are counted all the same, so a name
 * asking hard of several processes may be refused a little before the limit (at most a sixteenth
 * of what was left, per process and statement). A name asking less than once per LEASE_MS (a
 * client keeping to 120 a minute asks once per 500 ms) gets no lease: one count per request, the
 * exact count; a burst of a key far from its limit may get small ones. Near the limit (less than
 * 16 left) there are no leases either; past it there are again (a count leased then can only be
 * refused), so a key hammering on after its 429 costs few round trips.
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
  readonly #known = new Map<string, Known>();
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
  #waited = 0;
  #leased = 0;
  #inMemory = 0;

  constructor(db: Db, options: SharedWindowCounterOptions) {
    this.#db = db;
    this.#windowMs = options.windowMs;
    this.#timeoutMs = options.timeoutMs ?? 1_000;
    this.#retryAfterMs = options.retryAfterMs ?? 5_000;
    this.#onSwitch = options.onSwitch ?? (() => {});
    this.#onSweepError = options.onSweepError ?? (() => {});
  }

  /**
   * Statements sent; requests counted by them (each waited for its statement), from leases (none
   * waited) and in memory (the database failed). (waited + leased) / statements: requests per
   * round trip.
   */
  get sent(): { statements: number; waited: number; leased: number; inMemory: number } {
    return { statements: this.#statements, waited: this.#waited, leased: this.#leased, inMemory: this.#inMemory };
  }

  /** Where requests are counted now. */
  get countingIn(): CountingIn {
    return this.#countingIn;
  }

  /** `windowMs` is the counter's own (options.windowMs); the argument is @fastify/rate-limit's, the same. */
  incr(name: string, cb: CountCallback, _windowMs?: number, max?: number): void {
    if (this.#abandoned || Date.now() < this.#memoryUntil) {
      this.#inMemory++;
      this.#memory.incr(name, cb, this.#windowMs);
      return;
    }
    const known = this.#known.get(name);
    if (known) {
      known.demand++;
      const now = performance.now();
      if (known.next <= known.last && now < known.endsAt) {
        this.#leased++;
        cb(null, { current: known.next++, ttl: known.endsAt - now });
        return;
      }
    }
    let waiting = this.#pending.get(name);
    if (!waiting) {
      waiting = { name, callbacks: [], max };
      this.#pending.set(name, waiting);
    }
    waiting.callbacks.push(cb);
    if (!this.#busy) {
      this.#busy = true;
      // After this turn of the event loop: requests arriving in the same turn join the statement.
      process.nextTick(() => this.#send());
    }
  }

  /** The counts to lease to a name beside its waiting requests (see the class). */
  #leaseSize(waiting: Waiting, now: number): number {
    const known = this.#known.get(waiting.name);
    if (waiting.max === undefined || !known) return 0;
    const wanted = Math.floor((known.demand * LEASE_MS) / Math.max(1, now - known.since));
    const used = now < known.endsAt ? known.last : 0;
    // Past the limit every count leased is refused anyway: none can be wasted.
    const room = used >= waiting.max ? MAX_LEASE : Math.floor((waiting.max - used) / LEASE_SHARE);
    return Math.max(0, Math.min(wanted, room, MAX_LEASE));
  }

  #send(): void {
    const batch = this.#pending;
    this.#pending = new Map();
    const now = performance.now();
    // Requests that waited for the statement before: the counts it leased go to them first.
    for (const waiting of batch.values()) {
      const known = this.#known.get(waiting.name);
      if (!known || now >= known.endsAt) continue;
      let served = 0;
      while (served < waiting.callbacks.length && known.next <= known.last) waiting.callbacks[served++](null, { current: known.next++, ttl: known.endsAt - now });
      if (served === 0) continue;
      this.#leased += served;
      waiting.callbacks.splice(0, served);
      if (waiting.callbacks.length === 0) batch.delete(waiting.name);
    }
    if (batch.size === 0) {
      this.#busy = false;
      return;
    }
    const byKey = new Map<string, { waiting: Waiting; key: Buffer; by: number }>();
    for (const waiting of batch.values()) {
      const key = counterDigest(waiting.name);
      byKey.set(key.toString('hex'), { waiting, key, by: waiting.callbacks.length + this.#leaseSize(waiting, now) });
    }
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      this.#abandoned = true;
      this.#fail(batch, `no answer from the database within ${this.#timeoutMs} ms`);
    }, this.#timeoutMs);
    const increments = [...byKey.values()].map(({ key, by }) => ({ key, by }));
    this.#statements++;
    incrementCounters(this.#db, increments, this.#windowMs).then(
      (rows) => {
        clearTimeout(timer);
        // Too late: those requests were counted in memory; the database counted them too.
        if (settled) return;
        settled = true;
        if (this.#countingIn === 'memory') this.#switch('database', null);
        const answered = performance.now();
        if (this.#known.size >= FORGET_AT) for (const [name, k] of this.#known) if (k.endsAt <= answered) this.#known.delete(name);
        for (const row of rows) {
          const hex = row.key.toString('hex');
          const entry = byKey.get(hex);
          if (!entry) continue;
          byKey.delete(hex);
          const { callbacks, name } = entry.waiting;
          const ttl = Math.max(0, this.#windowMs - row.ageMs);
          const first = row.count - entry.by + 1;
          this.#known.set(name, { next: first + callbacks.length, last: row.count, endsAt: answered + ttl, since: answered, demand: 0 });
          this.#waited += callbacks.length;
          callbacks.forEach((cb, i) => cb(null, { current: first + i, ttl }));
        }
        // Never expected: a counter the statement did not return is counted in memory, not left waiting.
        for (const { waiting } of byKey.values()) {
          this.#inMemory += waiting.callbacks.length;
          for (const cb of waiting.callbacks) this.#memory.incr(waiting.name, cb, this.#windowMs);
        }
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
    for (const w of waiting) {
      this.#inMemory += w.callbacks.length;
      for (const cb of w.callbacks) this.#memory.incr(w.name, cb, this.#windowMs);
    }
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
