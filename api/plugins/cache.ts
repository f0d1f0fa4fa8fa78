/**
 * The API's in-process caches (`app.resultsCache`) and their invalidation feed.
 *
 * - `keys`: resolved api keys, by the SHA-256 of the presented key (never the key itself), tagged
 *   `key:<id>`. Only keys that resolve are kept: an unknown key is looked up every time, so random
 *   keys can neither be served from here nor push good entries out.
 * - `responses`: serialised answers of /stats/{siteId}, /stats_per_month/{siteId} (tag
 *   `site:<id>`) and /categories/ (tag `categories`) with their ETags. They hold data only:
 *   every request is still authorised against its (cached) key.
 * - `sites`: site records (its start page, title, quota...), tagged `site:<id>`, read by the
 *   order routes (a one-off test's addresses are checked against the start page before the order
 *   is placed; an audit crawls from it): one round trip less per order. The record is data, never
 *   a decision: the order itself locks and reads the site afresh, so a site without its record
 *   here, or a site gone, still answers SITE_NOT_FOUND. Only sites that exist are kept.
 * - `pages`: rendered public pages for people (the dashboard: api/web/page-cache.ts), per address
 *   and language, tagged `site:<id>` (a website's page) or `dashboard` (the start page, which
 *   lists every public-sector website). Any site event drops `dashboard` too.
 * - `refusals`: per site, the credits available when an order was last refused for want of
 *   credits (`placeOrder`). An order needing more is refused again from here, without a round
 *   trip: it could not fit, since credits never grow by themselves before the oldest booking in
 *   the window leaves it (the entry lives no longer: `frees_in_ms` of place_order) and every
 *   other way they grow sends an event that drops the entry: a site's record changed (its quota,
 *   its level), a level's quota changed (`levels`). An accepted order for the site, in any
 *   process (`credits`, sent by place_order), drops it too, so that the number a refusal quotes
 *   stays the database's. An order that may fit always goes to the database, which alone accepts.
 *
 * Invalidation: writers send `pg_notify('webperf_cache', …)` in their transaction
 * (core/store/notify.ts); a dedicated connection LISTENs and drops the entries named as each
 * notification arrives, and writes made through this process's own Db are applied at their
 * commit without waiting for the round trip. While that connection is down (and until it first
 * listens) both caches are empty and store nothing, so a missed notification is never served;
 * it reconnects with backoff. Entries also expire after a TTL, a safety net for writes that
 * bypass the store functions.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import fp from 'fastify-plugin';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import pg from 'pg';
import { LruCache } from '../../core/cache.js';
import type { Db } from '../../core/db/database.js';
import type { ResolvedKey } from '../../core/store/keys.js';
import { placeOrder, quotaExceeded, type NewOrder, type PlacedOrder, type QuotaRefusal } from '../../core/store/orders.js';
import { isWebperfError } from '../../core/errors.js';
import { getSite, type SiteRecord } from '../../core/store/sites.js';
import { CACHE_CHANNEL, onLocalCacheEvent, parseCacheEvent, type CacheEvent } from '../../core/store/notify.js';

/** A serialised answer, encoded once (UTF-8: a hit writes the bytes as they are), and its entity tag. */
export interface CachedResponse {
  body: Buffer;
  etag: string;
}

/** A rendered page: its HTML, language and entity tag, and its compressed forms once asked for. */
export interface CachedPage {
  html: string;
  lang: string;
  etag: string;
  encoded: Partial<Record<'br' | 'gzip', Buffer>>;
}

/** Tag of the dashboard's start page (every public-sector website's latest scores). */
export const DASHBOARD_TAG = 'dashboard';

/** Sizes and lifetimes of the caches. */
export interface CacheOptions {
  keyEntries?: number;
  siteEntries?: number;
  responseEntries?: number;
  /** Most bytes of cached bodies held in total. */
  responseBytes?: number;
  pageEntries?: number;
  /** Most bytes of rendered pages (HTML and compressed forms) held in total. */
  pageBytes?: number;
  ttlMs?: number;
  /** Checks the LISTEN connection this often; a dead one is replaced. */
  heartbeatMs?: number;
}

/** application_name of the LISTEN sessions, to find them in pg_stat_activity. */
export const CACHE_LISTENER_NAME = 'webperf-cache-listener';

const DEFAULTS: Required<CacheOptions> = {
  keyEntries: 10_000,
  siteEntries: 10_000,
  responseEntries: 20_000,
  responseBytes: 64 * 1024 * 1024,
  // The dashboard: 310 websites and a few dozen start-page queries, in two languages.
  pageEntries: 5_000,
  pageBytes: 64 * 1024 * 1024,
  ttlMs: 60_000,
  heartbeatMs: 10_000,
};

/** The API's caches; suspended (empty, storing nothing) while their invalidation feed is down. */
export class ResultsCache {
  readonly keys: LruCache<ResolvedKey>;
  readonly sites: LruCache<SiteRecord>;
  readonly responses: LruCache<CachedResponse>;
  readonly pages: LruCache<CachedPage>;
  /**
   * Credits available at a site's last refusal, by site id (see `placeOrder`). Filled with tag
   * tokens: accepted orders drop one site's entry or another several hundred times a second under
   * load, and the cache-wide token would then refuse nearly every fill.
   */
  readonly refusals: LruCache<number>;
  /** 'event' (CacheEvent, or null for "drop everything") once applied; 'live' (boolean). */
  readonly events = new EventEmitter();

  constructor(options: CacheOptions = {}) {
    const o = { ...DEFAULTS, ...options };
    this.keys = new LruCache({ name: 'keys', max: o.keyEntries, ttlMs: o.ttlMs });
    this.sites = new LruCache({ name: 'sites', max: o.siteEntries, ttlMs: o.ttlMs });
    this.responses = new LruCache({ name: 'responses', max: o.responseEntries, ttlMs: o.ttlMs, maxWeight: o.responseBytes, weigh: (r) => r.body.length });
    // Compressed forms are added to an entry after it is stored: its weight counts them up front
    // (HTML in UTF-8 plus about a third of it for the two compressed forms).
    this.pages = new LruCache({ name: 'pages', max: o.pageEntries, ttlMs: o.ttlMs, maxWeight: o.pageBytes, weigh: (p) => Math.ceil(Buffer.byteLength(p.html) * 1.34) });
    this.refusals = new LruCache({ name: 'refusals', max: o.siteEntries, ttlMs: o.ttlMs });
    this.setLive(false);
  }

  /** True while invalidations are being received, so that the caches are in use. */
  get live(): boolean {
    return this.keys.active;
  }

  setLive(live: boolean): void {
    for (const cache of [this.keys, this.sites, this.responses, this.pages, this.refusals]) {
      if (live) cache.resume();
      else cache.suspend();
    }
    this.events.emit('live', live);
  }

  /**
   * Places an order (core/store/orders.ts), or refuses it with QUOTA_EXCEEDED without asking the
   * database when the site's last refusal still stands and the order needs more than was then
   * available. A refusal from the database is kept for the site until credits could free up
   * (counted from before the order was sent, so never past that moment), within the cache's TTL.
   */
  async placeOrder(db: Db, order: NewOrder): Promise<PlacedOrder> {
    const key = String(order.siteId);
    const tag = `site:${order.siteId}`;
    const available = this.refusals.get(key);
    if (available !== undefined && order.credits > available) {
      throw quotaExceeded({ needed: order.credits, available, freesInMs: null });
    }
    const tagToken = this.refusals.tagToken(tag);
    const sent = performance.now();
    try {
      const placed = await placeOrder(db, order);
      // What this process knew of the site's credits is spent (other processes learn it from place_order's event).
      this.refusals.invalidateTag(tag);
      return placed;
    } catch (err) {
      if (isWebperfError(err) && err.code === 'QUOTA_EXCEEDED') {
        const refusal = err.details as unknown as QuotaRefusal;
        const ttlMs = refusal.freesInMs === null ? undefined : sent + refusal.freesInMs - performance.now();
        this.refusals.set(key, refusal.available, { tags: [tag], tagToken, ...(ttlMs === undefined ? {} : { ttlMs }) });
      }
      throw err;
    }
  }

  /** A site's record from the cache, else from the database (and then kept, if the site exists). */
  async site(db: Db, id: number): Promise<SiteRecord | undefined> {
    const key = String(id);
    const hit = this.sites.get(key);
    if (hit !== undefined) return hit;
    // A tag token: every saved result drops its own site's tag, which must not refuse this fill.
    const tagToken = this.sites.tagToken(`site:${id}`);
    const site = await getSite(db, id);
    // Frozen: one object serves many requests.
    if (site !== undefined) this.sites.set(key, Object.freeze(site), { tags: [`site:${id}`], tagToken });
    return site;
  }

  /** Drops what an event names; null (a message not understood) drops everything. */
  apply(event: CacheEvent | null): void {
    if (event === null) {
      this.keys.clear();
      this.sites.clear();
      this.responses.clear();
      this.pages.clear();
      this.refusals.clear();
    } else {
      if (event.key !== undefined) this.keys.invalidateTag(`key:${event.key}`);
      if (event.site !== undefined) {
        this.sites.invalidateTag(`site:${event.site}`);
        this.responses.invalidateTag(`site:${event.site}`);
        this.pages.invalidateTag(`site:${event.site}`);
        this.pages.invalidateTag(DASHBOARD_TAG);
        this.refusals.invalidateTag(`site:${event.site}`);
      }
      if (event.credits !== undefined) this.refusals.invalidateTag(`site:${event.credits}`);
      if (event.levels) this.refusals.clear();
      if (event.sites) this.pages.invalidateTag(DASHBOARD_TAG);
      if (event.categories) this.responses.invalidateTag('categories');
    }
    this.events.emit('event', event);
  }
}

/** The dedicated LISTEN connection: reconnects with backoff and keeps `cache.live` true only while it listens. */
class CacheListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private failures = 0;
  private retry: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly cache: ResultsCache,
    private readonly log: FastifyBaseLogger,
    private readonly heartbeatMs: number,
  ) {}

  /** Connects and listens; on failure the caches stay off and it keeps trying in the background. */
  async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: CACHE_LISTENER_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      query_timeout: 5_000,
    });
    this.client = client;
    let dropped = false;
    const drop = (err?: unknown) => {
      if (dropped) return;
      dropped = true;
      this.cache.setLive(false);
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = null;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      if (this.stopped) return;
      this.log.warn({ err }, 'cache invalidation feed lost: caches off until it is back');
      this.scheduleRetry();
    };
    // Kept after a drop too: a late error on a dead client must not crash the process.
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (msg) => {
      if (msg.channel === CACHE_CHANNEL) this.cache.apply(parseCacheEvent(msg.payload));
    });
    try {
      await client.connect();
      await client.query(`listen ${CACHE_CHANNEL}`);
    } catch (err) {
      drop(err);
      return;
    }
    if (dropped) return;
    if (this.stopped) {
      drop();
      return;
    }
    if (this.failures > 0) this.log.info('cache invalidation feed back: caches on');
    this.failures = 0;
    this.cache.setLive(true);
    this.heartbeat = setInterval(() => {
      client.query('select 1').catch(drop);
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private scheduleRetry(): void {
    const delay = Math.min(30_000, 200 * 2 ** Math.min(this.failures++, 10)) * (0.5 + Math.random() / 2);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, delay);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.cache.setLive(false);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

/** What a cached route builds on a miss: its payload, and whether that may be kept. */
export interface CacheFill {
  payload: unknown;
  /** False when the payload holds the time of the request (it is answered, not kept). */
  cacheable: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The API's caches of resolved keys and result answers (api/plugins/cache.ts). */
    resultsCache: ResultsCache;
  }
  interface FastifyReply {
    /**
     * Answers with the serialised payload of `cacheKey` from the response cache, built by `build`
     * and serialised by the route's response schema on a miss; with a strong ETag, and 304
     * without a body when If-None-Match names it. The cache holds data, never decisions: the
     * caller checks the key's access first. Errors thrown by `build` are not kept.
     */
    sendCached(cacheKey: string, tags: string[], build: () => Promise<CacheFill>): Promise<FastifyReply>;
  }
}

/** A strong ETag of a serialised body: computed once per cached entry. */
function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** If-None-Match (a list, weak or strong, or *) names the entity tag. */
export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string' || header === '') return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export default fp<CacheOptions>(
  async (app, opts) => {
    const o = { ...DEFAULTS, ...opts };
    const cache = new ResultsCache(o);
    app.decorate('resultsCache', cache);
    app.decorateReply('sendCached', async function (this: FastifyReply, cacheKey: string, tags: string[], build: () => Promise<CacheFill>) {
      let entry: CachedResponse | undefined = cache.responses.get(cacheKey);
      if (entry === undefined) {
        const token = cache.responses.token();
        const { payload, cacheable } = await build();
        // The route's response schema serialises it (the allow-list), once per cached entry.
        const body = Buffer.from(String(this.serialize(payload)));
        entry = { body, etag: etagOf(body) };
        if (cacheable) cache.responses.set(cacheKey, entry, { tags, token });
      }
      this.header('etag', entry.etag).header('cache-control', 'private, no-cache');
      if (matchesEtag(this.request.headers['if-none-match'], entry.etag)) return this.code(304).send();
      return this.type('application/json; charset=utf-8').send(entry.body);
    });
    const offLocal = onLocalCacheEvent(app.deps.db, (event) => cache.apply(event));
    const url = app.deps.databaseUrl ?? app.deps.config.databaseUrl;
    let listener: CacheListener | null = null;
    if (url) {
      listener = new CacheListener(url, cache, app.log, o.heartbeatMs);
      await listener.connect();
    } else {
      app.log.warn('no database URL for the cache invalidation feed: caches off');
    }
    app.addHook('onClose', async () => {
      offLocal();
      await listener?.stop();
    });
  },
  { name: 'webperf-cache' },
);
