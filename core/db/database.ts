/**
 * The kysely instance over pg. `Database` is generated from the migrated schema (schema.ts).
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { DB } from './schema.js';

export type Database = DB;
export type Db = Kysely<DB>;

// numeric and bigint come back as strings by default; ratings and ids are safe as numbers.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    // A dead server must not hang a health check forever.
    query_timeout: 30_000,
  });
  // An idle client losing its server (database restarted) must not crash the process.
  pool.on('error', () => {});
  // cursor: lets large reads (the agency CSV) stream with `.stream()` instead of loading every row.
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
}
