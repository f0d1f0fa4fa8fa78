/**
 * How `queue_runs` (and so every accepted order) plans its statements, graphile-worker's
 * `add_jobs` among them: generic plans, made once per connection, and no sequential scans.
 *
 * Measured (2026-11-25, `place_order` called directly, 3,000 accepted orders over 8 connections,
 * PostgreSQL's CPU from /proc): ~2.1–2.4 ms per accepted order before, ~1.15–1.25 ms after, with or
 * without fresh statistics. Where the time went, under `perf`:
 *
 * - `add_jobs` is called with one job spec per run and no job key. Its statements take their
 *   array argument as a parameter, so each custom plan knows the array's length and the generic
 *   plan guesses 10 elements; the custom plan always looked cheaper, so PostgreSQL planned its
 *   `insert ... on conflict` and its job-key `update` afresh on every call: a quarter of the
 *   database's CPU under load.
 * - That `update` (clear the key of a locked job with the same key) joins the specs to the jobs
 *   table on `key`. With 10 guessed specs a hash join over a sequential scan of the jobs table
 *   looks cheaper than 10 probes of its unique index on `key`, and once the plan is cached it
 *   scans the whole queue on every order (none of our specs has a key, so the scan finds
 *   nothing). The queue grows while orders arrive faster than runners drain it, so the cost of
 *   an order grew with the backlog: the wrong way round for a queue.
 *
 * `force_generic_plan` plans each statement once per connection; `enable_seqscan = off` makes
 * those plans reach the jobs (and the other tables the function touches: sites, test_runs, the
 * tasks and queues of graphile-worker) through their indexes, which every statement here has.
 * Both apply only while the function runs, and to what it calls (add_jobs, the foreign-key checks
 * of its inserts); nothing else in the database changes. graphile-worker's own functions are not
 * altered: its migrations own them.
 *
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

const QUEUE_RUNS = sql.raw('queue_runs(integer, bigint, jsonb, text, integer)');

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter function ${QUEUE_RUNS} set plan_cache_mode = force_generic_plan`.execute(db);
  await sql`alter function ${QUEUE_RUNS} set enable_seqscan = off`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter function ${QUEUE_RUNS} reset all`.execute(db);
}
