/**
 * Enqueues graphile-worker jobs with SQL inside the caller's transaction, so that an order's rows
 * and its job commit together (core does not import graphile-worker).
 */
import { sql, type Kysely } from 'kysely';

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
