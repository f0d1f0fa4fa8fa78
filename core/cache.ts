/**
 * A small in-process cache: `lru-cache` (least-recently-used eviction beyond `max` entries or
 * `maxWeight`, a time to live per entry) with tags for invalidation on top (every entry of a tag
 * goes at once). The invalidation feed is the caller's business (api/plugins/cache.ts listens to
 * PostgreSQL); this file knows nothing of it, of Fastify or of the database.
 *
 * Fills race with invalidations: a value read from the database before an invalidation must not
 * be stored after it. A fill therefore takes a token (`token()`) before it reads, and `set` with
 * that token refuses the value when anything was invalidated in between.
 *
 * While `suspend`ed (its invalidation feed is down) the cache holds nothing and stores nothing, so
 * that a missed invalidation can never be served.
 */
import { LRUCache } from 'lru-cache';
import { cacheLookupCounter } from './metrics.js';

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
  /** The cache's name in the metrics (webperf_cache_lookups_total{cache}); unnamed caches are not counted. */
  name?: string;
}

interface Entry<V> {
  value: V;
  weight: number;
  tags: readonly string[];
}

/** What `set` takes besides the value. */
export interface SetOptions {
  /** Invalidation tags of the entry (e.g. `site:12`). */
  tags?: readonly string[];
  /** The token taken before the value was read: refused if anything was invalidated since. */
  token?: number;
  /** A token of one tag (`tagToken`): refused only if that tag, a key or everything was invalidated since. */
  tagToken?: TagToken;
  /** A shorter life than the cache's TTL for this entry (ms); not stored when ≤ 0. */
  ttlMs?: number;
}

/** Taken before a fill whose value only invalidations of `tag` (or a clear) can make stale. */
export interface TagToken {
  readonly tag: string;
  readonly at: number;
}

/** An LRU cache with a TTL and tag invalidation. */
export class LruCache<V> {
  readonly max: number;
  readonly ttlMs: number;
  readonly maxWeight: number;
  private readonly weigh: ((value: V) => number) | null;
  private readonly lru: LRUCache<string, Entry<V>>;
  private readonly byTag = new Map<string, Set<string>>();
  private totalWeight = 0;
  /** Bumped by every invalidation, clear, suspend and resume. */
  private epoch = 0;
  /**
   * For tag tokens: the epoch of each tag's last invalidation, and of the last drop that was not
   * one tag's (a key, a clear). The map is bounded: past `max` tags it is emptied and counted as
   * such a drop, which refuses fills then under way (the safe side).
   */
  private readonly tagDropped = new Map<string, number>();
  private allDropped = 0;
  private suspended = false;
  private readonly lookup: ((hit: boolean) => void) | null;

  constructor(options: LruOptions<V>) {
    if (!(options.max >= 1) || !(options.ttlMs > 0)) throw new RangeError('LruCache: max must be ≥ 1 and ttlMs > 0');
    this.max = Math.floor(options.max);
    this.ttlMs = options.ttlMs;
    this.maxWeight = options.maxWeight ?? Infinity;
    this.weigh = options.weigh ?? null;
    this.lookup = options.name === undefined ? null : cacheLookupCounter(options.name);
    const now = options.now;
    this.lru = new LRUCache<string, Entry<V>>({
      max: this.max,
      ttl: this.ttlMs,
      // Exact expiry (no cached clock), so that an entry is gone at its TTL, not up to 1 ms later.
      ttlResolution: 0,
      ...(now ? { perf: { now } } : {}),
      // lru-cache wants a positive size: the exact weight is kept in the entry for `weight`.
      ...(Number.isFinite(this.maxWeight) ? { maxSize: this.maxWeight, sizeCalculation: (e: Entry<V>) => Math.max(1, e.weight) } : {}),
      // Every way an entry leaves (evicted, expired, replaced, deleted) keeps the tag index exact.
      dispose: (entry, key) => this.forget(key, entry),
    });
  }

  get size(): number {
    return this.lru.size;
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

  /**
   * Like `token`, for a value that only invalidations of `tag` can make stale: other tags'
   * invalidations do not refuse its fill. For entries dropped far more often than they are
   * filled (a fill of one site's entry under a stream of other sites' invalidations).
   */
  tagToken(tag: string): TagToken {
    return { tag, at: this.epoch };
  }

  /** The live value of a key (and it becomes the most recently used), else undefined. */
  get(key: string): V | undefined {
    const value = this.lru.get(key)?.value;
    this.lookup?.(value !== undefined);
    return value;
  }

  /**
   * Stores a value; false (nothing stored) when suspended, when the token is older than the
   * latest invalidation, or when the value is heavier than maxWeight.
   */
  set(key: string, value: V, options: SetOptions = {}): boolean {
    if (this.suspended) return false;
    if (options.token !== undefined && options.token !== this.epoch) return false;
    const scoped = options.tagToken;
    if (scoped !== undefined && (this.allDropped > scoped.at || (this.tagDropped.get(scoped.tag) ?? 0) > scoped.at)) return false;
    const weight = this.weigh === null ? 0 : this.weigh(value);
    if (weight > this.maxWeight) return false;
    if (options.ttlMs !== undefined && !(options.ttlMs > 0)) return false;
    const tags = options.tags ?? [];
    this.lru.set(key, { value, weight, tags }, options.ttlMs !== undefined && options.ttlMs < this.ttlMs ? { ttl: options.ttlMs } : undefined);
    this.totalWeight += weight;
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (keys === undefined) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    return true;
  }

  /** Drops one key. */
  invalidate(key: string): void {
    this.allDropped = ++this.epoch;
    this.lru.delete(key);
  }

  /** Drops every entry of a tag; returns how many. */
  invalidateTag(tag: string): number {
    this.epoch++;
    if (this.tagDropped.size >= this.max) {
      this.tagDropped.clear();
      this.allDropped = this.epoch;
    }
    this.tagDropped.set(tag, this.epoch);
    const keys = this.byTag.get(tag);
    if (keys === undefined) return 0;
    let n = 0;
    for (const key of [...keys]) if (this.lru.delete(key)) n++;
    this.byTag.delete(tag);
    return n;
  }

  /** Drops everything. */
  clear(): void {
    this.allDropped = ++this.epoch;
    this.tagDropped.clear();
    this.lru.clear();
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

  private forget(key: string, entry: Entry<V>): void {
    this.totalWeight -= entry.weight;
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      if (keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(tag);
    }
  }
}
