/**
 * `webperf users add` prints a one-time link to the service people reach: WEBPERF_PUBLIC_URL if
 * set, else the address the running service announced in the data folder, else the configured
 * HOST and PORT; and it says which it used. The real CLI in its own process where what it finds
 * in the data folder is the point (no service, a crashed service's announcement, a running
 * service's), else the same command in this process (test/helpers/operator.ts); a real service
 * listening on a port of its own (not the configured one), a real PostgreSQL.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { PROJECT_ROOT, loadConfig } from '../../core/config.js';
import { ADDRESS_FILE } from '../../runners/service-address.js';
import { startService } from '../../runners/service.js';
import { createTestDb } from '../helpers/db.js';
import { operator } from '../helpers/operator.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

const { db, url } = await createTestDb(t);
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-users-link-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));
const siteId = (await db.insertInto('sites').values({ title: 'Länkby', url: 'https://lankby.example/' }).returning('id').executeTakeFirstOrThrow()).id;

let n = 0;
/**
 * `webperf users add` for a new account (configured port 3999): as the operator runs it, the real
 * CLI in its own process, with `spawned`; else in this process. A failure (exit code not 0) throws.
 */
async function usersAdd(env: Record<string, string> = {}, json = false, spawned = false) {
  const email = `user${++n}@example.org`;
  const args = ['users', 'add', '--email', email, '--site', String(siteId), ...(json ? ['--json'] : [])];
  const settings = { DATABASE_URL: url, WEBPERF_DEMO: '0', WEBPERF_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '3999', ...env };
  if (!spawned) {
    // Not inherited: WEBPERF_PUBLIC_URL unless given.
    const res = await operator({ WEBPERF_PUBLIC_URL: undefined, ...settings }, ...args);
    if (res.code !== 0) throw new Error(`webperf users add: exit code ${res.code}: ${res.stderr}`);
    return { stdout: res.stdout, stderr: res.stderr, email };
  }
  const inherited = { ...process.env };
  for (const name of ['WEBPERF_PUBLIC_URL', 'HOST', 'PORT']) delete inherited[name];
  const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...inherited, ...settings }, timeout: 120_000 });
  return { stdout, stderr, email };
}

const TOKEN = '[A-Za-z0-9_-]{43}';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The three lines `users add` prints, the link starting with `base`. */
function expectLines(t: Test, stdout: string, email: string, base: string, note: string) {
  const re = new RegExp(
    `^user (\\d+) created: ${escape(email)} \\(standard, site ${siteId}\\)\\nSet the password \\(one-time link, valid 72 h\\): (${escape(base)}/portal/set-password\\?token=${TOKEN})\\n${escape(note)}\\n$`,
  );
  t.match(stdout, re, 'the account, the link and where its address came from');
  return re.exec(stdout)?.[2] ?? '';
}

const CONFIGURED_NOTE = `The link uses the configured address (HOST and PORT): no running service announced one in ${dataDir}; set WEBPERF_PUBLIC_URL to give the address people reach it at.`;

t.test('no service running: the configured address, and a crashed service\'s announcement is ignored', async (t) => {
  const plain = await usersAdd({}, false, true);
  expectLines(t, plain.stdout, plain.email, 'http://127.0.0.1:3999', CONFIGURED_NOTE);
  t.equal(plain.stderr, '');

  // A service killed without stopping leaves its file; its pid is gone.
  const { stdout: deadPid } = await run(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  writeFileSync(path.join(dataDir, ADDRESS_FILE), JSON.stringify({ pid: Number(deadPid), url: 'http://127.0.0.1:1' }) + '\n');
  const stale = await usersAdd({}, true, true);
  const out = JSON.parse(stale.stdout);
  t.match(out.password_link, new RegExp(`^http://127\\.0\\.0\\.1:3999/portal/set-password\\?token=${TOKEN}$`));
  t.equal(out.link_base, 'configured');
  await rm(path.join(dataDir, ADDRESS_FILE));
});

t.test('a running service: the address it announced, unless WEBPERF_PUBLIC_URL is set; gone when it stops', async (t) => {
  const config = loadConfig({ NODE_ENV: 'test' }, { databaseUrl: url, dataDir, host: '127.0.0.1', port: 0, demo: false, rateLimitPerMinute: 0 });
  const service = await startService(config, { api: true, runner: false });
  let stopped = false;
  t.teardown(() => (stopped ? undefined : service.stop()));
  const api = service.apiUrl!;
  t.notMatch(api, /:3999$/, 'the service listens elsewhere than the configured port');
  t.strictSame(JSON.parse(await readFile(path.join(dataDir, ADDRESS_FILE), 'utf8')), { pid: process.pid, url: api }, 'announced in the data folder');

  const running = await usersAdd({}, false, true);
  const link = expectLines(
    t,
    running.stdout,
    running.email,
    api,
    `The link uses the address of the running service (pid ${process.pid}); set WEBPERF_PUBLIC_URL to give the address people reach it at.`,
  );
  const page = await fetch(link);
  t.equal(page.status, 200, 'the link opens the running service\'s set-password page');
  t.match(await page.text(), /name="password"/);
  const json = JSON.parse((await usersAdd({}, true)).stdout);
  t.equal(json.link_base, 'running-service');
  t.ok(json.password_link.startsWith(`${api}/portal/set-password?token=`));

  const pub = await usersAdd({ WEBPERF_PUBLIC_URL: 'https://webperf.example.org' });
  expectLines(t, pub.stdout, pub.email, 'https://webperf.example.org', 'The link uses WEBPERF_PUBLIC_URL.');
  t.equal(JSON.parse((await usersAdd({ WEBPERF_PUBLIC_URL: 'https://webperf.example.org' }, true)).stdout).link_base, 'public-url');

  await service.stop();
  stopped = true;
  t.notOk(existsSync(path.join(dataDir, ADDRESS_FILE)), 'the announcement is removed when the service stops');
  const after = await usersAdd();
  expectLines(t, after.stdout, after.email, 'http://127.0.0.1:3999', CONFIGURED_NOTE);
});
