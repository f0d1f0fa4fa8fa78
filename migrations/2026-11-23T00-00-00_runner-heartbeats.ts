/**
 * Runner heartbeats: each runner process writes its graphile-worker worker ids and the time it was
 * last alive, so that the jobs of a runner gone silent (SIGKILL, power loss) can be unlocked long
 * before graphile-worker's own 4-hour lock expiry. Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runner_heartbeats')
    .addColumn('runner_id', 'text', (c) => c.primaryKey())
    /** The graphile-worker worker ids of this runner (jobs.locked_by). */
    .addColumn('worker_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('runner_heartbeats').execute();
}
