/**
 * The job-lock queries of the runners' supervision: a lost end's job is unlocked only under the
 * very lock of the run that ended, and a runner never takes its own workers for silent.
 */
import { sql } from '../../../core/db/kysely.js';
import t from 'tap';
import { addJob, beat, silentWorkerIds, unlockJobs } from '../../../core/store/jobs.js';
import { createTestDb } from '../../helpers/db.js';
import type { Db } from '../../../core/db/database.js';

async function jobRows(db: Db) {
  const { rows } = await sql<{ id: number; locked_by: string | null; locked_at: Date | null }>`select id, locked_by, locked_at from graphile_worker.jobs order by id`.execute(db);
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** Locks job `id` for `by`, `agoMs` ago (with microseconds, as graphile-worker's now() does). */
async function lock(db: Db, id: number, by: string, agoMs: number) {
  await sql`update graphile_worker._private_jobs set locked_by = ${by}, locked_at = now() - make_interval(secs => ${agoMs / 1000}::double precision) - interval '123 microseconds' where id = ${id}`.execute(db);
}

t.test('unlockJobs frees only the jobs still held under the given lock, by the given workers', async (t) => {
  const { db } = await createTestDb(t);
  for (const n of [1, 2, 3]) await addJob(db, { task: 'deliver_webhook', payload: { deliveryId: n } });
  await lock(db, 1, 'pool-a', 10_000);
  await lock(db, 2, 'pool-a', 10_000);
  await lock(db, 3, 'pool-b', 10_000);
  const [one, two, three] = await jobRows(db);
  // Job 2 was locked again since the end we know of: that older lock does not free it.
  const olderLock = new Date(two.locked_at!.getTime() - 5_000);
  t.same(await unlockJobs(db, [{ id: 1, lockedAt: one.locked_at! }, { id: 2, lockedAt: olderLock }, { id: 3, lockedAt: three.locked_at! }], ['pool-a']), [1], 'only job 1: job 2 under a later lock, job 3 held by another pool');
  t.same((await jobRows(db)).map((r) => [r.id, r.locked_by]), [[1, null], [2, 'pool-a'], [3, 'pool-b']]);
  t.same(await unlockJobs(db, [{ id: 3, lockedAt: three.locked_at! }], ['pool-b']), [3]);
  t.same(await unlockJobs(db, [], ['pool-a']), []);
});

t.test("a runner's own workers are never silent, even when its own beat looks stale", async (t) => {
  const { db } = await createTestDb(t);
  await addJob(db, { task: 'deliver_webhook', payload: { deliveryId: 1 } });
  await addJob(db, { task: 'deliver_webhook', payload: { deliveryId: 2 } });
  await lock(db, 1, 'pool-own', 10_000);
  await lock(db, 2, 'pool-dead', 10_000);
  await beat(db, { id: 'runner-own', workerIds: ['pool-own'], host: 'h', pid: 1 });
  await beat(db, { id: 'runner-dead', workerIds: ['pool-dead'], host: 'h', pid: 2 });
  // Both beats 5 s old: as a stall between a runner's beat and its check makes its own look.
  await sql`update runner_heartbeats set last_seen = now() - interval '5 seconds'`.execute(db);
  t.same(await silentWorkerIds(db, 3_000, ['pool-own']), ['pool-dead'], 'the asking runner is alive');
  t.same((await silentWorkerIds(db, 3_000)).sort(), ['pool-dead', 'pool-own'], 'asked by another runner, both are silent');
});
