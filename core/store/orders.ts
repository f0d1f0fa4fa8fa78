/**
 * Orders: an order is accepted in one transaction that checks the rolling 30-day credit window,
 * writes the order, its ledger row and its runs, and enqueues their jobs — all or nothing; the
 * SQL function place_order does it in one statement (one round trip).
 */
import type { Transaction } from '../db/kysely.js';
import { executePrepared, type Db, type PreparedStatement } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { WebperfError } from '../errors.js';
import { QUOTA_PERIOD_DAYS, quotaExceededMessage } from '../quota.js';
import { RUN_JOB, runsJson, type NewRun } from './runs.js';

export type OrderKind = 'retest' | 'test_once' | 'audit';

/** An order to place. */
export interface NewOrder {
  siteId: number;
  /** The key that ordered; null for orders placed by the service itself. */
  keyId: number | null;
  /** The portal user who ordered (orders through the portal carry no key). */
  userId?: number | null;
  kind: OrderKind;
  credits: number;
  /** What was ordered, as stored in orders.payload; a `url` of null is stored as the site's start page. */
  payload: Record<string, unknown>;
  /** Page runs to queue; their siteId must be the order's and their orderId is set here (url null: the start page). */
  runs: NewRun[];
  /** Further rule checked under the site lock, before the credits (e.g. one audit per hour). */
  precheck?: (trx: Transaction<DB>) => Promise<void>;
  /** Further rows written in the order's transaction once it is accepted (e.g. the audit row and its job). */
  also?: (trx: Transaction<DB>, orderId: number) => Promise<void>;
}

/** An accepted order. */
export interface PlacedOrder {
  orderId: number;
  /** The site's start page, read with the order. */
  siteUrl: string;
  /** test_runs ids, in the order of `runs`. */
  runIds: number[];
  credits: number;
  /** Credits left in the window after this order. */
  available: number;
}

/** What `place_order` (migrations/2026-11-25T00-01-00_order-refusals.ts) answers. */
interface PlaceOrderRow {
  site_found: boolean;
  site_url: string | null;
  available: number;
  order_id: number | null;
  run_ids: number[] | null;
  /** A refusal: ms from the statement's start until credits can free up by themselves (null: never). */
  frees_in_ms: string | number | null;
}

/** What a QUOTA_EXCEEDED refusal carries in its details. */
export interface QuotaRefusal {
  needed: number;
  available: number;
  /** For how long (ms, from before the order was sent) the refusal stands unless a ceiling is raised; null: until then. */
  freesInMs: number | null;
}

/** The refusal of an order needing `needed` credits when `available` remain. */
export function quotaExceeded(refusal: QuotaRefusal): WebperfError {
  return new WebperfError('QUOTA_EXCEEDED', quotaExceededMessage(refusal.needed, refusal.available), { ...refusal });
}

/** The call of the SQL function, prepared once per connection (see executePrepared). */
const PLACE_ORDER: PreparedStatement = {
  name: 'webperf_place_order_2',
  text: 'select * from place_order($1::int, $2::int, $3::int, $4::text, $5::int, $6::jsonb, $7::jsonb, $8::text, $9::int, $10::int)',
};

/**
 * Places an order, or refuses it as a whole with QUOTA_EXCEEDED (400) when it does not fit in the
 * site's available credits (SITE_NOT_FOUND when the site does not exist).
 *
 * One round trip: the SQL function `place_order` locks the site, reads its ledger, and writes the
 * order, its ledger row, its runs and their jobs (graphile_worker.add_jobs) as one statement, so
 * one implicit transaction — all or nothing — and a refusal is decided in the same single call.
 * An order with `precheck` or `also` runs in an explicit transaction instead: the site lock first,
 * the precheck under it, the same function call, then `also`.
 *
 * Serialisation: before it accepts, the function locks the site's row (`select ... from sites
 * where id = $1 for no key update`). Every order for the site takes the same lock, so racing
 * orders queue up on it and each one, once it holds the lock, reads the ledger afresh (READ
 * COMMITTED: every statement of the volatile plpgsql function sees what committed before it
 * started) including the rows of the order just before. Two orders can therefore never both spend
 * the last credits. An order that does not fit in the committed ledger even before the lock is
 * refused without taking it (read-only): credits are only ever added to the ledger, so the refusal
 * was true at that moment of the request. Why this lock and not another:
 * - a row lock on the site is the natural per-site mutex: orders for different sites do not wait
 *   for each other, and it is released by commit or rollback, even when the client goes away;
 * - FOR NO KEY UPDATE rather than FOR UPDATE: the foreign-key checks of rows that reference the
 *   site (test results landing from a runner, key links) take FOR KEY SHARE and are not blocked;
 *   two FOR NO KEY UPDATE locks do conflict, which is all we need;
 * - SERIALIZABLE would also be correct but makes callers retry on serialisation failures, and an
 *   advisory lock would need a key-space convention that nothing else in the schema shows.
 */
export async function placeOrder(db: Db, order: NewOrder): Promise<PlacedOrder> {
  if (!Number.isInteger(order.credits) || order.credits < 0) throw new Error(`placeOrder: invalid credits ${order.credits}`);
  for (const run of order.runs) {
    if (run.siteId !== order.siteId) throw new Error(`placeOrder: a run of site ${run.siteId} in an order of site ${order.siteId}`);
  }
  const values = [
    order.siteId, order.keyId, order.userId ?? null, order.kind, order.credits,
    JSON.stringify(order.payload), runsJson(order.runs), RUN_JOB.task, RUN_JOB.maxAttempts, QUOTA_PERIOD_DAYS,
  ];
  const call = async (on: Db | Transaction<DB>) => (await executePrepared<PlaceOrderRow>(on, PLACE_ORDER, values))[0];
  const placed = (row: PlaceOrderRow): PlacedOrder => {
    if (!row.site_found) throw new WebperfError('SITE_NOT_FOUND');
    if (row.order_id === null) {
      throw quotaExceeded({ needed: order.credits, available: row.available, freesInMs: row.frees_in_ms === null ? null : Number(row.frees_in_ms) });
    }
    return { orderId: Number(row.order_id), siteUrl: row.site_url!, runIds: (row.run_ids ?? []).map(Number), credits: order.credits, available: row.available };
  };
  if (!order.precheck && !order.also) return placed(await call(db));
  return db.transaction().execute(async (trx) => {
    if (order.precheck) {
      // The precheck runs under the site lock, as the credit check does (place_order takes it again: a no-op).
      const site = await trx.selectFrom('sites').select('id').where('id', '=', order.siteId).forNoKeyUpdate().executeTakeFirst();
      if (!site) throw new WebperfError('SITE_NOT_FOUND');
      await order.precheck(trx);
    }
    const result = placed(await call(trx));
    if (order.also) await order.also(trx, result.orderId);
    return result;
  });
}

/** One order of a site's history. */
export interface OrderView {
  id: number;
  kind: OrderKind;
  credits: number;
  status: string;
  payload: Record<string, unknown>;
  createdAt: Date;
  /** Test runs of the order: id, address, status (none for an audit). */
  runs: { id: number; url: string; status: string; private: boolean }[];
}

/** The site's latest orders, newest first, with their runs. */
export async function listOrders(db: Db, siteId: number, limit = 50): Promise<OrderView[]> {
  const orders = await db
    .selectFrom('orders')
    .select(['id', 'kind', 'credits', 'status', 'payload', 'created_at'])
    .where('site_id', '=', siteId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const ids = orders.map((o) => o.id);
  const runs = ids.length
    ? await db.selectFrom('test_runs').select(['id', 'order_id', 'url', 'status', 'private']).where('order_id', 'in', ids).orderBy('id').execute()
    : [];
  return orders.map((o) => ({
    id: Number(o.id),
    kind: o.kind as OrderKind,
    credits: o.credits,
    status: o.status,
    payload: (o.payload ?? {}) as Record<string, unknown>,
    createdAt: o.created_at,
    runs: runs.filter((r) => Number(r.order_id) === Number(o.id)).map((r) => ({ id: Number(r.id), url: r.url, status: r.status, private: r.private })),
  }));
}
