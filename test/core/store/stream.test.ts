/**
 * Streamed reads (kysely's `.stream()` over pg-cursor, as the agency CSV reads its chunks) against
 * a real PostgreSQL, with a short query timeout: a slow consumer gets every row however long the
 * stream lasts, a finished stream leaves no timer behind, and one read without an answer in time
 * fails with "Query read timeout" without spoiling the pool.
 */
import { sql } from '../../../core/db/kysely.js';
import t from 'tap';
import { createDb } from '../../../core/db/database.js';
import { createTestDb } from '../../helpers/db.js';

// Long enough that a read of a loaded machine (four test files at once on two cores) is answered
// in time: at 300 ms, one cursor read of the fresh-clone CI run of 3996bd5 was not.
const TIMEOUT_MS = 1_500;
const { url } = await createTestDb(t);
const db = createDb(url, { max: 2, queryTimeoutMs: TIMEOUT_MS });
t.teardown(() => db.destroy());

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
// Both pool connections open and idle first (each idle one has the pool's idle timer).
await Promise.all([1, 2].map(() => sql`select pg_sleep(0.05)`.execute(db)));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a consumer slower than the query timeout still gets every row', async (t) => {
  const before = timers();
  const seen: number[] = [];
  for await (const row of db.selectNoFrom(sql<number>`generate_series(1, 100)`.as('n')).stream(10)) {
    seen.push(row.n);
    // The stream outlives the timeout several times over, as a CSV read by a slow client does.
    if (row.n % 25 === 1) await pause(TIMEOUT_MS * 1.5);
  }
  t.strictSame(seen, Array.from({ length: 100 }, (_, i) => i + 1));
  t.equal(timers(), before, 'the finished stream left no timer behind');
});

t.test('a stream left early leaves no timer behind either', async (t) => {
  const before = timers();
  for await (const row of db.selectNoFrom(sql<number>`generate_series(1, 100)`.as('n')).stream(10)) {
    if (row.n === 3) break;
  }
  t.equal(timers(), before);
});

t.test('a read without an answer within the timeout fails; the pool goes on', async (t) => {
  const seen: number[] = [];
  const stalled = (async () => {
    const rows = db
      .selectNoFrom([sql<number>`n`.as('n'), sql`pg_sleep(case when n = 3 then ${(TIMEOUT_MS * 4) / 1000}::float8 else 0 end)`.as('slept')])
      .$call((qb) => qb)
      .modifyEnd(sql`from generate_series(1, 5) as n`)
      .stream(1);
    for await (const row of rows) seen.push(row.n);
  })();
  await t.rejects(stalled, { message: 'Query read timeout' });
  t.strictSame(seen, [1, 2], 'the rows before the stalled read arrived');
  const after = await Promise.all([1, 2, 3].map((n) => sql<{ n: number }>`select ${n}::int as n`.execute(db)));
  t.strictSame(after.map((r) => r.rows[0].n), [1, 2, 3], 'later queries are answered');
});
