/**
 * Orders: an order is accepted in one transaction that checks the rolling 30-day credit window,
 * writes the order, its ledger row and its runs, and enqueues their jobs — all or nothing.
 */
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { WebperfError } from '../errors.js';
import { creditStatus, quotaExceededMessage } from '../quota.js';
import { queueRun, type NewRun } from './runs.js';

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
  /** What was ordered, as stored in orders.payload. */
  payload: Record<string, unknown>;
  /** Page runs to queue; their siteId must be the order's and their orderId is set here. */
  runs: NewRun[];
  /** Further rule checked under the site lock, before the credits (e.g. one audit per hour). */
  precheck?: (trx: Transaction<DB>) => Promise<void>;
  /** Further rows written in the order's transaction once it is accepted (e.g. the audit row and its job). */
  also?: (trx: Transaction<DB>, orderId: number) => Promise<void>;
}

/** An accepted order. */
export interface PlacedOrder {
  orderId: number;
  /** test_runs ids, in the order of `runs`. */
  runIds: number[];
  credits: number;
  /** Credits left in the window after this order. */
  available: number;
}

/**
 * Places an order, or refuses it as a whole with QUOTA_EXCEEDED (400) when it does not fit in the
 * site's available credits (SITE_NOT_FOUND when the site does not exist).
 *
 * Serialisation: the transaction first locks the site's row (`select ... from sites where id = $1
 * for no key update`). Every order for the site takes the same lock, so racing orders queue up on
 * it and each one, once it holds the lock, reads the ledger afresh (READ COMMITTED: every
 * statement sees what committed before it started) including the rows of the order just before.
 * Two orders can therefore never both spend the last credits. Why this lock and not another:
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
  return db.transaction().execute(async (trx) => {
    const status = await creditStatus(trx, order.siteId, { lock: true });
    if (!status) throw new WebperfError('SITE_NOT_FOUND');
    if (order.precheck) await order.precheck(trx);
    if (order.credits > status.available) {
      throw new WebperfError('QUOTA_EXCEEDED', quotaExceededMessage(order.credits, status.available), {
        needed: order.credits,
        available: status.available,
      });
    }
    const row = await trx
      .insertInto('orders')
      .values({
        site_id: order.siteId,
        key_id: order.keyId,
        user_id: order.userId ?? null,
        kind: order.kind,
        credits: order.credits,
        payload: JSON.stringify(order.payload),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const orderId = Number(row.id);
    await trx.insertInto('credit_ledger').values({ site_id: order.siteId, order_id: orderId, credits: order.credits }).execute();
    const runIds: number[] = [];
    for (const run of order.runs) runIds.push(Number(await queueRun(trx, { ...run, orderId })));
    if (order.also) await order.also(trx, orderId);
    return { orderId, runIds, credits: order.credits, available: status.available - order.credits };
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
