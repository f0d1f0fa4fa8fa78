/**
 * Per-site webhooks: configuration, signing secrets and their rotation, and the delivery log.
 * Deliveries of stored results are queued in the transaction that stores the results
 * (queueWebhookDeliveries, called by saveRunResults), so no event is lost if the process dies
 * right after; runners/tasks/deliver-webhook.ts sends them.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Transaction } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { diffFindings, type StoredFinding } from '../changes.js';
import type { Category, Severity } from '../plugin-api.js';

type Executor = Db | Transaction<DB>;

/** Result-delivery retries: delay before attempt n+1 after attempt n failed (about a day in all). */
export const RETRY_DELAYS_S: readonly number[] = [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800];
/** Each delay is spread by up to this fraction either way, so that failed receivers are not hit in waves. */
export const RETRY_JITTER = 0.2;
/** A webhook whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_DAYS = 3;
/** During a rotation the previous secret keeps signing this long. */
export const ROTATION_OVERLAP_HOURS = 24;
/** Report language of the check_report fields of the payload. */
export const WEBHOOK_REPORT_LANG = 'sv';

export const DELIVER_TASK = 'deliver_webhook';

/** A fresh Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A Standard Webhooks message id (the webhook-id header). */
function newEventId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

/** A webhook as its owner may see it (no secret). */
export interface WebhookView {
  siteId: number;
  url: string;
  threshold: number | null;
  createdAt: Date;
  updatedAt: Date;
  /** True while a rotation's previous secret still signs. */
  rotating: boolean;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
}

export interface WebhookInput {
  siteId: number;
  url: string;
  threshold: number | null;
  itemUri: string;
  apiVersion: string;
}

function toView(r: {
  site_id: number; url: string; threshold: string | number | null; created_at: Date; updated_at: Date;
  previous_secret_expires_at: Date | null; failing_since: Date | null; disabled_at: Date | null; disabled_reason: string | null;
}, now = new Date()): WebhookView {
  const expires = r.previous_secret_expires_at;
  return {
    siteId: r.site_id,
    url: r.url,
    threshold: r.threshold === null ? null : Number(r.threshold),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    rotating: expires !== null && expires > now,
    previousSecretExpiresAt: expires !== null && expires > now ? expires : null,
    failingSince: r.failing_since,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
  };
}

/** Creates or replaces the site's webhook with a new secret; a replaced one starts afresh (enabled). */
export async function setWebhook(db: Db, input: WebhookInput): Promise<{ webhook: WebhookView; secret: string }> {
  const secret = newWebhookSecret();
  const values = {
    url: input.url,
    threshold: input.threshold,
    secret,
    item_uri: input.itemUri,
    api_version: input.apiVersion,
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    disabled_at: null,
    disabled_reason: null,
    updated_at: new Date(),
  };
  const row = await db
    .insertInto('webhooks')
    .values({ site_id: input.siteId, ...values })
    .onConflict((oc) => oc.column('site_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return { webhook: toView(row), secret };
}

export async function getWebhook(db: Db, siteId: number): Promise<WebhookView | null> {
  const row = await db.selectFrom('webhooks').selectAll().where('site_id', '=', siteId).executeTakeFirst();
  return row ? toView(row) : null;
}

/** Deletes the webhook; its pending deliveries are not sent (the task finds no webhook). */
export async function deleteWebhook(db: Db, siteId: number): Promise<boolean> {
  const res = await db.deleteFrom('webhooks').where('site_id', '=', siteId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** A new secret; the current one keeps signing for ROTATION_OVERLAP_HOURS. Null without a webhook. */
export async function rotateWebhookSecret(db: Db, siteId: number, now = new Date()): Promise<{ secret: string; previousSecretExpiresAt: Date } | null> {
  const secret = newWebhookSecret();
  const expires = new Date(now.getTime() + ROTATION_OVERLAP_HOURS * 3_600_000);
  const row = await db
    .updateTable('webhooks')
    .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_expires_at: expires, secret, updated_at: now }))
    .where('site_id', '=', siteId)
    .returning('site_id')
    .executeTakeFirst();
  return row ? { secret, previousSecretExpiresAt: expires } : null;
}

/** The secrets that sign a delivery now: the current one, and the previous one during a rotation. */
export function signingSecrets(w: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null }, now = new Date()): string[] {
  return w.previous_secret && w.previous_secret_expires_at && w.previous_secret_expires_at > now ? [w.secret, w.previous_secret] : [w.secret];
}

/** One test result as the spec's Events section shapes it (the `data` of the payload). */
export interface WebhookResultData {
  test_date: string;
  type_of_test: number;
  url: string;
  rating: number;
  check_report: string;
  check_report_a11y: string;
  check_report_perf: string;
  check_report_stand: string;
  check_report_sec: string;
  json_check_data: string;
}

/** The webhook body: api_version, uri, tested_url, timestamp, result_count ("1"), data. */
export interface WebhookPayload {
  api_version: string;
  uri: string;
  tested_url: string;
  timestamp: string;
  result_count: '1';
  data: WebhookResultData;
  /** On a drop past the webhook's threshold: the findings that explain it. */
  changes?: DropChanges;
}

/** At most this many findings per category in a drop's changes, each text at most DROP_TEXT_MAX characters. */
export const DROP_PER_CATEGORY = 5;
export const DROP_TEXT_MAX = 300;

/** The findings that explain a drop: added (or worse) since the previous rated result, the worst first, per category. */
export interface DropChanges {
  since: { result_id: number; test_date: string; rating: number };
  /** False when either result was stored before findings were kept (then nothing is listed). */
  findings_known: boolean;
  added: Partial<Record<Category, { key: string; rule: string; change: 'added' | 'changed'; severity: Severity; count: number; text: string }[]>>;
  /** Findings left out beyond DROP_PER_CATEGORY per category. */
  more: number;
}

interface PreviousResult {
  id: number;
  rating: number;
  test_date: string;
}

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, error: 1, warning: 2, info: 3, resolved: 4 };

/** The findings of two results (null: stored before findings were kept). */
async function findingsOf(db: Executor, before: number, after: number): Promise<[StoredFinding[] | null, StoredFinding[] | null]> {
  const { rows } = await sql<{ id: number; findings: StoredFinding[] | null }>`
    select id::int as id, findings from test_results where id in (${before}::bigint, ${after}::bigint)`.execute(db);
  const of = (id: number) => rows.find((x) => x.id === id)?.findings ?? null;
  return [of(before), of(after)];
}

/** What explains a drop: problems added, or worse (a graver severity, a larger count), the worst first, bounded per category. */
export function dropChanges(previous: PreviousResult, before: StoredFinding[] | null, findings: StoredFinding[] | null): DropChanges {
  const since = { result_id: previous.id, test_date: previous.test_date, rating: previous.rating };
  if (!before || !findings) return { since, findings_known: false, added: {}, more: 0 };
  const worse = diffFindings(before, findings).filter((c) =>
    c.change === 'added' || (c.change === 'changed' && c.before && c.after && (SEVERITY_ORDER[c.after.severity] < SEVERITY_ORDER[c.before.severity] || c.after.count > c.before.count)));
  worse.sort((a, b) => SEVERITY_ORDER[a.after!.severity] - SEVERITY_ORDER[b.after!.severity] || b.after!.count - a.after!.count || a.key.localeCompare(b.key));
  const added: DropChanges['added'] = {};
  let more = 0;
  for (const c of worse) {
    const list = (added[c.category] ??= []);
    if (list.length >= DROP_PER_CATEGORY) {
      more++;
      continue;
    }
    const text = c.text[WEBHOOK_REPORT_LANG];
    list.push({ key: c.key, rule: c.rule, change: c.change as 'added' | 'changed', severity: c.after!.severity, count: c.after!.count, text: text.length > DROP_TEXT_MAX ? `${text.slice(0, DROP_TEXT_MAX - 1)}…` : text });
  }
  return { since, findings_known: true, added, more };
}

interface ResultForWebhook extends WebhookResultData {
  id: number;
  site_id: number;
  private: boolean;
}

async function readResults(db: Executor, ids: readonly number[]): Promise<ResultForWebhook[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<ResultForWebhook>`
    select r.id::int as id, r.site_id, r.private, r.url, r.type_of_test, r.rating::float8 as rating,
      to_char(r.test_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as test_date,
      coalesce(r.reports -> ${WEBHOOK_REPORT_LANG}::text ->> 'overall', '') as check_report,
      coalesce(r.reports -> ${WEBHOOK_REPORT_LANG}::text ->> 'a11y', '') as check_report_a11y,
      coalesce(r.reports -> ${WEBHOOK_REPORT_LANG}::text ->> 'perf', '') as check_report_perf,
      coalesce(r.reports -> ${WEBHOOK_REPORT_LANG}::text ->> 'stand', '') as check_report_stand,
      coalesce(r.reports -> ${WEBHOOK_REPORT_LANG}::text ->> 'sec', '') as check_report_sec,
      r.json_check_data::text as json_check_data
    from test_results r where r.id = any(${ids.map(Number)}::bigint[]) order by r.id`.execute(db);
  return rows;
}

function dataOf(r: ResultForWebhook): WebhookResultData {
  return {
    test_date: r.test_date,
    type_of_test: r.type_of_test,
    url: r.url,
    rating: r.rating,
    check_report: r.check_report,
    check_report_a11y: r.check_report_a11y,
    check_report_perf: r.check_report_perf,
    check_report_stand: r.check_report_stand,
    check_report_sec: r.check_report_sec,
    json_check_data: r.json_check_data,
  };
}

/**
 * The threshold rule ("only drops"): without a threshold every result is delivered; with
 * threshold T only a rated result (rating ≥ 1) whose rating is at least T below the previous rated
 * result of the same test type for the site. The first rated result of a type has nothing to drop
 * from and is not delivered.
 */
export function passesThreshold(threshold: number | null, rating: number, previous: number | null): boolean {
  if (threshold === null) return true;
  if (rating < 1 || previous === null) return false;
  // Ratings are stored with 5 decimals: compare in those units so 4.2 - 3.2 >= 1 holds.
  return Math.round(previous * 100_000) - Math.round(rating * 100_000) >= Math.round(threshold * 100_000);
}

/**
 * Queues one delivery per stored public result of the site's webhook (inside the caller's
 * transaction, which also stores the results). Private results and disabled webhooks queue nothing.
 */
export async function queueWebhookDeliveries(trx: Transaction<DB>, siteId: number, resultIds: readonly number[]): Promise<number> {
  const hook = await trx.selectFrom('webhooks').selectAll().where('site_id', '=', siteId).where('disabled_at', 'is', null).executeTakeFirst();
  if (!hook) return 0;
  const threshold = hook.threshold === null ? null : Number(hook.threshold);
  let queued = 0;
  for (const r of await readResults(trx, resultIds)) {
    if (r.private || r.site_id !== siteId) continue;
    let previous: PreviousResult | null = null;
    if (threshold !== null) {
      const prev = await sql<PreviousResult>`
        select id::int as id, rating::float8 as rating,
          to_char(test_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as test_date
        from test_results
        where site_id = ${siteId}::int and type_of_test = ${r.type_of_test}::int and not private and rating >= 1
          and (test_date, id) < (select test_date, id from test_results where id = ${r.id}::bigint)
        order by test_date desc, id desc limit 1`.execute(trx);
      previous = prev.rows[0] ?? null;
    }
    if (!passesThreshold(threshold, r.rating, previous?.rating ?? null)) continue;
    // A drop: only then are the two results' findings read (this runs inside the run's save).
    const changes = threshold !== null && previous ? dropChanges(previous, ...(await findingsOf(trx, previous.id, r.id))) : null;
    const payload: WebhookPayload = {
      api_version: hook.api_version,
      uri: hook.item_uri,
      tested_url: r.url,
      timestamp: new Date().toISOString(),
      result_count: '1',
      data: dataOf(r),
      // A drop past the threshold carries what explains it.
      ...(changes ? { changes } : {}),
    };
    const row = await trx
      .insertInto('webhook_deliveries')
      .values({ site_id: siteId, result_id: r.id, event_id: newEventId(), kind: 'result', type_of_test: r.type_of_test, url: hook.url, payload: JSON.stringify(payload), next_attempt_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await queueDeliveryJob(trx, Number(row.id), 1, null);
    queued++;
  }
  return queued;
}

/**
 * The graphile-worker job of one attempt. Our own schedule (run_at), not graphile-worker's
 * retries: its backoff has no jitter and its attempts are not logged where the owner can see them.
 * max_attempts 3 only covers the task itself crashing (database gone), not the receiver failing.
 *
 * Made so that a job run again never sends early nor forks the schedule (a runner whose record of
 * a job's end was lost to a database outage releases the job, which then runs again: worker.ts):
 * the payload names the attempt the job makes, so a job whose attempt is already recorded sends
 * nothing (deliverWebhookTask); and one job key per delivery, so a delivery never has two
 * pending jobs (a later one replaces a pending one, graphile-worker's job_key_mode 'replace').
 */
async function queueDeliveryJob(db: Kysely<any>, deliveryId: number, attempt: number, runAt: Date | null): Promise<void> {
  const payload: DeliveryJob = { deliveryId, attempt };
  await sql`select graphile_worker.add_job(
    ${DELIVER_TASK}::text, ${JSON.stringify(payload)}::json,
    run_at := ${runAt}::timestamptz, max_attempts := 3, job_key := ${`webhook_delivery:${deliveryId}`}::text)`.execute(db);
}

/** A deliver_webhook job's payload: the delivery, and which of its attempts the job makes (absent in jobs queued before it was named). */
export interface DeliveryJob {
  deliveryId: number;
  attempt?: number;
}

/** The body of a test event: the site's latest public result, or a placeholder result before the first test. */
/** The secrets that sign the site's events now (two during a rotation); null without a webhook. */
export async function currentSigningSecrets(db: Db, siteId: number, now = new Date()): Promise<string[] | null> {
  const hook = await db.selectFrom('webhooks').select(['secret', 'previous_secret', 'previous_secret_expires_at']).where('site_id', '=', siteId).executeTakeFirst();
  return hook ? signingSecrets(hook, now) : null;
}

export async function buildTestPayload(db: Db, siteId: number): Promise<{ payload: WebhookPayload; url: string; typeOfTest: number | null } | null> {
  const hook = await db.selectFrom('webhooks').selectAll().where('site_id', '=', siteId).executeTakeFirst();
  if (!hook) return null;
  const latest = await db
    .selectFrom('latest_results')
    .select('result_id')
    .where('site_id', '=', siteId)
    .orderBy('test_date', 'desc')
    .orderBy('type_of_test')
    .limit(1)
    .executeTakeFirst();
  const [r] = latest ? await readResults(db, [Number(latest.result_id)]) : [];
  const site = await db.selectFrom('sites').select('url').where('id', '=', siteId).executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const data: WebhookResultData = r
    ? dataOf(r)
    : { test_date: now, type_of_test: 0, url: site.url, rating: -1, check_report: 'Test event: the site has no test result yet', check_report_a11y: '', check_report_perf: '', check_report_stand: '', check_report_sec: '', json_check_data: '{}' };
  return {
    payload: { api_version: hook.api_version, uri: hook.item_uri, tested_url: data.url, timestamp: now, result_count: '1', data },
    url: hook.url,
    typeOfTest: r ? r.type_of_test : null,
  };
}

/** A delivery ready to send: its body, id, the webhook's address and signing secrets. */
export interface PendingDelivery {
  id: number;
  siteId: number;
  eventId: string;
  payload: string;
  attempts: number;
  url: string;
  secrets: string[];
}

/** The delivery if it is still pending and its webhook exists and is enabled; else null (and the delivery is closed). */
export async function loadPendingDelivery(db: Db, deliveryId: number, now = new Date()): Promise<PendingDelivery | null> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhooks as w', 'w.site_id', 'd.site_id')
    .select(['d.id', 'd.site_id', 'd.event_id', 'd.payload', 'd.attempts', 'd.status', 'w.url', 'w.secret', 'w.previous_secret', 'w.previous_secret_expires_at', 'w.disabled_at', 'w.disabled_reason'])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  if (!row || row.status !== 'pending') return null;
  if (row.url === null || row.secret === null || row.disabled_at !== null) {
    const why = row.url === null ? 'The webhook was deleted' : `The webhook is disabled: ${row.disabled_reason ?? ''}`;
    await db.updateTable('webhook_deliveries').set({ status: 'failed', last_error: why, next_attempt_at: null }).where('id', '=', deliveryId).execute();
    return null;
  }
  return {
    id: Number(row.id),
    siteId: row.site_id,
    eventId: row.event_id,
    payload: row.payload,
    attempts: row.attempts,
    // The current address: a webhook replaced since the event was queued gets it at its new address.
    url: row.url,
    secrets: signingSecrets({ secret: row.secret, previous_secret: row.previous_secret, previous_secret_expires_at: row.previous_secret_expires_at }, now),
  };
}

/** What one attempt came to. */
export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  durationMs: number;
}

const isSuccess = (o: AttemptOutcome) => o.status !== null && o.status >= 200 && o.status < 300;

/** The delay before the next attempt after `attempt` attempts, with jitter; null when retries are spent. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_S[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * 1000 * (1 + RETRY_JITTER * (2 * random() - 1)));
}

/**
 * Records an attempt of a result delivery and decides what follows, in one transaction: success
 * closes it and clears the webhook's failure; 410 Gone disables the webhook; another failure
 * queues the next attempt (delayMs) or closes the delivery as failed, and disables the webhook once
 * it has failed without a success for DISABLE_AFTER_FAILING_DAYS.
 */
export async function recordDeliveryAttempt(
  db: Db,
  delivery: PendingDelivery,
  outcome: AttemptOutcome,
  nextDelayMs: number | null,
  now = new Date(),
): Promise<'delivered' | 'gone' | 'retry' | 'failed'> {
  return db.transaction().execute(async (trx) => {
    const attempts = delivery.attempts + 1;
    const base = { attempts, response_status: outcome.status, last_error: outcome.error, duration_ms: outcome.durationMs, last_attempt_at: now };
    const where = (q: any) => q.where('id', '=', delivery.id);
    if (isSuccess(outcome)) {
      await where(trx.updateTable('webhook_deliveries').set({ ...base, status: 'delivered', delivered_at: now, next_attempt_at: null })).execute();
      // Only when it was failing: a run's deliveries (one per result) succeed at once, and each
      // rewriting the same row would wait for the others' commits (the scale bench saw it).
      await trx.updateTable('webhooks').set({ failing_since: null }).where('site_id', '=', delivery.siteId).where('failing_since', 'is not', null).execute();
      return 'delivered';
    }
    if (outcome.status === 410) {
      await where(trx.updateTable('webhook_deliveries').set({ ...base, status: 'gone', next_attempt_at: null })).execute();
      await trx
        .updateTable('webhooks')
        .set({ disabled_at: now, disabled_reason: `The receiver answered 410 Gone on ${now.toISOString()}` })
        .where('site_id', '=', delivery.siteId)
        .execute();
      return 'gone';
    }
    const hook = await trx
      .updateTable('webhooks')
      .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', sql<Date>`${now}::timestamptz`) }))
      .where('site_id', '=', delivery.siteId)
      .returning('failing_since')
      .executeTakeFirst();
    const failingSince = hook?.failing_since ?? now;
    if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_DAYS * 86_400_000) {
      const why = `Deliveries have failed since ${failingSince.toISOString()} (last: ${outcome.error ?? `HTTP ${outcome.status}`})`;
      await trx.updateTable('webhooks').set({ disabled_at: now, disabled_reason: why }).where('site_id', '=', delivery.siteId).execute();
      await where(trx.updateTable('webhook_deliveries').set({ ...base, status: 'failed', next_attempt_at: null })).execute();
      return 'failed';
    }
    if (nextDelayMs === null) {
      await where(trx.updateTable('webhook_deliveries').set({ ...base, status: 'failed', next_attempt_at: null })).execute();
      return 'failed';
    }
    const next = new Date(now.getTime() + nextDelayMs);
    await where(trx.updateTable('webhook_deliveries').set({ ...base, next_attempt_at: next })).execute();
    await queueDeliveryJob(trx, delivery.id, attempts + 1, next);
    return 'retry';
  });
}

/** Logs a test event sent by POST /webhook/test (never retried). */
export async function recordTestDelivery(db: Db, siteId: number, eventId: string, url: string, typeOfTest: number | null, payload: string, outcome: AttemptOutcome): Promise<void> {
  const now = new Date();
  await db
    .insertInto('webhook_deliveries')
    .values({
      site_id: siteId, event_id: eventId, kind: 'test', type_of_test: typeOfTest, url, payload, attempts: 1,
      status: isSuccess(outcome) ? 'delivered' : 'failed', response_status: outcome.status, last_error: outcome.error,
      duration_ms: outcome.durationMs, last_attempt_at: now, delivered_at: isSuccess(outcome) ? now : null,
    })
    .execute();
}

export { newEventId };

/** One row of GET /webhook/deliveries. */
export interface DeliveryView {
  eventId: string;
  kind: string;
  typeOfTest: number | null;
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
}

/** The site's latest deliveries, newest first. */
export async function listDeliveries(db: Db, siteId: number, limit = 50): Promise<DeliveryView[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    eventId: r.event_id,
    kind: r.kind,
    typeOfTest: r.type_of_test,
    status: r.status,
    attempts: r.attempts,
    responseStatus: r.response_status,
    error: r.last_error,
    durationMs: r.duration_ms,
    createdAt: r.created_at,
    lastAttemptAt: r.last_attempt_at,
    nextAttemptAt: r.next_attempt_at,
  }));
}
