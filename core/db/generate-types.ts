/**
 * Generates core/db/schema.ts (the kysely `Database` type) from the migrated schema, or with
 * --verify fails when the checked-in file has drifted. Uses DATABASE_URL's server when set (a
 * scratch database is created beside it), else an embedded PostgreSQL in a temporary folder.
 *
 *   npm run db:types            regenerate
 *   npm run db:types -- --verify  check (CI)
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.js';
import { createDb } from './database.js';
import { ensureDatabase, startEmbeddedPostgres } from './embedded.js';
import { migrateToLatest } from './migrate.js';

export async function generateTypes(url: string, verify: boolean): Promise<void> {
  const db = createDb(url, { max: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  const bin = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'kysely-codegen');
  execFileSync(bin, ['--config-file', path.join(PROJECT_ROOT, '.kysely-codegenrc.json'), '--url', url, ...(verify ? ['--verify'] : [])], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
  });
}

async function main(): Promise<void> {
  const verify = process.argv.includes('--verify');
  const name = `webperf_types_${process.pid}`;
  if (process.env.DATABASE_URL) {
    const admin = new URL(process.env.DATABASE_URL);
    admin.pathname = '/postgres';
    await ensureDatabase(admin.href, name);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    await generateTypes(url.href, verify);
    return;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-types-'));
  const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), { fast: true });
  try {
    await ensureDatabase(pg.adminUrl, name);
    await generateTypes(pg.urlFor(name), verify);
  } finally {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
