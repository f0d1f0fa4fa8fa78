/**
 * A small in-process cache: least-recently-used eviction beyond `max` entries (or `maxWeight`,
 * e.g. bytes), a time to live per entry, and tags for invalidation (every entry of a tag goes at
 * once). The invalidation feed is the caller's business (api/plugins/cache.ts listens to
 * PostgreSQL); this file knows nothing of it, of Fastify or of the database.
 *
 * Fills race with invalidations: a value read from the database before an invalidation must not
 * be stored after it. A fill therefore takes a token (`token()`) before it reads, and `set` with
 * that token refuses the value when anything was invalidated in between.
 *
 * While `suspend`ed (its invalidation feed is down) the cache holds nothing and stores nothing, so
 * that a missed invalidation can never be served.
 */

/** Options of an LruCache. */
export interface LruOptions<V> {
  /** Most entries held; the least recently used goes first. */
  max: number;
  /** Lifetime of an entry in milliseconds, from when it was stored. */
  ttlMs: number;
  /** Most total weight held (e.g. bytes), with `weigh`; the least recently used go first. */
  maxWeight?: number;
  /** The weight of a value; 0 without it. A value heavier than maxWeight is not stored. */
  weigh?: (value: V) => number;
  /** The clock (tests). */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
  weight: number;
  tags: readonly string[];
}

/** What `set` takes besides the value. */
export interface SetOptions {
  /** Invalidation tags of the entry (e.g. `site:12`). */
  tags?: readonly string[];
  /** The token taken before the value was read: refused if anything was invalidated since. */
  token?: number;
}

/** An LRU cache with a TTL and tag invalidation. */
export class LruCache<V> {
  readonly max: number;
  readonly ttlMs: number;
  readonly maxWeight: number;
  private readonly weigh: ((value: V) => number) | null;
  private readonly now: () => number;
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byTag = new Map<string, Set<string>>();
  private totalWeight = 0;
  /** Bumped by every invalidation, clear, suspend and resume. */
  private epoch = 0;
  private suspended = false;

  constructor(options: LruOptions<V>) {
    if (!(options.max >= 1) || !(options.ttlMs > 0)) throw new RangeError('LruCache: max must be ≥ 1 and ttlMs > 0');
    this.max = Math.floor(options.max);
    this.ttlMs = options.ttlMs;
    this.maxWeight = options.maxWeight ?? Infinity;
    this.weigh = options.weigh ?? null;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The total weight held. */
  get weight(): number {
    return this.totalWeight;
  }

  /** False while suspended. */
  get active(): boolean {
    return !this.suspended;
  }

  /** Taken before reading the value to store, passed to `set`. */
  token(): number {
    return this.epoch;
  }

  /** The live value of a key (and it becomes the most recently used), else undefined. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(key, entry);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Stores a value; false (nothing stored) when suspended or when the token is older than the
   * latest invalidation.
   */
  set(key: string, value: V, options: SetOptions = {}): boolean {
    if (this.suspended) return false;
    if (options.token !== undefined && options.token !== this.epoch) return false;
    const weight = this.weigh === null ? 0 : this.weigh(value);
    if (weight > this.maxWeight) return false;
    const old = this.entries.get(key);
    if (old !== undefined) this.remove(key, old);
    const tags = options.tags ?? [];
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs, weight, tags });
    this.totalWeight += weight;
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (keys === undefined) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    while (this.entries.size > this.max || this.totalWeight > this.maxWeight) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Entry<V>];
      this.remove(oldestKey, oldest);
    }
    return true;
  }

  /** Drops one key. */
  invalidate(key: string): void {
    this.epoch++;
    const entry = this.entries.get(key);
    if (entry !== undefined) this.remove(key, entry);
  }

  /** Drops every entry of a tag; returns how many. */
  invalidateTag(tag: string): number {
    this.epoch++;
    const keys = this.byTag.get(tag);
    if (keys === undefined) return 0;
    let n = 0;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry !== undefined) {
        this.remove(key, entry);
        n++;
      }
    }
    this.byTag.delete(tag);
    return n;
  }

  /** Drops everything. */
  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.byTag.clear();
    this.totalWeight = 0;
  }

  /** Drops everything and stores nothing until `resume`. */
  suspend(): void {
    this.clear();
    this.suspended = true;
  }

  /** Starts storing again, from empty. */
  resume(): void {
    this.clear();
    this.suspended = false;
  }

  private remove(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      if (keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(tag);
    }
  }
}
