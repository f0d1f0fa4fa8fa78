/**
 * Test runs (one page, one load) and their results. All results of a run are written in one
 * transaction, together with the summaries read often: latest result per site and test type,
 * the site's scores, its monthly scores and its categories' averages.
 */
import { sql, type Transaction } from '../db/kysely.js';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { ANALYTICS_TYPE_OF_TEST } from '../analytics.js';
import { storedFinding } from '../changes.js';
import { NOT_RATED } from '../plugin-api.js';
import type { TestOutcome } from '../pipeline.js';
import { recordRunStored } from '../metrics.js';
import { RETEST_CREDITS_PER_TEST } from '../quota.js';
import { addJob } from './jobs.js';
import { notifyCache, withCacheEvents } from './notify.js';
import { queueWebhookDeliveries } from './webhooks.js';
import { refreshAnalyticsCsvRow } from './webanalytics.js';

export interface NewRun {
  siteId: number;
  /** Null: the site's start page (sites.url), read when the run is queued. */
  url: string | null;
  private?: boolean;
  orderId?: number | null;
  /** Null: every active plugin. */
  testTypes?: number[] | null;
}

/** The job of a run: graphile-worker task and attempts (payload {runId}), as queue_runs queues it. */
export const RUN_JOB = { task: 'run_tests', maxAttempts: 2 } as const;

/** Runs as the SQL functions queue_runs and place_order take them (their site is a parameter). */
export function runsJson(runs: readonly NewRun[]): string {
  return JSON.stringify(runs.map((r) => ({ url: r.url, private: r.private ?? false, test_types: r.testTypes ?? null })));
}

/**
 * Creates a run and queues its job in the same transaction: one statement, the SQL function
 * queue_runs (migrations/2026-11-23T00-07-00_place-order-function.ts), which inserts the run and
 * calls graphile_worker.add_jobs; inside the caller's transaction when given one.
 */
export async function queueRun(db: Db | Transaction<DB>, run: NewRun): Promise<number> {
  const { rows } = await sql<{ ids: number[] }>`select queue_runs(
    ${run.siteId}::int, ${run.orderId ?? null}::bigint, ${runsJson([run])}::jsonb, ${RUN_JOB.task}::text, ${RUN_JOB.maxAttempts}::int
  ) as ids`.execute(db);
  return Number(rows[0].ids[0]);
}

/** Points a site's runs not yet stored at its new address (the demo site's port changes per start). */
export async function retargetOpenRuns(db: Db, siteId: number, url: string): Promise<void> {
  await db.updateTable('test_runs').set({ url }).where('site_id', '=', siteId).where('status', 'in', ['queued', 'running']).execute();
}

export async function getRun(db: Db, id: number) {
  return db.selectFrom('test_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A run whose state markRun changed: its test types (null: every active plugin), for the metrics. */
export interface MarkedRun {
  testTypes: number[] | null;
}

/**
 * Records a run's state. `queued` with an error: an attempt failed and another one will follow.
 * `failed` only when no attempt is left; the order fails with its last open run. Null when the
 * run was stored already (or does not exist): nothing changed.
 */
export async function markRun(db: Db, id: number, status: 'running' | 'queued' | 'failed', error?: string): Promise<MarkedRun | null> {
  const changed = await db
    .updateTable('test_runs')
    .set({ status, error: error ?? null, ...(status === 'failed' ? { finished_at: new Date() } : {}) })
    .where('id', '=', id)
    // A run stored by another attempt stays stored, and so does its order.
    .where('status', '!=', 'done')
    .returning('test_types')
    .executeTakeFirst();
  if (status === 'failed' && changed !== undefined) {
    await db
      .updateTable('orders')
      .set({ status: 'failed' })
      .where('id', '=', (eb) => eb.selectFrom('test_runs').select('order_id').where('id', '=', id))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('test_runs').select('id').where('order_id', '=', eb.ref('orders.id')).where('status', 'in', ['queued', 'running']))))
      .execute();
  }
  return changed === undefined ? null : { testTypes: changed.test_types };
}

/**
 * Queues a fresh job for a run whose attempt was cut short by the database going away (not by the
 * page): the run goes back to queued, and the new job has its full attempts. Nothing of the cut
 * attempt was stored (results are saved in one transaction), and a run already stored stays so.
 */
export async function requeueRun(db: Db, runId: number, why: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const changed = await trx.updateTable('test_runs').set({ status: 'queued', error: why }).where('id', '=', runId).where('status', 'in', ['queued', 'running']).executeTakeFirst();
    if (changed.numUpdatedRows === 0n) return false;
    await addJob(trx, { task: RUN_JOB.task, payload: { runId }, maxAttempts: RUN_JOB.maxAttempts });
    return true;
  });
}

/**
 * A re-test is charged per test type (core/quota.ts); a type the runner could not run (a program
 * it lacks) is given back: a ledger row of minus its credits on the order, in the transaction that
 * stores the run (once: a run is stored once). A one-off test is priced per page whatever types
 * run, so nothing is given back for it.
 */
async function refundUnavailable(trx: Transaction<DB>, orderId: number, outcomes: readonly TestOutcome[]): Promise<void> {
  const missing = new Set(outcomes.filter((o) => o.unavailable).map((o) => o.typeOfTest)).size;
  if (missing === 0) return;
  await sql`insert into credit_ledger (site_id, order_id, credits)
    select site_id, id, ${-missing * RETEST_CREDITS_PER_TEST}::int from orders where id = ${orderId} and kind = 'retest'`.execute(trx);
}

const rated = (r: number | undefined | null) => (typeof r === 'number' && r !== NOT_RATED && r >= 1 ? r : null);

/**
 * Writes every outcome of a run, and the summaries, in one transaction. Returns the result ids.
 * Idempotent: the run's status is read under its row lock, so when two attempts of one run both
 * get here (a runner thought dead, a retry), the second stores nothing and returns []. An attempt
 * whose `signal` has aborted (time limit, shutdown) stores nothing either.
 */
export async function saveRunResults(db: Db, runId: number, outcomes: readonly TestOutcome[], testDate = new Date(), signal?: AbortSignal): Promise<number[]> {
  const started = performance.now();
  const { ids, site } = await storeRunResults(db, runId, outcomes, testDate, signal);
  // Counted once committed, and only by the attempt that stored them.
  if (ids.length > 0) recordRunStored(outcomes, performance.now() - started);
  // A public run's categories, also when an earlier attempt stored the run and failed here.
  if (site !== null) await refreshCategoriesOf(db, site);
  return ids;
}

/**
 * The averages of the site's categories, after the run's save has committed, in a transaction of
 * their own. A category's row is written by the runs of all its sites: inside the save it was
 * locked from its statement to the save's commit, and at 400 runners the saves queued on those
 * rows (pg_stat_statements: 9 s of waiting per save, 95 % of all statement time). Here it is held
 * for the statement alone: the commit does not wait for the WAL to reach the disk
 * (synchronous_commit off), as the row is derived: should the server crash in the moment after,
 * the averages are those before this run until the category's next save, never inconsistent.
 * The API's cached /categories/ answers go on this commit (not the save's, which would let them
 * be cached again from the averages before it).
 */
async function refreshCategoriesOf(db: Db, siteId: number): Promise<void> {
  await withCacheEvents(db, async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx);
    await refreshCategoryScores(trx, siteId);
    await notifyCache(trx, { categories: true });
  });
}

async function storeRunResults(db: Db, runId: number, outcomes: readonly TestOutcome[], testDate: Date, signal?: AbortSignal): Promise<{ ids: number[]; site: number | null }> {
  return withCacheEvents(db, async (trx) => {
    signal?.throwIfAborted();
    const run = await trx.selectFrom('test_runs').selectAll().where('id', '=', runId).forUpdate().executeTakeFirstOrThrow();
    const site = run.private ? null : run.site_id;
    if (run.status === 'done') return { ids: [], site };
    // One statement per table for the whole run (a run of 16 types made about 110 round trips
    // one outcome at a time, inside the transaction that holds the run's row).
    const ids = await insertResults(trx, run, runId, outcomes, testDate);
    // A type this runner could not run (a program missing) is kept in the run's results but is
    // not the site's latest result: a real one from another runner stays in place.
    const latest = outcomes.flatMap((o, i) => (o.unavailable ? [] : [{ site_id: run.site_id, type_of_test: o.typeOfTest, result_id: ids[i], test_date: testDate }]));
    if (!run.private && latest.length > 0) {
      await trx
        .insertInto('latest_results')
        .values(latest)
        .onConflict((oc) =>
          oc.columns(['site_id', 'type_of_test'])
            .doUpdateSet((eb) => ({ result_id: eb.ref('excluded.result_id'), test_date: eb.ref('excluded.test_date') }))
            .where('latest_results.test_date', '<=', testDate),
        )
        .execute();
      await addMonthly(trx, run.site_id, testDate, outcomes);
      // Only the analytics plugin's findings are analytics detections.
      const tools = outcomes.flatMap((o) => {
        const found = o.typeOfTest === ANALYTICS_TYPE_OF_TEST ? (o.data as { tools?: unknown }).tools : undefined;
        return Array.isArray(found) ? found.map(String) : [];
      });
      if (tools.length > 0) {
        await trx
          .insertInto('analytics_detections')
          .values(tools.map((tool) => ({ site_id: run.site_id, run_id: runId, url: run.url, test_date: testDate, tool })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    }
    await trx.updateTable('test_runs').set({ status: 'done', finished_at: new Date(), error: null }).where('id', '=', runId).execute();
    if (run.order_id !== null) {
      await refundUnavailable(trx, run.order_id, outcomes);
      await trx
        .updateTable('orders')
        .set({ status: 'done' })
        .where('id', '=', run.order_id)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('test_runs').select('id').where('order_id', '=', run.order_id!).where('status', 'in', ['queued', 'running']))))
        .execute();
    }
    // The last moment to notice a late attempt: nothing is committed yet.
    signal?.throwIfAborted();
    if (!run.private) {
      await refreshSiteScores(trx, run.site_id);
      await queueWebhookDeliveries(trx, run.site_id, ids);
      // The agency CSV's record follows the detections in the same transaction (the CSV is never
      // served stale). Its chunk of 500 sites, a row that runs of many sites write, is cleared by
      // the trigger chain as soon as the analytics result reaches latest_results above (the
      // record, then its chunk), and stays locked to the commit: at 400 runners the saves queue on
      // it (SCALING.md). Chunks of 50 sites were measured and did not help enough (the hold, not
      // the sharing, is the cost). The categories' averages, written by runs of many sites too,
      // come after the commit (refreshCategoriesOf).
      if (outcomes.some((o) => o.typeOfTest === ANALYTICS_TYPE_OF_TEST)) await refreshAnalyticsCsvRow(trx, run.site_id);
      // The API's cached /stats and /stats_per_month answers go on commit.
      await notifyCache(trx, { site: run.site_id });
    }
    return { ids, site };
  });
}

type Trx = Transaction<DB>;

/**
 * The run's ratings added to the site's monthly sums and counts, one statement for every outcome:
 * PostgreSQL sums each score type's values (numeric, exact) and adds the sum and the count, as
 * adding them one at a time would.
 */
async function addMonthly(trx: Trx, siteId: number, date: Date, outcomes: readonly TestOutcome[]): Promise<void> {
  const month = date.toISOString().slice(0, 7);
  const types: string[] = [];
  const values: number[] = [];
  for (const o of outcomes) {
    const parts: [string, number | null][] = [
      ['kat-total', rated(o.rating)],
      ['kat-a11y', rated(o.ratings.a11y)],
      ['kat-infosec', rated(o.ratings.infosec)],
      ['kat-perf', rated(o.ratings.pagespeed)],
      ['kat-webstandard', rated(o.ratings.webstandard)],
    ];
    for (const [type, value] of parts) {
      if (value === null) continue;
      types.push(type);
      values.push(value);
    }
  }
  if (types.length === 0) return;
  await sql`
    insert into monthly_scores (site_id, timeperiod, type_of_score, score_sum, score_count)
    select ${siteId}::int, ${month}, u.type, sum(u.value), count(*)::int
    from unnest(${types}::text[], ${values}::numeric[]) as u(type, value)
    group by u.type
    on conflict (site_id, timeperiod, type_of_score) do update set
      score_sum = monthly_scores.score_sum + excluded.score_sum,
      score_count = monthly_scores.score_count + excluded.score_count,
      updated_at = now()
  `.execute(trx);
}

/** The run's results, one row per outcome in one statement; their ids in the outcomes' order. */
async function insertResults(trx: Trx, run: { site_id: number; private: boolean; url: string }, runId: number, outcomes: readonly TestOutcome[], testDate: Date): Promise<number[]> {
  if (outcomes.length === 0) return [];
  const rows = await trx
    .insertInto('test_results')
    .values(outcomes.map((o) => ({
      run_id: runId,
      site_id: run.site_id,
      private: run.private,
      url: run.url,
      type_of_test: o.typeOfTest,
      rating: o.rating,
      rating_a11y: rated(o.ratings.a11y),
      rating_infosec: rated(o.ratings.infosec),
      rating_pagespeed: rated(o.ratings.pagespeed),
      rating_webstandard: rated(o.ratings.webstandard),
      reports: JSON.stringify(o.reports),
      json_check_data: JSON.stringify(o.data),
      // Each finding with its identity across runs (core/changes.ts).
      findings: JSON.stringify(o.findings.map(storedFinding)),
      error: o.error,
      test_date: testDate,
    })))
    .returning(['id', 'type_of_test'])
    .execute();
  // A run has one outcome per test type: the ids are matched to the outcomes by it, whatever the
  // order PostgreSQL returns the rows in.
  const idOf = new Map(rows.map((r) => [r.type_of_test, r.id]));
  if (idOf.size !== outcomes.length) throw new Error(`run ${runId}: ${outcomes.length} outcomes for ${idOf.size} test types`);
  return outcomes.map((o) => idOf.get(o.typeOfTest)!);
}

/** A site's scores: per category the mean of its latest results that rate it; overall the mean of their overall ratings. */
export async function refreshSiteScores(trx: Trx | Db, siteId: number): Promise<void> {
  await sql`
    insert into site_scores (site_id, a11y, infosec, pagespeed, webstandard, overall, updated_at)
    select ${siteId}::int,
      avg(r.rating_a11y), avg(r.rating_infosec), avg(r.rating_pagespeed), avg(r.rating_webstandard),
      avg(nullif(r.rating, ${NOT_RATED})) filter (where r.rating >= 1),
      now()
    from latest_results l join test_results r on r.id = l.result_id
    where l.site_id = ${siteId}
    on conflict (site_id) do update set
      a11y = excluded.a11y, infosec = excluded.infosec, pagespeed = excluded.pagespeed,
      webstandard = excluded.webstandard, overall = excluded.overall, updated_at = now()
  `.execute(trx);
}

/** Averages of the latest site scores over the sites of each category the site belongs to. */
export async function refreshCategoryScores(trx: Trx | Db, siteId: number | null): Promise<void> {
  await sql`
    insert into category_scores (category_id, a11y, infosec, pagespeed, webstandard, overall, updated_at)
    select c.id, avg(s.a11y), avg(s.infosec), avg(s.pagespeed), avg(s.webstandard), avg(s.overall), now()
    from categories c
    left join site_categories sc on sc.category_id = c.id
    left join site_scores s on s.site_id = sc.site_id
    where ${siteId}::int is null or c.id in (select category_id from site_categories where site_id = ${siteId}::int)
    group by c.id
    -- Rows locked in one order by every save: two runs of sites in the same two categories, each
    -- locking them in the other's order, deadlocked (the scale bench saw it at 200 runners).
    order by c.id
    on conflict (category_id) do update set
      a11y = excluded.a11y, infosec = excluded.infosec, pagespeed = excluded.pagespeed,
      webstandard = excluded.webstandard, overall = excluded.overall, updated_at = now()
  `.execute(trx);
}
