/**
 * The service's settings from the environment (core/config.ts), as an operator writes them: the
 * defaults, a zero that means "the default" where zero would stop the service, the values refused
 * with a message that names the variable, and the pairs that must agree.
 */
import path from 'node:path';
import t from 'tap';
import { CRUX_ENDPOINT, PROJECT_ROOT, findChromium, loadConfig, parseChromiumEndpoint, parseListenAddress, parseRateLimitStore, parseTrustProxy } from '../../core/config.js';

t.test('defaults, and a zero where zero would stop the service is the default', async (t) => {
  const defaults = loadConfig({});
  t.strictSame(
    [defaults.host, defaults.port, defaults.databaseUrl, defaults.logLevel, defaults.demo, defaults.publicUrl, defaults.cruxApiKey, defaults.cruxEndpoint, defaults.extraCaCerts, defaults.trustProxy, defaults.metricsListen],
    ['127.0.0.1', 3000, null, 'info', true, null, null, CRUX_ENDPOINT, null, false, null],
  );
  t.equal(defaults.dataDir, path.join(PROJECT_ROOT, '.data'));
  const zeros = loadConfig({
    WEBPERF_CONCURRENCY: '0', WEBPERF_WEBHOOK_CONCURRENCY: '0', WEBPERF_HEARTBEAT_MS: '0', WEBPERF_STALE_AFTER_MS: '0', WEBPERF_PG_RESTART_DELAY_MS: '0',
    WEBPERF_HTTP_HEADERS_TIMEOUT_MS: '0', WEBPERF_HTTP_REQUEST_TIMEOUT_MS: '0', WEBPERF_HTTP_KEEP_ALIVE_TIMEOUT_MS: '0', WEBPERF_HTTP_CHECK_INTERVAL_MS: '0',
    WEBPERF_HTTP_IDLE_TIMEOUT_MS: '0', WEBPERF_DEMO: '0', DATABASE_URL: '', WEBPERF_CRUX_API_KEY: '', WEBPERF_EXTRA_CA_CERTS: 'ca/extra.pem',
  });
  t.strictSame(
    [zeros.concurrency, zeros.deliveryConcurrency, zeros.heartbeatMs, zeros.staleAfterMs, zeros.pgRestartDelayMs],
    [1, 4, 15_000, 60_000, 500],
  );
  t.strictSame(zeros.http, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 75_000, idleTimeoutMs: 0, maxRequestsPerSocket: 1_000, checkIntervalMs: 1_000 }, 'an idle timeout of 0 is Node\'s "none"');
  t.equal(zeros.demo, false);
  t.equal(zeros.databaseUrl, null, 'an empty DATABASE_URL: the embedded PostgreSQL');
  t.equal(zeros.extraCaCerts, path.resolve('ca/extra.pem'));
});

t.test('the connection pools: sizes and idle timeout, defaults and settings', async (t) => {
  t.strictSame(loadConfig({}).pools, { dbMax: null, workerMax: 3, idleTimeoutMs: 10_000 }, 'the query pool sized by the process kind; graphile-worker 3; 10 s idle');
  t.strictSame(loadConfig({ WEBPERF_DB_POOL_MAX: '0', WEBPERF_WORKER_POOL_MAX: '0', WEBPERF_DB_IDLE_TIMEOUT_MS: '0' }).pools, { dbMax: null, workerMax: 3, idleTimeoutMs: 10_000 }, 'zero: the default');
  t.strictSame(loadConfig({ WEBPERF_DB_POOL_MAX: '4', WEBPERF_WORKER_POOL_MAX: '2', WEBPERF_DB_IDLE_TIMEOUT_MS: '2500' }).pools, { dbMax: 4, workerMax: 2, idleTimeoutMs: 2_500 });
  t.throws(() => loadConfig({ WEBPERF_WORKER_POOL_MAX: '1' }), { message: 'WEBPERF_WORKER_POOL_MAX (1) must be at least 2: one connection listens for new jobs, the other fetches and completes them' });
  t.throws(() => loadConfig({ WEBPERF_DB_POOL_MAX: 'ten' }), { message: 'WEBPERF_DB_POOL_MAX must be a non-negative integer, got "ten"' });
  t.equal(loadConfig({}).pgMaxConnections, 200, "the embedded PostgreSQL's max_connections");
  t.equal(loadConfig({ WEBPERF_PG_MAX_CONNECTIONS: '1000' }).pgMaxConnections, 1_000);
});

t.test('values refused, each naming its variable', async (t) => {
  for (const value of ['x', '-1', '1.5']) t.throws(() => loadConfig({ PORT: value }), { message: `PORT must be a non-negative integer, got "${value}"` });
  t.throws(() => loadConfig({ WEBPERF_HEARTBEAT_MS: '60000', WEBPERF_STALE_AFTER_MS: '60000' }), { message: 'WEBPERF_HEARTBEAT_MS (60000) must be shorter than WEBPERF_STALE_AFTER_MS (60000)' });
  t.throws(() => loadConfig({ WEBPERF_HTTP_HEADERS_TIMEOUT_MS: '40000' }), { message: 'WEBPERF_HTTP_HEADERS_TIMEOUT_MS (40000) must not be longer than WEBPERF_HTTP_REQUEST_TIMEOUT_MS (30000)' });
  t.equal(findChromium('/nonexistent/chromium'), null, 'CHROMIUM_PATH that is not there: none, not another one');
  t.throws(() => loadConfig({ WEBPERF_RATE_LIMIT_STORE: 'redis' }), { message: 'WEBPERF_RATE_LIMIT_STORE must be postgres or memory, got "redis"' });
});

t.test('WEBPERF_RATE_LIMIT_STORE: postgres (shared by the API processes) unless memory is asked for', async (t) => {
  t.strictSame(['', 'postgres', ' memory '].map(parseRateLimitStore), ['postgres', 'postgres', 'memory']);
  t.equal(loadConfig({}).rateLimitStore, 'postgres');
  t.equal(loadConfig({ WEBPERF_RATE_LIMIT_STORE: 'memory' }).rateLimitStore, 'memory');
});

t.test('WEBPERF_TRUST_PROXY and WEBPERF_METRICS_LISTEN', async (t) => {
  t.strictSame(['', 'false', '0', 'true', '2'].map(parseTrustProxy), [false, false, false, true, 2]);
  t.strictSame(parseTrustProxy('10.0.0.1, 192.168.0.0/16, ::1, fd00::/8'), ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8']);
  for (const bad of ['proxy.example', '10.0.0.0/33', '::1/129', '10.0.0.0/8/8', '10.0.0.0/x']) {
    t.throws(() => parseTrustProxy(bad), { message: `WEBPERF_TRUST_PROXY must be true, false, a number of hops or IP addresses/CIDRs, got "${bad}"` });
  }
  t.strictSame([parseListenAddress(''), parseListenAddress('127.0.0.1:9464'), parseListenAddress('[::1]:0')], [null, { host: '127.0.0.1', port: 9464 }, { host: '::1', port: 0 }]);
  for (const bad of ['9464', '127.0.0.1:70000', 'a b:1']) t.throws(() => parseListenAddress(bad), { message: `WEBPERF_METRICS_LISTEN must be host:port or [ipv6]:port, e.g. 127.0.0.1:9464, got "${bad}"` });
  // WEBPERF_CHROMIUM_WS: a running Chromium on this machine's loopback, nowhere else.
  t.strictSame(
    ['', undefined, ' ws://127.0.0.1:9222/devtools/browser/abc ', 'ws://localhost:9222/devtools/browser/x', 'ws://[::1]:9222/devtools/browser/y'].map(parseChromiumEndpoint),
    [null, null, 'ws://127.0.0.1:9222/devtools/browser/abc', 'ws://localhost:9222/devtools/browser/x', 'ws://[::1]:9222/devtools/browser/y'],
  );
  for (const bad of ['http://127.0.0.1:9222/json', 'ws://10.0.0.5:9222/devtools/browser/abc', 'ws://chromium.internal:9222/', 'wss://127.0.0.1:9222/', '127.0.0.1:9222', 'ws://169.254.169.254/']) {
    t.throws(() => parseChromiumEndpoint(bad), { message: `WEBPERF_CHROMIUM_WS must be the ws:// DevTools address of a Chromium on this machine (127.0.0.1, ::1 or localhost), e.g. ws://127.0.0.1:9222/devtools/browser/<id>, got "${bad}"` }, bad);
  }
  t.equal(loadConfig({ WEBPERF_CHROMIUM_WS: 'ws://127.0.0.2:1/devtools/browser/z' }).chromiumEndpoint, 'ws://127.0.0.2:1/devtools/browser/z');
  t.equal(loadConfig({}).chromiumEndpoint, null);
});
