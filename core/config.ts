/**
 * Configuration, read and validated once at start-up from the environment, then passed down.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The service's configuration. */
export interface Config {
  env: string;
  host: string;
  port: number;
  /** Null: start an embedded PostgreSQL in dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  chromiumPath: string | null;
  /** CIDRs or host names the target guard lets through although private or loopback. */
  allowTargets: string[];
  /** npm package names (or paths) of third-party plugins. */
  plugins: string[];
  concurrency: number;
  /** Hard time limit of one test job. */
  jobTimeoutMs: number;
  /** How often a runner announces that it is alive. */
  heartbeatMs: number;
  /** A runner silent this long is taken for dead and its jobs are unlocked. */
  staleAfterMs: number;
  logLevel: string;
  /** Serve and test the bundled demo site at start. */
  demo: boolean;
  /** Public base URL used in `uri` fields; defaults to http://host:port. */
  publicUrl: string | null;
  /** Largest LIX text accepted, in bytes. */
  lixMaxBytes: number;
  /** Requests per minute and key on premium routes. */
  rateLimitPerMinute: number;
  /** Chrome UX Report API key for the audits' field data; null: crux_summary.json says it is not available. */
  cruxApiKey: string | null;
  /** The CrUX API's queryRecord address (configurable so that a test can serve it from loopback). */
  cruxEndpoint: string;
}

/** Google's Chrome UX Report API (records:queryRecord). */
export const CRUX_ENDPOINT = 'https://chromeuxreport.googleapis.com/v1/records:queryRecord';

const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export function findChromium(explicit?: string): string | null {
  if (explicit) return existsSync(explicit) ? explicit : null;
  return CHROMIUM_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const config: Config = {
    env: env.NODE_ENV ?? 'development',
    host: env.HOST ?? '127.0.0.1',
    port: int(env.PORT, 3000, 'PORT'),
    databaseUrl: env.DATABASE_URL || null,
    dataDir: path.resolve(PROJECT_ROOT, env.WEBPERF_DATA_DIR ?? '.data'),
    chromiumPath: findChromium(env.CHROMIUM_PATH),
    allowTargets: list(env.WEBPERF_ALLOW_TARGETS),
    plugins: list(env.WEBPERF_PLUGINS),
    concurrency: int(env.WEBPERF_CONCURRENCY, 1, 'WEBPERF_CONCURRENCY') || 1,
    jobTimeoutMs: int(env.WEBPERF_JOB_TIMEOUT_MS, 180_000, 'WEBPERF_JOB_TIMEOUT_MS'),
    heartbeatMs: int(env.WEBPERF_HEARTBEAT_MS, 15_000, 'WEBPERF_HEARTBEAT_MS') || 15_000,
    staleAfterMs: int(env.WEBPERF_STALE_AFTER_MS, 60_000, 'WEBPERF_STALE_AFTER_MS') || 60_000,
    logLevel: env.LOG_LEVEL ?? 'info',
    demo: env.WEBPERF_DEMO !== '0',
    publicUrl: env.WEBPERF_PUBLIC_URL ?? null,
    lixMaxBytes: int(env.WEBPERF_LIX_MAX_BYTES, 100_000, 'WEBPERF_LIX_MAX_BYTES'),
    rateLimitPerMinute: int(env.WEBPERF_RATE_LIMIT, 120, 'WEBPERF_RATE_LIMIT'),
    cruxApiKey: env.WEBPERF_CRUX_API_KEY || null,
    cruxEndpoint: env.WEBPERF_CRUX_ENDPOINT || CRUX_ENDPOINT,
  };
  const merged = { ...config, ...overrides };
  if (merged.heartbeatMs >= merged.staleAfterMs) {
    throw new Error(`WEBPERF_HEARTBEAT_MS (${merged.heartbeatMs}) must be shorter than WEBPERF_STALE_AFTER_MS (${merged.staleAfterMs})`);
  }
  return merged;
}
