/**
 * Real service processes for the chaos scenarios and their CI tests: `bin/webperf.js serve|api|runner`
 * as child processes on loopback, and small helpers to wait for what they do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../core/config.js';

export const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

export interface WebperfProcess {
  child: ChildProcess;
  pid: number;
  /** Everything it printed so far (stderr lines prefixed `stderr: `). */
  lines: string[];
  /** The API address it printed (serve, api), or null. */
  apiUrl: string | null;
  exited: Promise<number | null>;
  /** Resolves with the first line matching `re` (already printed or to come). */
  waitForLine(re: RegExp, ms: number): Promise<string>;
}

/** Starts `webperf <command>`; resolves once it has printed its last start line. */
export async function spawnWebperf(command: 'serve' | 'api' | 'runner', env: Record<string, string>, startMs = 300_000): Promise<WebperfProcess> {
  const child = spawn(process.execPath, [BIN, command], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (line: string) => void }[] = [];
  const add = (text: string) => {
    for (const line of text.split('\n').filter(Boolean)) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => add(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => add(chunk.toString().split('\n').filter(Boolean).map((l) => `stderr: ${l}`).join('\n')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForLine = (re: RegExp, ms: number) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find((l) => re.test(l));
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no line ${re} within ${ms} ms:\n${lines.slice(-30).join('\n')}`)), ms);
      waiters.push({ re, resolve: (line) => { clearTimeout(timer); resolve(line); } });
      void exited.then((code) => { clearTimeout(timer); reject(new Error(`webperf ${command} exited (${code}) before ${re}:\n${lines.slice(-30).join('\n')}`)); });
    });
  await waitForLine(/Ctrl-C stops everything/, startMs);
  const api = lines.map((l) => /API:\s+(http:\/\/\S+?)\/?$/.exec(l)?.[1]).find(Boolean) ?? null;
  return { child, pid: child.pid!, lines, apiUrl: api, exited, waitForLine };
}

/** Stops a process: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcess(p: WebperfProcess, graceMs = 25_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** Polls `probe` every 100 ms until it returns something truthy; rejects after `ms`. */
export async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    signal?.throwIfAborted();
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pid and port of the PostgreSQL running on the data folder `pgDir` (its postmaster.pid). */
export function postmasterOf(pgDir: string): { pid: number; port: number } {
  const lines = readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

/** The pids of `pid`'s children now (from /proc; empty where there is none). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Alive and not a zombie. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * `/health` at `url` asked again every 50 ms until it answers anything but 200 (or `giveUpMs`
 * pass): that answer, with `ms` counted from `since` (a performance.now() time, e.g. a kill). A
 * backend of a SIGKILLed postmaster can still answer a pooled connection for a moment, so the
 * first answer after a kill may honestly be 200; what counts is how soon 503 comes.
 */
export async function healthUntilDown(url: string, since: number, giveUpMs = 5_000): Promise<{ status: number; body: any; ms: number; error?: string; asked: number }> {
  for (let asked = 1; ; asked++) {
    const res = await timedFetch(url);
    const ms = performance.now() - since;
    if (res.status !== 200 || ms > giveUpMs) return { ...res, ms, asked };
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One timed HTTP request: status, parsed JSON body (or null) and milliseconds; never throws. */
export async function timedFetch(url: string, init: RequestInit = {}, timeoutMs = 10_000): Promise<{ status: number; body: any; ms: number; error?: string }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body, ms: performance.now() - t0 };
  } catch (err) {
    return { status: 0, body: null, ms: performance.now() - t0, error: err instanceof Error ? err.message : String(err) };
  }
}
