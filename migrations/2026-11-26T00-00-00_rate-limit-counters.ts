/**
 * The premium routes' rate limit, counted in the database that every API process shares, so that
 * two `webperf api` processes give a key one limit between them, not one each: a fixed window per
 * counter, opened at the database's clock, counted up by one statement per batch of requests.
 *
 * UNLOGGED: a count is written on every premium request, and an unlogged table writes no WAL for
 * it (WAL is what a busy PostgreSQL spends most on per write, and what it ships to standbys). The
 * price is acceptable for a count that lives a minute: after a crash of PostgreSQL the table comes
 * back empty (every key starts a fresh window), and a standby has no counts, so a failover does the
 * same. Nothing else depends on these rows.
 *
 * fillfactor 50: each request updates its counter's row; room on the page lets PostgreSQL make
 * that a HOT update (the key, the one indexed column, never changes), so the primary key index
 * does not grow with every request and old row versions are pruned on the page.
 *
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create unlogged table rate_limit_counters (
      -- The SHA-256 of the counter's name (a key's id or a client address): never a key.
      key bytea primary key check (octet_length(key) = 32),
      -- When the counter's window opened (now() of the statement that opened it).
      window_start timestamptz not null,
      -- Requests counted in that window.
      count integer not null check (count > 0)
    ) with (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_counters').execute();
}
