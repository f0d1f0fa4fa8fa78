/**
 * Rate-limit counters in the database (table rate_limit_counters), shared by every API process:
 * fixed windows opened and judged by the database's clock, so processes on machines whose clocks
 * disagree still agree on a window. A counter is named by the SHA-256 of its name (a key's id or a
 * client address), never by anything the caller sent.
 */
import { createHash } from 'node:crypto';
import { sql } from '../db/kysely.js';
import { executePrepared, type Db, type PreparedStatement } from '../db/database.js';

/** The table's name of a counter: the SHA-256 of its name (32 bytes). */
export function counterDigest(name: string): Buffer {
  return createHash('sha256').update(name).digest();
}

/** Requests to add to one counter. */
export interface CounterIncrement {
  key: Buffer;
  by: number;
}

/** A counter after an increment. */
export interface CounterState {
  key: Buffer;
  /** Requests counted in its window, those just added included. */
  count: number;
  /** Milliseconds since its window opened, by the database's clock. */
  ageMs: number;
}

/**
 * One statement for a batch of counters, prepared once per connection. Each counter's row is
 * locked by the upsert, so racing statements (another process, another batch) add up, never
 * overwrite: the count a statement returns includes every request counted before it. A window
 * that has run out restarts at the requests of this statement. The rows are written in key order
 * so that two batches over the same keys lock them in the same order and cannot deadlock.
 *
 * Times are the statement's start (now()). A statement that waited for another's lock on a row
 * that one had just inserted finds the window opened after its own start: its age is then 0, not
 * below (which gave a window longer than its length, seen under load with two processes).
 */
const INCREMENT: PreparedStatement = {
  name: 'webperf_rate_limit_increment_2',
  text: `
    insert into rate_limit_counters as c (key, window_start, count)
    select i.key, now(), i.by from unnest($1::bytea[], $2::int[]) as i(key, by) order by i.key
    on conflict (key) do update set
      count = case when c.window_start + $3::int * interval '1 millisecond' <= now() then excluded.count else c.count + excluded.count end,
      window_start = case when c.window_start + $3::int * interval '1 millisecond' <= now() then now() else c.window_start end
    returning c.key, c.count, greatest(0, extract(epoch from now() - c.window_start)::float8 * 1000) as age_ms`,
};

/** Adds each increment to its counter's window of `windowMs` (keys distinct); the counters after it, in no particular order. */
export async function incrementCounters(db: Db, increments: readonly CounterIncrement[], windowMs: number): Promise<CounterState[]> {
  const rows = await executePrepared<{ key: Buffer; count: number; age_ms: number }>(db, INCREMENT, [
    increments.map((i) => i.key),
    increments.map((i) => i.by),
    windowMs,
  ]);
  return rows.map((r) => ({ key: r.key, count: r.count, ageMs: r.age_ms }));
}

/** Deletes the counters whose window has run out (the next request opens a new one anyway); how many. */
export async function sweepCounters(db: Db, windowMs: number): Promise<number> {
  const res = await sql`
    delete from rate_limit_counters where window_start + ${windowMs}::int * interval '1 millisecond' <= now()`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}
