/**
 * Zonemaster's command line as a subprocess (Debian's `zonemaster-cli`, engine 4.6): one run per
 * zone, its entries read from `--json-stream` (one JSON object per line, so the output is read as
 * it comes and bounded), at level INFO and up, IPv4 only (as upstream runs it), from the root hints
 * the operator gives (WEBPERF_DNS_ROOT_HINTS; the test world's own root) or Zonemaster's built-in
 * real root servers. The run is bounded in time and output and ended (SIGKILL) on abort, so a
 * hostile or huge zone cannot stall a runner. Then the entries worth reporting and the test cases'
 * names are translated by Zonemaster's own translator (translate.pl, one short Perl process: its
 * message catalogues in Swedish and English).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ComponentUnavailable } from '../../core/plugin-api.js';

export const ZONEMASTER_CLI = 'zonemaster-cli';
/** More output than any real zone gives at level INFO (a large zone gives some hundred kB). */
export const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const TRANSLATE_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'translate.pl');

export type Level = 'CRITICAL' | 'ERROR' | 'WARNING' | 'NOTICE' | 'INFO' | 'DEBUG';

/** One message of Zonemaster's, as its JSON stream gives it. */
export interface ZonemasterEntry {
  module: string;
  testcase: string;
  tag: string;
  level: Level;
  args: Record<string, unknown>;
  timestamp: number;
}

export interface ZonemasterSettings {
  /** The program: a path, or a name looked up on PATH (default `zonemaster-cli`). */
  cli: string;
  /** A root hints file; null: Zonemaster's own (the real root servers). */
  hints: string | null;
  timeoutMs: number;
}

/** The settings from the environment (WEBPERF_ZONEMASTER_CLI, WEBPERF_DNS_ROOT_HINTS), read when a run starts. */
export function settingsFromEnv(env: NodeJS.ProcessEnv, timeoutMs: number): ZonemasterSettings {
  return { cli: env.WEBPERF_ZONEMASTER_CLI || ZONEMASTER_CLI, hints: env.WEBPERF_DNS_ROOT_HINTS ? path.resolve(env.WEBPERF_DNS_ROOT_HINTS) : null, timeoutMs };
}

/** The program's path, or null when it is not installed (not on PATH, or not executable). */
export function findProgram(program: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return executable(program) ? path.resolve(program) : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, program))) return path.join(dir, program);
  }
  return null;
}

/** The program's path; throws ComponentUnavailable when this runner has none. */
export function zonemasterProgram(settings: ZonemasterSettings): string {
  const found = findProgram(settings.cli);
  if (!found) throw new ComponentUnavailable(ZONEMASTER_CLI, settings.cli.includes('/') ? `${settings.cli} is not an executable program` : `${settings.cli} is not on the PATH`);
  return found;
}

interface Finished {
  stdout: Buffer;
  stderr: string;
  code: number | null;
}

/**
 * Runs a program to its end: its output at most `maxBytes` (more ends it), `timeoutMs` (ends it),
 * the signal (ends it). Killed with SIGKILL, its own process group too, so nothing it started lives on.
 */
function runBounded(program: string, args: string[], options: { input?: string; timeoutMs: number; maxBytes: number; signal: AbortSignal; env?: NodeJS.ProcessEnv }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    options.signal.throwIfAborted();
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: options.env ?? process.env });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    let ended: Error | null = null;
    const end = (why: Error) => {
      if (ended) return;
      ended = why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => end(new Error(`${path.basename(program)} took longer than ${options.timeoutMs} ms`)), options.timeoutMs);
    const onAbort = () => end(options.signal.reason instanceof Error ? options.signal.reason : new Error(String(options.signal.reason)));
    options.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > options.maxBytes) return end(new Error(`${path.basename(program)} wrote more than ${options.maxBytes} bytes`));
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
    child.on('error', (err) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      if (ended) reject(ended);
      else resolve({ stdout: Buffer.concat(chunks), stderr, code });
    });
  });
}

const LEVELS = new Set<string>(['CRITICAL', 'ERROR', 'WARNING', 'NOTICE', 'INFO', 'DEBUG']);

/** The entries of a `--json-stream` output; a line that is not an entry is skipped. */
export function parseStream(output: string): ZonemasterEntry[] {
  const entries: ZonemasterEntry[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const level = String(raw.level ?? '').toUpperCase();
    if (typeof raw.tag !== 'string' || !LEVELS.has(level)) continue;
    entries.push({
      module: String(raw.module ?? '').toUpperCase(),
      testcase: String(raw.testcase ?? '').toUpperCase(),
      tag: raw.tag,
      level: level as Level,
      args: raw.args && typeof raw.args === 'object' ? (raw.args as Record<string, unknown>) : {},
      timestamp: typeof raw.timestamp === 'number' ? raw.timestamp : 0,
    });
  }
  return entries;
}

export interface ZonemasterRun {
  entries: ZonemasterEntry[];
  /** The engine's version (its GLOBAL_VERSION entry). */
  version: string | null;
  elapsedMs: number;
}

/** Zonemaster's run over `zone`, every entry at level INFO and up (`program`: its path, when already found). */
export async function runZonemaster(zone: string, settings: ZonemasterSettings, signal: AbortSignal, program = zonemasterProgram(settings)): Promise<ZonemasterRun> {
  const args = ['--json-stream', '--level', 'INFO', '--show-testcase', '--no-ipv6', '--no-progress', ...(settings.hints ? ['--hints', settings.hints] : []), zone];
  const started = performance.now();
  const run = await runBounded(program, args, { timeoutMs: settings.timeoutMs, maxBytes: MAX_OUTPUT_BYTES, signal });
  const entries = parseStream(run.stdout.toString('utf8'));
  if (entries.length === 0) {
    throw new Error(`${ZONEMASTER_CLI} gave no result (exit code ${run.code})${run.stderr ? `: ${run.stderr.trim().split('\n')[0]}` : ''}`);
  }
  const version = entries.find((e) => e.tag === 'GLOBAL_VERSION')?.args.version;
  return { entries, version: typeof version === 'string' ? version : null, elapsedMs: Math.round(performance.now() - started) };
}

export interface Translations {
  /** Per language: each entry's message, in the order asked. */
  messages: Record<'sv' | 'en', string[]>;
  /** Per language: each test case's name (CONSISTENCY01 → "SOA serial number consistency"). */
  testcases: Record<'sv' | 'en', Record<string, string>>;
}

/** Zonemaster's own Swedish and English for these entries and test cases; null when its translator cannot run. */
export async function translate(entries: readonly ZonemasterEntry[], testcases: readonly string[], signal: AbortSignal): Promise<Translations | null> {
  const input = JSON.stringify({
    languages: ['sv', 'en'],
    entries: entries.map((e) => ({ module: e.module, testcase: e.testcase, tag: e.tag, args: e.args })),
    testcases,
  });
  try {
    const run = await runBounded('perl', [TRANSLATE_SCRIPT], { input, timeoutMs: 10_000, maxBytes: MAX_OUTPUT_BYTES, signal, env: { ...process.env, LANGUAGE: '' } });
    const out = JSON.parse(run.stdout.toString('utf8')) as Record<'sv' | 'en', { messages: (string | null)[]; testcases: Record<string, string | null> }>;
    const pick = (lang: 'sv' | 'en') => entries.map((e, i) => out[lang]?.messages?.[i] ?? e.tag);
    const names = (lang: 'sv' | 'en') => Object.fromEntries(testcases.map((id) => [id, out[lang]?.testcases?.[id] ?? id]));
    return { messages: { sv: pick('sv'), en: pick('en') }, testcases: { sv: names('sv'), en: names('en') } };
  } catch {
    signal.throwIfAborted();
    return null;
  }
}
