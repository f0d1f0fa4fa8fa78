/**
 * Enqueues graphile-worker jobs with SQL inside the caller's transaction, so that an order's rows
 * and its job commit together (core does not import graphile-worker).
 */
import { sql, type Kysely } from '../db/kysely.js';

export interface JobSpec {
  task: string;
  payload: Record<string, unknown>;
  jobKey?: string;
  maxAttempts?: number;
  priority?: number;
}

export async function addJob(db: Kysely<any>, job: JobSpec): Promise<void> {
  await sql`select graphile_worker.add_job(
    ${job.task}::text,
    ${JSON.stringify(job.payload)}::json,
    job_key := ${job.jobKey ?? null}::text,
    max_attempts := ${job.maxAttempts ?? 2}::int,
    priority := ${job.priority ?? 0}::int
  )`.execute(db);
}

/** Records that a runner is alive, with the worker ids that lock its jobs. */
export async function beat(db: Kysely<any>, runner: { id: string; workerIds: readonly string[]; host: string; pid: number }): Promise<void> {
  await sql`insert into runner_heartbeats (runner_id, worker_ids, host, pid)
    values (${runner.id}, ${[...runner.workerIds]}::text[], ${runner.host}, ${runner.pid})
    on conflict (runner_id) do update set worker_ids = excluded.worker_ids, last_seen = now()`.execute(db);
}

/** A runner stopping cleanly leaves no heartbeat behind. */
export async function forgetRunner(db: Kysely<any>, runnerId: string): Promise<void> {
  await sql`delete from runner_heartbeats where runner_id = ${runnerId}`.execute(db);
}

/**
 * Worker ids holding job locks although no runner has announced them for `staleMs`: their runner
 * died. A lock younger than `staleMs` is left alone, so a runner that has just started and not
 * yet announced its workers is never mistaken for a dead one. Old heartbeats are forgotten.
 * `own`, the asking runner's worker ids, are never silent: it is alive, although a stall of its
 * event loop between its beat and this query (seen for seconds at load ~14, while a job loads its
 * modules and Chromium) can make its own beat look older than `staleMs`; it would otherwise
 * unlock, and give an attempt back to, the job it is running.
 */
export async function silentWorkerIds(db: Kysely<any>, staleMs: number, own: readonly string[] = []): Promise<string[]> {
  const stale = sql`now() - make_interval(secs => ${staleMs / 1000}::double precision)`;
  await sql`delete from runner_heartbeats where last_seen < ${stale}`.execute(db);
  const { rows } = await sql<{ locked_by: string }>`
    select distinct j.locked_by from graphile_worker.jobs j
    where j.locked_by is not null and j.locked_at < ${stale}
      and not (j.locked_by = any(${[...own]}::text[]))
      and not exists (select 1 from runner_heartbeats h where j.locked_by = any(h.worker_ids))
  `.execute(db);
  return rows.map((r) => r.locked_by);
}

/** A job whose runner died is given back the attempt it lost at most this many times in all. */
export const CRASH_ATTEMPTS_CEILING = 10;

/** The ids of the jobs that `workerIds` hold locked. */
export async function jobsLockedBy(db: Kysely<any>, workerIds: readonly string[]): Promise<number[]> {
  const { rows } = await sql<{ id: string | number }>`select id from graphile_worker.jobs where locked_by = any(${[...workerIds]}::text[])`.execute(db);
  return rows.map((r) => Number(r.id));
}

/**
 * Gives the unlocked jobs of a dead runner back the attempt its death cost them, when that was
 * their last: a runner killed on a job's last attempt would otherwise leave the job unrunnable
 * and its run open for ever, although the job itself never failed. Bounded by
 * CRASH_ATTEMPTS_CEILING, so that a page that kills every runner that loads it is not retried
 * without end. Returns how many jobs got an attempt back.
 */
export async function restoreCrashedAttempts(db: Kysely<any>, jobIds: readonly number[]): Promise<number> {
  if (jobIds.length === 0) return 0;
  const { rows } = await sql<{ id: string }>`
    select (graphile_worker.reschedule_jobs(array[j.id], max_attempts := j.attempts + 1)).id
    from graphile_worker.jobs j
    where j.id = any(${[...jobIds]}::bigint[]) and j.locked_by is null
      and j.attempts >= j.max_attempts and j.attempts < ${CRASH_ATTEMPTS_CEILING}
  `.execute(db);
  return rows.length;
}

/**
 * Unlocks each job if `lockedBy` still holds it with the lock taken at `lockedAt` (and its queue,
 * should it have one), leaving the other jobs of the same worker pool alone: its other workers
 * are running them. For a live runner whose record of a job's end was lost (graphile-worker's
 * forceUnlockWorkers would unlock the whole pool). The lock's time tells that lock from a later
 * one of the same job (taken again after its end was recorded after all); it is compared within
 * 2 ms (a JavaScript Date holds milliseconds, PostgreSQL microseconds; no job runs twice that
 * fast). Returns the ids unlocked.
 */
export async function unlockJobs(db: Kysely<any>, jobs: readonly { id: number; lockedAt: Date }[], lockedBy: readonly string[]): Promise<number[]> {
  if (jobs.length === 0 || lockedBy.length === 0) return [];
  const { rows } = await sql<{ id: string | number }>`
    with lost as (
      select * from unnest(${jobs.map((j) => j.id)}::bigint[], ${jobs.map((j) => j.lockedAt.toISOString())}::timestamptz[]) as l(id, locked_at)
    ), j as (
      update graphile_worker._private_jobs p set locked_by = null, locked_at = null
      from lost
      where p.id = lost.id and p.locked_by = any(${[...lockedBy]}::text[])
        and abs(extract(epoch from p.locked_at - lost.locked_at)) < 0.002
      returning p.id, p.job_queue_id
    ), q as (
      update graphile_worker._private_job_queues set locked_by = null, locked_at = null
      where id in (select job_queue_id from j) and locked_by = any(${[...lockedBy]}::text[])
    )
    select id from j order by id
  `.execute(db);
  return rows.map((r) => Number(r.id));
}
