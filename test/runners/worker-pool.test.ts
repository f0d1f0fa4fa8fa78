/**
 * The database pools the runner gives graphile-worker (runners/worker-schema.ts, workerPgPool):
 * a connection the database ends under an idle client (a PostgreSQL shutting down, a failover,
 * an operator's pg_terminate_backend) is logged, never an unheard 'error' event that ends the
 * process, and the pool goes on with a new connection. graphile-worker's own pools lose their
 * handlers when released, before they are ended: `npm start` stopping its embedded PostgreSQL
 * right after the runner was seen to die of it (test/runners/serve.test.ts, once in CI).
 */
import { sql } from '../../core/db/kysely.js';
import { Logger } from 'graphile-worker';
import t from 'tap';
import { workerPgPool } from '../../runners/worker-schema.js';
import { createTestDb } from '../helpers/db.js';

t.test('an idle connection ended by the database is logged and replaced, the process lives on', async (t) => {
  const { db, url } = await createTestDb(t);
  const errors: string[] = [];
  const logger = new Logger(() => (level, message) => {
    if (level === 'error') errors.push(message);
  });
  const pool = workerPgPool(url, 2, logger);
  t.teardown(() => pool.end());
  const client = await pool.connect();
  const pid = Number((await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid);
  client.release();
  t.equal(pool.idleCount, 1, 'one idle connection');
  const ended = await sql<{ ended: boolean }>`select pg_terminate_backend(${pid}) as ended`.execute(db);
  t.equal(ended.rows[0].ended, true, 'the database ended it');
  for (let i = 0; i < 200 && errors.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  t.strictSame(errors, ['runner: database client: terminating connection due to administrator command'], 'logged once');
  t.equal(pool.idleCount, 0, 'the ended connection left the pool');
  const again = await pool.query<{ n: number }>('select 1 as n');
  t.equal(again.rows[0].n, 1, 'the next query gets a new connection');
});
