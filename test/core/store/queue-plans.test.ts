/**
 * Queueing a run does not scan the job queue (migration 2026-11-25T00-00-00_queue-runs-plans):
 * with hundreds of jobs waiting and fresh statistics, each of eight calls of queue_runs on one
 * connection (PostgreSQL's first five custom plans and the cached generic plan after them) reads
 * graphile-worker's jobs table through its indexes only, as counted by PostgreSQL itself for the
 * calling backend (pg_stat_xact_user_tables, before and after the call), and still queues exactly one job per run.
 */
import { sql } from '../../../core/db/kysely.js';
import t from 'tap';
import { createDb } from '../../../core/db/database.js';
import { RUN_JOB, queueRun } from '../../../core/store/runs.js';
import { createTestDb } from '../../helpers/db.js';
import { seedSite } from '../../helpers/seed.js';

const { url } = await createTestDb(t);
// One connection: its cached plans are the ones every call after the fifth uses.
const db = createDb(url, { max: 1 });
t.teardown(() => db.destroy());

const jobsCount = async () =>
  Number((await sql<{ n: string }>`select count(*) as n from graphile_worker._private_jobs`.execute(db)).rows[0].n);

t.test('each run queued reads the jobs table without a sequential scan', async (t) => {
  const siteId = await seedSite(db, { title: 'Kökommun', url: 'https://kokommun.example/' });
  // A backlog: 400 jobs waiting (no runner here), and statistics that know it.
  await sql`select graphile_worker.add_jobs(array(
    select row(${RUN_JOB.task}::text, json_build_object('runId', -g), null::text, null::timestamptz, 1::smallint, null::text, 0::smallint, null::text[])::graphile_worker.job_spec
    from generate_series(1, 400) g))`.execute(db);
  await sql`analyze graphile_worker._private_jobs`.execute(db);
  t.equal(await jobsCount(), 400);

  const scans: number[] = [];
  const runIds: number[] = [];
  for (let call = 1; call <= 8; call++) {
    await db.transaction().execute(async (trx) => {
      // The backend's counts not yet reported (they may include earlier statements' scans), before and after.
      const seqScans = async () => Number((await sql<{ n: string }>`
        select seq_scan as n from pg_stat_xact_user_tables
        where schemaname = 'graphile_worker' and relname = '_private_jobs'`.execute(trx)).rows[0].n);
      const before = await seqScans();
      runIds.push(await queueRun(trx, { siteId, url: null, private: false, testTypes: [30] }));
      scans.push((await seqScans()) - before);
    });
  }
  t.strictSame(scans, [0, 0, 0, 0, 0, 0, 0, 0], 'no sequential scan of the jobs table in any call');
  t.equal(new Set(runIds).size, 8, 'eight runs');
  t.equal(await jobsCount(), 408, 'one job per run');
  const payloads = await sql<{ run_id: string }>`
    select payload->>'runId' as run_id from graphile_worker._private_jobs where (payload->>'runId')::bigint > 0 order by id`.execute(db);
  t.strictSame(payloads.rows.map((r) => Number(r.run_id)), runIds, 'each job names its run');
});
