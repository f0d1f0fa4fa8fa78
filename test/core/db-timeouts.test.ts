/**
 * A connection whose query ran out of time on the client side is destroyed, not handed to the next
 * user (core/db/database.ts releasingTimedOut): the server may still be running that statement
 * inside a transaction whose ROLLBACK could not end in time either, and the next user's COMMIT
 * would commit the abandoned writes. Found by the scale bench at 400 runners (a run's results
 * stored twice); shown here with one connection, a real PostgreSQL and pg_sleep.
 */
import t from 'tap';
import { createDb } from '../../core/db/database.js';
import { sql } from '../../core/db/kysely.js';
import { createTestDb } from '../helpers/db.js';

t.test('a transaction abandoned at its timeout is never committed by the next user of the pool', async (t) => {
  const { url } = await createTestDb(t);
  const db = createDb(url, { max: 1, queryTimeoutMs: 300 });
  t.teardown(() => db.destroy());
  await sql`create table abandoned (n int)`.execute(db);
  const pid = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0].pid;
  const first = await pid();
  await t.rejects(
    db.transaction().execute(async (trx) => {
      await sql`insert into abandoned values (1)`.execute(trx);
      // Longer than the client waits: the server goes on with it after the client gave up.
      await sql`select pg_sleep(1)`.execute(trx);
    }),
    { message: /Query read timeout/ },
  );
  // The pool's one connection is taken at once by the next transaction, which commits.
  await db.transaction().execute(async (trx) => {
    await sql`insert into abandoned values (2)`.execute(trx);
  });
  t.not(await pid(), first, 'the connection that timed out was not reused');
  // Once the server has seen the abandoned connection go (after its sleep), only the second row is there.
  await new Promise((r) => setTimeout(r, 1_500));
  t.strictSame((await sql<{ n: number }>`select n from abandoned order by n`.execute(db)).rows, [{ n: 2 }], 'the abandoned insert was rolled back');
});
