/**
 * kysely, loaded from its CommonJS build. Its ES module build is 262 files, each resolved and
 * linked as a module of its own (under the tsx loader the project once ran on, 0.4 s of every
 * process start). The CommonJS build is the same code and loads as a few files. The project
 * imports kysely from here, never from 'kysely' directly (test/architecture.test.ts), so that one
 * copy of it is loaded.
 */
import { createRequire } from 'node:module';
import type * as K from 'kysely';

const kysely = createRequire(import.meta.url)('kysely') as typeof K;

export type * from 'kysely';
export const { sql, Kysely, CompiledQuery, PostgresDialect, Migrator } = kysely;
export type Kysely<DB> = K.Kysely<DB>;
export type CompiledQuery<O = unknown> = K.CompiledQuery<O>;
export type PostgresDialect = K.PostgresDialect;
export type Migrator = K.Migrator;
