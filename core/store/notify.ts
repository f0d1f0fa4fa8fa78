/**
 * The sending side of cache invalidation. A write that changes what the API caches (a key's
 * validity or sites, a site's results, the category averages) queues a cache event with
 * `notifyCache` inside its own transaction: PostgreSQL delivers it to every listening API process
 * when, and only when, the transaction commits (api/plugins/cache.ts listens).
 *
 * A listener learns of a commit a moment after it happens. So that the process that wrote does
 * not serve what it has just changed even for that moment, `withCacheEvents` also hands the
 * transaction's events, once committed, straight to the listeners registered on the same Db
 * (`onLocalCacheEvent`): the API and the runner of one process share one Db.
 */
import { sql, type Transaction } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';

/** The PostgreSQL channel of cache events. */
export const CACHE_CHANNEL = 'webperf_cache';

/**
 * What changed. `key`: an api key's validity or sites; `site`: a site's public results and
 * monthly scores, or its record; `sites`: the list of sites (sites added); `categories`: the
 * category list or averages; `credits`: a site's credits (an order was accepted: sent by the SQL
 * function place_order); `levels`: the premium levels' quotas. Several may be set at once.
 */
export interface CacheEvent {
  key?: number;
  site?: number;
  sites?: boolean;
  categories?: boolean;
  credits?: number;
  levels?: boolean;
}

type Trx = Transaction<DB>;

/** Events queued per transaction, echoed locally after its commit. */
const pending = new WeakMap<Trx, CacheEvent[]>();
const localListeners = new WeakMap<Db, Set<(event: CacheEvent) => void>>();

/** Queues an event in the transaction: delivered to every listener on commit, never on rollback. */
export async function notifyCache(trx: Trx, event: CacheEvent): Promise<void> {
  await sql`select pg_notify(${CACHE_CHANNEL}, ${JSON.stringify(event)})`.execute(trx);
  pending.get(trx)?.push(event);
}

/** Several events queued in one statement (a bulk change of many sites): as notifyCache for each. */
export async function notifyCacheEach(trx: Trx, events: CacheEvent[]): Promise<void> {
  if (events.length === 0) return;
  await sql`select pg_notify(${CACHE_CHANNEL}, e) from unnest(${events.map((e) => JSON.stringify(e))}::text[]) e`.execute(trx);
  pending.get(trx)?.push(...events);
}

/**
 * `db.transaction().execute(fn)`; once it has committed, the events fn queued with notifyCache
 * reach this process's listeners on `db` at once, without waiting for PostgreSQL's delivery.
 */
export async function withCacheEvents<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const events: CacheEvent[] = [];
  const result = await db.transaction().execute((trx) => {
    pending.set(trx, events);
    return fn(trx);
  });
  for (const event of events) echo(db, event);
  return result;
}

/** An event about data already committed (its own statement, after the change), sent and echoed. */
export async function publishCacheEvent(db: Db, event: CacheEvent): Promise<void> {
  await sql`select pg_notify(${CACHE_CHANNEL}, ${JSON.stringify(event)})`.execute(db);
  echo(db, event);
}

/** Registers a listener for the committed events of writes made through `db`; returns its removal. */
export function onLocalCacheEvent(db: Db, listener: (event: CacheEvent) => void): () => void {
  let set = localListeners.get(db);
  if (set === undefined) localListeners.set(db, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}

/**
 * Reads a notification payload. Anything that is not a well-formed event is null: the listener
 * then drops everything, the safe reading of a message it does not understand.
 */
export function parseCacheEvent(payload: string | undefined): CacheEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(payload ?? '');
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const id = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x > 0;
  if (o.key !== undefined && !id(o.key)) return null;
  if (o.site !== undefined && !id(o.site)) return null;
  if (o.categories !== undefined && typeof o.categories !== 'boolean') return null;
  if (o.sites !== undefined && typeof o.sites !== 'boolean') return null;
  if (o.credits !== undefined && !id(o.credits)) return null;
  if (o.levels !== undefined && typeof o.levels !== 'boolean') return null;
  if (o.key === undefined && o.site === undefined && o.credits === undefined && o.categories !== true && o.sites !== true && o.levels !== true) return null;
  const event: CacheEvent = {};
  if (o.key !== undefined) event.key = o.key as number;
  if (o.site !== undefined) event.site = o.site as number;
  if (o.credits !== undefined) event.credits = o.credits as number;
  if (o.sites === true) event.sites = true;
  if (o.categories === true) event.categories = true;
  if (o.levels === true) event.levels = true;
  return event;
}

function echo(db: Db, event: CacheEvent): void {
  const set = localListeners.get(db);
  if (set === undefined) return;
  for (const listener of set) {
    try {
      listener(event);
    } catch {
      // A listener's failure must not turn a committed write into an error.
    }
  }
}
