/**
 * Configuration, read and validated once at start-up from the environment, then passed down.
 */
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IDLE_TIMEOUT_MS } from './db/database.js';
import { parseDnsServers } from './net/resolver.js';

/**
 * Where the running JavaScript lives: dist/, the sources built (scripts/build.js). Code the service
 * finds by path (plugins, migrations, worker entries) is looked up here.
 */
export const CODE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The project: package.json, the TypeScript sources, node_modules, the data folder, and the files
 * the code reads (fixture sites, RetireJS data). dist/'s parent.
 */
export const PROJECT_ROOT = path.basename(CODE_ROOT) === 'dist' ? path.dirname(CODE_ROOT) : CODE_ROOT;

/** The service's configuration. */
export interface Config {
  env: string;
  host: string;
  port: number;
  /** Null: start an embedded PostgreSQL in dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  chromiumPath: string | null;
  /**
   * The DevTools WebSocket address of a Chromium already running on this machine
   * (WEBPERF_CHROMIUM_WS, `ws://127.0.0.1:9222/devtools/browser/…`): pages are loaded in it instead
   * of a Chromium of the process's own. Loopback only: each page load's guard proxy listens there.
   */
  chromiumEndpoint: string | null;
  /** CIDRs or host names the target guard lets through although private or loopback. */
  allowTargets: string[];
  /**
   * DNS servers every lookup of the service asks (WEBPERF_DNS_SERVERS, `127.0.0.1:5353`); empty:
   * the operating system's resolver, /etc/hosts included.
   */
  dnsServers: string[];
  /** A PEM file of certificate authorities trusted beyond the machine's own (WEBPERF_EXTRA_CA_CERTS). */
  extraCaCerts: string | null;
  /** npm package names (or paths) of third-party plugins. */
  plugins: string[];
  /** Test jobs a runner runs at once. */
  concurrency: number;
  /** Webhook deliveries a runner sends at once, in a worker pool of their own (never in a test slot). */
  deliveryConcurrency: number;
  /** Hard time limit of one test job. */
  jobTimeoutMs: number;
  /** The connections the process keeps for PostgreSQL (see DatabasePools). */
  pools: DatabasePools;
  /** How often a runner announces that it is alive. */
  heartbeatMs: number;
  /** A runner silent this long is taken for dead and its jobs are unlocked. */
  staleAfterMs: number;
  /** The embedded PostgreSQL, should it die, is started again after this long (then doubling, up to 10 s). */
  pgRestartDelayMs: number;
  /** The embedded PostgreSQL's max_connections (WEBPERF_PG_MAX_CONNECTIONS); unused with DATABASE_URL. */
  pgMaxConnections: number;
  logLevel: string;
  /** Serve and test the bundled demo site at start. */
  demo: boolean;
  /** Public base URL used in `uri` fields; defaults to http://host:port. */
  publicUrl: string | null;
  /** Largest LIX text accepted, in bytes. */
  lixMaxBytes: number;
  /** Requests per minute and key on premium routes. */
  rateLimitPerMinute: number;
  /**
   * Where the rate limit counts (WEBPERF_RATE_LIMIT_STORE): `postgres` (the default), in the
   * database every API process shares, so that their limit is one; `memory`, in each process's
   * own memory (one API process only: N processes give a key N times its limit).
   */
  rateLimitStore: RateLimitStore;
  /** Chrome UX Report API key for the audits' field data; null: crux_summary.json says it is not available. */
  cruxApiKey: string | null;
  /** The CrUX API's queryRecord address (configurable so that a test can serve it from loopback). */
  cruxEndpoint: string;
  /** Limits of the HTTP server against slow, idle and abusive clients. */
  http: HttpLimits;
  /**
   * Which reverse proxies' X-Forwarded-* headers are believed (Fastify's `trustProxy`): false
   * (none, the default: a forged header changes nothing), true (every hop), a number of hops, or
   * the proxies' addresses and CIDRs. It decides `request.protocol` (the portal's Secure cookie),
   * `request.ip` (rate limits) and `request.host`.
   */
  trustProxy: TrustProxy;
  /**
   * An address of its own where the process serves its metrics to scrapers, without a key
   * (WEBPERF_METRICS_LISTEN, e.g. `127.0.0.1:9464`); null: none (the API's GET /metrics, admin key, remains).
   */
  metricsListen: { host: string; port: number } | null;
}

/**
 * How many PostgreSQL connections a process may hold, and for how long idle ones are kept. A
 * runner process holds at most `workerMax + dbMax`, an API process `dbMax` and its one cache
 * listener (README, "Scale-out: the connection budget").
 */
export interface DatabasePools {
  /**
   * The process's query pool (kysely: the API's reads and writes, a runner's runs and deliveries)
   * (WEBPERF_DB_POOL_MAX); null: 10 in `serve` and `api`, the test concurrency in `runner`.
   */
  dbMax: number | null;
  /**
   * A runner's pool for graphile-worker (WEBPERF_WORKER_POOL_MAX): the test pool's LISTEN
   * connection, the job fetches and completions of both its worker pools, the heartbeat's unlocks.
   * At least 2 (one listens).
   */
  workerMax: number;
  /** An idle connection of either pool is closed after this long (WEBPERF_DB_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
}

/** A runner's graphile-worker connections by default: one listening, two for its queries. */
export const WORKER_POOL_MAX = 3;

/** Where the rate limit's counts are kept. */
export type RateLimitStore = 'postgres' | 'memory';

/** WEBPERF_RATE_LIMIT_STORE: `postgres` (default when unset or empty) or `memory`. */
export function parseRateLimitStore(value: string | undefined): RateLimitStore {
  const v = (value ?? '').trim();
  if (v === '' || v === 'postgres') return 'postgres';
  if (v === 'memory') return 'memory';
  throw new Error(`WEBPERF_RATE_LIMIT_STORE must be postgres or memory, got "${v}"`);
}

/** Fastify's `trustProxy`, as the operator may set it (WEBPERF_TRUST_PROXY). */
export type TrustProxy = boolean | number | string[];

/**
 * Limits of the HTTP server (Node's http server, set through Fastify): a client that trickles its
 * headers or body, or holds a connection open without using it, is cut off instead of holding a
 * socket and its memory for ever.
 */
export interface HttpLimits {
  /** Longest time to receive a request's headers (408 after it). At most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** Longest time to receive a whole request, headers and body (408 after it). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open after an answer. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic in either direction this long is closed (0: never). */
  idleTimeoutMs: number;
  /** Requests one keep-alive connection may carry before it is closed (0: no limit). */
  maxRequestsPerSocket: number;
  /** How often the server checks the header and request timeouts (their granularity). */
  checkIntervalMs: number;
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

/**
 * WEBPERF_TRUST_PROXY: empty, "false" or "0": trust no proxy; "true": every hop; a positive
 * integer: that many hops; else the proxies' IP addresses or CIDRs, comma-separated.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  const entries = list(v);
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new Error(`WEBPERF_TRUST_PROXY must be true, false, a number of hops or IP addresses/CIDRs, got "${entry}"`);
    }
  }
  return entries;
}

/** WEBPERF_METRICS_LISTEN: `host:port` or `[ipv6]:port` (port 0: any free port); empty: null. */
export function parseListenAddress(value: string | undefined, name = 'WEBPERF_METRICS_LISTEN'): { host: string; port: number } | null {
  const v = (value ?? '').trim();
  if (v === '') return null;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(v);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) throw new Error(`${name} must be host:port or [ipv6]:port, e.g. 127.0.0.1:9464, got "${v}"`);
  return { host: m[1] ?? m[2], port };
}

/**
 * WEBPERF_CHROMIUM_WS: a ws:// address on a loopback host (127.0.0.0/8, ::1, localhost); empty:
 * null. Another machine's Chromium could not reach the guard proxy each page load goes through
 * (it listens on this machine's loopback), nor would its pages be this machine's to guard.
 */
export function parseChromiumEndpoint(value: string | undefined): string | null {
  const v = (value ?? '').trim();
  if (v === '') return null;
  let url: URL | null = null;
  try {
    url = new URL(v);
  } catch {
    url = null;
  }
  const host = url?.hostname.replace(/^\[|\]$/g, '');
  const loopback = host !== undefined && (host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host));
  if (!url || url.protocol !== 'ws:' || !loopback) {
    throw new Error(`WEBPERF_CHROMIUM_WS must be the ws:// DevTools address of a Chromium on this machine (127.0.0.1, ::1 or localhost), e.g. ws://127.0.0.1:9222/devtools/browser/<id>, got "${v}"`);
  }
  return url.href;
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
    chromiumEndpoint: parseChromiumEndpoint(env.WEBPERF_CHROMIUM_WS),
    allowTargets: list(env.WEBPERF_ALLOW_TARGETS),
    dnsServers: parseDnsServers(env.WEBPERF_DNS_SERVERS),
    extraCaCerts: env.WEBPERF_EXTRA_CA_CERTS ? path.resolve(env.WEBPERF_EXTRA_CA_CERTS) : null,
    plugins: list(env.WEBPERF_PLUGINS),
    concurrency: int(env.WEBPERF_CONCURRENCY, 1, 'WEBPERF_CONCURRENCY') || 1,
    deliveryConcurrency: int(env.WEBPERF_WEBHOOK_CONCURRENCY, 4, 'WEBPERF_WEBHOOK_CONCURRENCY') || 4,
    jobTimeoutMs: int(env.WEBPERF_JOB_TIMEOUT_MS, 180_000, 'WEBPERF_JOB_TIMEOUT_MS'),
    pools: {
      dbMax: int(env.WEBPERF_DB_POOL_MAX, 0, 'WEBPERF_DB_POOL_MAX') || null,
      workerMax: int(env.WEBPERF_WORKER_POOL_MAX, WORKER_POOL_MAX, 'WEBPERF_WORKER_POOL_MAX') || WORKER_POOL_MAX,
      idleTimeoutMs: int(env.WEBPERF_DB_IDLE_TIMEOUT_MS, IDLE_TIMEOUT_MS, 'WEBPERF_DB_IDLE_TIMEOUT_MS') || IDLE_TIMEOUT_MS,
    },
    heartbeatMs: int(env.WEBPERF_HEARTBEAT_MS, 15_000, 'WEBPERF_HEARTBEAT_MS') || 15_000,
    staleAfterMs: int(env.WEBPERF_STALE_AFTER_MS, 60_000, 'WEBPERF_STALE_AFTER_MS') || 60_000,
    pgRestartDelayMs: int(env.WEBPERF_PG_RESTART_DELAY_MS, 500, 'WEBPERF_PG_RESTART_DELAY_MS') || 500,
    pgMaxConnections: int(env.WEBPERF_PG_MAX_CONNECTIONS, 200, 'WEBPERF_PG_MAX_CONNECTIONS') || 200,
    logLevel: env.LOG_LEVEL ?? 'info',
    demo: env.WEBPERF_DEMO !== '0',
    publicUrl: env.WEBPERF_PUBLIC_URL ?? null,
    lixMaxBytes: int(env.WEBPERF_LIX_MAX_BYTES, 100_000, 'WEBPERF_LIX_MAX_BYTES'),
    rateLimitPerMinute: int(env.WEBPERF_RATE_LIMIT, 120, 'WEBPERF_RATE_LIMIT'),
    rateLimitStore: parseRateLimitStore(env.WEBPERF_RATE_LIMIT_STORE),
    cruxApiKey: env.WEBPERF_CRUX_API_KEY || null,
    cruxEndpoint: env.WEBPERF_CRUX_ENDPOINT || CRUX_ENDPOINT,
    trustProxy: parseTrustProxy(env.WEBPERF_TRUST_PROXY),
    metricsListen: parseListenAddress(env.WEBPERF_METRICS_LISTEN),
    http: {
      headersTimeoutMs: int(env.WEBPERF_HTTP_HEADERS_TIMEOUT_MS, 10_000, 'WEBPERF_HTTP_HEADERS_TIMEOUT_MS') || 10_000,
      requestTimeoutMs: int(env.WEBPERF_HTTP_REQUEST_TIMEOUT_MS, 30_000, 'WEBPERF_HTTP_REQUEST_TIMEOUT_MS') || 30_000,
      // Longer than the idle timeouts of the clients and proxies in front (AWS ALB 60 s, nginx's
      // upstream keepalive 60 s, undici 4 s): the client, not the server, closes an idle connection,
      // so a client never sends a request on a socket the server is closing (ECONNRESET, seen with
      // 5 s while Lighthouse blocked the event loop). nginx itself keeps clients 75 s. Idle
      // keep-alive sockets are not subject to the header and request timeouts (Node 20), so these
      // stay short; see RELIABILITY.md.
      keepAliveTimeoutMs: int(env.WEBPERF_HTTP_KEEP_ALIVE_TIMEOUT_MS, 75_000, 'WEBPERF_HTTP_KEEP_ALIVE_TIMEOUT_MS') || 75_000,
      idleTimeoutMs: int(env.WEBPERF_HTTP_IDLE_TIMEOUT_MS, 60_000, 'WEBPERF_HTTP_IDLE_TIMEOUT_MS'),
      maxRequestsPerSocket: int(env.WEBPERF_HTTP_MAX_REQUESTS_PER_SOCKET, 1_000, 'WEBPERF_HTTP_MAX_REQUESTS_PER_SOCKET'),
      checkIntervalMs: int(env.WEBPERF_HTTP_CHECK_INTERVAL_MS, 1_000, 'WEBPERF_HTTP_CHECK_INTERVAL_MS') || 1_000,
    },
  };
  const merged = { ...config, ...overrides };
  if (merged.heartbeatMs >= merged.staleAfterMs) {
    throw new Error(`WEBPERF_HEARTBEAT_MS (${merged.heartbeatMs}) must be shorter than WEBPERF_STALE_AFTER_MS (${merged.staleAfterMs})`);
  }
  if (merged.pools.workerMax < 2) {
    throw new Error(`WEBPERF_WORKER_POOL_MAX (${merged.pools.workerMax}) must be at least 2: one connection listens for new jobs, the other fetches and completes them`);
  }
  if (merged.http.headersTimeoutMs > merged.http.requestTimeoutMs) {
    throw new Error(`WEBPERF_HTTP_HEADERS_TIMEOUT_MS (${merged.http.headersTimeoutMs}) must not be longer than WEBPERF_HTTP_REQUEST_TIMEOUT_MS (${merged.http.requestTimeoutMs})`);
  }
  return merged;
}
