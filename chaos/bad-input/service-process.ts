/**
 * Starts the real API as a child process (chaos/bad-input/api-process.ts) over a given database, and a
 * throw-away embedded PostgreSQL for chaos runs that have none. Everything listens on loopback.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteTableEntry } from '../../api/context.js';
import { ensureDatabase, startEmbeddedPostgres } from '../../core/db/embedded.js';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'api-process.js');

/** Memory of the API process after a full garbage collection. */
export interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export interface ApiProcess {
  url: string;
  port: number;
  pid: number;
  /** Every route of the running application (its route table), documented or not. */
  routes: RouteTableEntry[];
  memory(): Promise<Memory>;
  /** True while the process runs. */
  alive(): boolean;
  /** Error lines the API logged (5xx causes), newest last. */
  errors: string[];
  stop(): Promise<void>;
}

/** Starts the API process; `env` adds settings (WEBPERF_RATE_LIMIT, WEBPERF_HTTP_* …). */
export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const child: ChildProcess = fork(ENTRY, [], {
    execArgv: ['--expose-gc', '--enable-source-maps'],
    env: {
      ...process.env,
      NODE_ENV: 'chaos',
      LOG_LEVEL: 'error',
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      WEBPERF_DEMO: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const errors: string[] = [];
  let tail = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    tail += chunk.toString();
    const lines = tail.split('\n');
    tail = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) errors.push(line.slice(0, 2000));
    if (errors.length > 50) errors.splice(0, errors.length - 50);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const ready = await new Promise<{ url: string; routes: RouteTableEntry[] }>((resolve, reject) => {
    const onMessage = (msg: { type?: string; url?: string; routes?: RouteTableEntry[] }) => {
      if (msg.type === 'ready' && msg.url) {
        child.off('exit', onExit);
        resolve({ url: msg.url, routes: msg.routes ?? [] });
      }
    };
    const onExit = (code: number | null) => reject(new Error(`the API process exited (${code}) before it listened`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
  const memory = async (): Promise<Memory> => {
    const answer = new Promise<Memory>((resolve) => {
      const onMessage = (msg: { type?: string } & Partial<Memory>) => {
        if (msg.type !== 'memory') return;
        child.off('message', onMessage);
        resolve({ rss: msg.rss ?? 0, heapUsed: msg.heapUsed ?? 0, heapTotal: msg.heapTotal ?? 0, external: msg.external ?? 0, arrayBuffers: msg.arrayBuffers ?? 0 });
      };
      child.on('message', onMessage);
    });
    child.send({ type: 'memory' });
    return answer;
  };
  return {
    url: ready.url,
    port: Number(new URL(ready.url).port),
    pid: child.pid ?? 0,
    routes: ready.routes,
    memory,
    alive: () => !exited,
    errors,
    stop: async () => {
      if (exited) return;
      const gone = once(child, 'exit');
      child.send({ type: 'stop' });
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(force);
    },
  };
}

/** A throw-away embedded PostgreSQL with one empty database (the API process migrates it). */
export async function startScratchDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'webperf-chaos-'));
  const pg = await startEmbeddedPostgres(path.join(tmp, 'pg'), { fast: true });
  await ensureDatabase(pg.adminUrl, 'webperf');
  return {
    url: pg.urlFor('webperf'),
    stop: async () => {
      await pg.stop();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}
