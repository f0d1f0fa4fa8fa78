/**
 * A fresh database per test file, cloned from the migrated template that test/run.ts prepared.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, type Db } from '../../core/db/database.js';

export interface TestDb {
  db: Db;
  url: string;
  name: string;
}

function adminUrl(): string {
  const url = process.env.WEBPERF_TEST_ADMIN_URL;
  if (!url) throw new Error('Run the tests with `npm test` (it starts PostgreSQL and sets WEBPERF_TEST_ADMIN_URL)');
  return url;
}

export async function createTestDb(t: { teardown(fn: () => unknown): void }): Promise<TestDb> {
  const name = `webperf_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`create database ${name} template ${process.env.WEBPERF_TEST_TEMPLATE}`);
  await admin.end();
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  // A test file's own connections may wait for a loaded machine (3 test files at once, each with
  // its Chromium, on 2 cores: seen over 5 s); tests of the service's own limits set theirs.
  const db = createDb(u.href, { max: 20, connectTimeoutMs: 30_000 });
  t.teardown(async () => {
    await db.destroy();
    const a = new pg.Client({ connectionString: adminUrl() });
    await a.connect();
    await a.query(`drop database if exists ${name} with (force)`);
    await a.end();
  });
  return { db, url: u.href, name };
}
