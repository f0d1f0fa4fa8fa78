/**
 * One rate limit across API processes: two real `webperf api` processes on one database, requests
 * alternating between them, give each key its limit once in total (WEBPERF_RATE_LIMIT=10), then
 * 429 from either, with the same headers as one process gives; another key and the client address
 * count apart; a burst split over both processes lets exactly the limit through; windows are the
 * database's (set back in the table, both processes follow); the table holds SHA-256 hashes of the
 * counters' names, never a key; the portal's sign-in limit is one count across the processes too. And the
 * database unreachable under the API: requests are still answered, counted in the process's
 * memory, with one warning in the log, and counted in the database again once it is back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { sql } from '../../core/db/kysely.js';
import t from 'tap';
import { buildApp } from '../../api/app.js';
import { loadConfig } from '../../core/config.js';
import { metricsText } from '../../core/metrics.js';
import { createDb } from '../../core/db/database.js';
import { PluginRegistry } from '../../core/registry.js';
import { createKey } from '../../core/store/keys.js';
import { counterDigest } from '../../core/store/rate-limits.js';
import { SIGN_IN_PER_MINUTE } from '../../api/web/portal/common.js';
import { spawnWebperf, stopProcess } from '../../chaos/processes.js';
import { createTestDb } from '../helpers/db.js';
import { seedSite } from '../helpers/seed.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const LIMIT = 10;

interface Answer {
  status: number;
  body: any;
  limit: string | null;
  remaining: string | null;
  reset: string | null;
  retryAfter: string | null;
}

async function get(base: string, url: string, key?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${url}`, { headers: { ...(key === undefined ? {} : { 'api-key': key }), ...headers } });
  const h = (name: string) => res.headers.get(name);
  return { status: res.status, body: await res.json(), limit: h('x-ratelimit-limit'), remaining: h('x-ratelimit-remaining'), reset: h('x-ratelimit-reset'), retryAfter: h('retry-after') };
}

t.test('two `webperf api` processes on one database share each key\'s limit', async (t) => {
  const { db, url } = await createTestDb(t);
  const site = await seedSite(db, { title: 'Alfa kommun', url: 'https://alfa.example/' });
  const A = await createKey(db, { kind: 'standard', siteIds: [site], label: 'A' });
  const B = await createKey(db, { kind: 'standard', siteIds: [site], label: 'B' });
  const C = await createKey(db, { kind: 'standard', siteIds: [site], label: 'C' });
  const start = async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-rate-limit-'));
    t.teardown(() => rm(dataDir, { recursive: true, force: true }));
    const p = await spawnWebperf('api', {
      DATABASE_URL: url, HOST: '127.0.0.1', PORT: '0', WEBPERF_DATA_DIR: dataDir, WEBPERF_DEMO: '0', LOG_LEVEL: 'warn',
      WEBPERF_RATE_LIMIT: String(LIMIT),
      // The default, named: the store under test.
      WEBPERF_RATE_LIMIT_STORE: 'postgres',
    }, 120_000);
    t.teardown(() => stopProcess(p));
    return p;
  };
  const [one, two] = await Promise.all([start(), start()]);
  t.not(one.pid, two.pid);
  const apis = [one.apiUrl!, two.apiUrl!];
  t.not(apis[0], apis[1], 'two processes, two addresses');

  // Key A, requests alternating between the processes, over several premium routes: one count.
  const routes = ['/whoami/', `/stats/${site}`, '/0.1/whoami/', `/stats_per_month/${site}`];
  for (let i = 1; i <= LIMIT; i++) {
    const res = await get(apis[i % 2], routes[i % routes.length], A.key);
    t.equal(res.status, 200, `request ${i} (process ${1 + (i % 2)}) passes`);
    t.strictSame([res.limit, res.remaining], [String(LIMIT), String(LIMIT - i)], `request ${i}: ${LIMIT - i} left, counted over both processes`);
    // Seconds left of the window opened by the first request (a loaded machine may take seconds for ten).
    t.ok(Number(res.reset) >= 50 && Number(res.reset) <= 60, `request ${i}: reset ${res.reset}`);
    t.equal(res.retryAfter, null);
  }
  for (const [n, api] of apis.entries()) {
    const over = await get(api, '/whoami/', A.key);
    t.equal(over.status, 429, `process ${n + 1} refuses the key once the limit is spent`);
    // The wait as the Retry-After header gives it: a full minute just after the window opened, else its seconds.
    const after = over.retryAfter === '60' ? '1 minute' : `${over.retryAfter} seconds`;
    t.strictSame(over.body, { statusCode: 429, error: 'RATE_LIMITED', message: `Rate limit exceeded: at most ${LIMIT} requests per minute per api-key; retry in ${after}` });
    t.strictSame([over.limit, over.remaining], [String(LIMIT), '0']);
    t.ok(Number(over.retryAfter) >= 50 && Number(over.retryAfter) <= 60, `Retry-After ${over.retryAfter}`);
    t.equal(over.retryAfter, over.reset);
  }

  // Another key counts apart, in either process.
  const b1 = await get(apis[1], '/whoami/', B.key);
  t.strictSame([b1.status, b1.remaining, b1.body.rate_limit], [200, String(LIMIT - 1), { limit: LIMIT, remaining: LIMIT - 1, reset: 60 }], 'key B: its own window');
  t.equal((await get(apis[0], '/whoami/', B.key)).remaining, String(LIMIT - 2));

  // Without a valid key: the client address is counted, the same counter in both processes.
  const invented = (n: number) => `wpk${String(n).padStart(12, '0')}${'y'.repeat(43)}`;
  const x1 = await get(apis[0], '/whoami/', invented(1));
  t.strictSame([x1.status, x1.body.error, x1.remaining], [401, 'KEY_INVALID', String(LIMIT - 1)], 'an invented key: counted on the address');
  t.equal((await get(apis[1], '/whoami/', invented(2))).remaining, String(LIMIT - 2), 'another invented key, the other process: the same counter');
  t.equal((await get(apis[0], '/whoami/')).remaining, String(LIMIT - 3), 'no key at all: the same counter');

  // A burst of key C split over both processes at once: exactly the limit passes.
  const burst = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => get(apis[i % 2], '/whoami/', C.key)));
  t.equal(burst.filter((r) => r.status === 200).length, LIMIT, `${LIMIT} of ${3 * LIMIT} concurrent requests pass`);
  t.equal(burst.filter((r) => r.status === 429).length, 2 * LIMIT, 'the others get 429');
  t.strictSame(burst.filter((r) => r.status === 200).map((r) => Number(r.remaining)).sort((x, y) => x - y), Array.from({ length: LIMIT }, (_, i) => i), 'each pass has its own place in the count');

  // Windows are the database's. B's, set back a minute (as if opened then by the database's clock):
  // over, a new one opens.
  const windowOfB = (ago: string) => sql`update rate_limit_counters set window_start = now() - ${ago}::interval where key = ${counterDigest(`key:${B.id}`)}`.execute(db);
  await windowOfB('60 seconds');
  const renewed = await get(apis[0], '/whoami/', B.key);
  t.strictSame([renewed.status, renewed.remaining, renewed.reset], [200, String(LIMIT - 1), '60'], 'a minute on, a new window');
  // Set back 45 s: 15 s left, in either process, up to the limit and in the 429s after it.
  await windowOfB('45 seconds');
  const fifteen = (res: Answer) => ['13', '14', '15'].includes(res.reset!);
  for (let i = 2; i <= LIMIT; i++) {
    const res = await get(apis[i % 2], '/whoami/', B.key);
    t.ok(res.status === 200 && res.remaining === String(LIMIT - i) && fifteen(res), `B's request ${i}: ${res.remaining} left, reset ${res.reset} s`);
  }
  for (const [n, api] of apis.entries()) {
    const over = await get(api, '/whoami/', B.key);
    t.ok(over.status === 429 && fifteen(over) && over.retryAfter === over.reset, `process ${n + 1}: 429, retry after the database's 15 s (${over.retryAfter})`);
  }

  // The table: one row per counter, each named by a SHA-256, never by a key. The counts are the
  // requests made; a count past the limit may include counts a process leased and did not use.
  const rows = (await sql<{ key: Buffer; count: number }>`select key, count from rate_limit_counters`.execute(db)).rows;
  const named = (name: string) => rows.find((r) => r.key.equals(counterDigest(name)))?.count ?? 0;
  t.equal(rows.length, 4, 'A, B, C and the address');
  t.ok(rows.every((r) => r.key.length === 32), 'every name is 32 bytes (a SHA-256)');
  t.equal(named('ip:127.0.0.1'), 3, 'the address: one count per request');
  t.ok(named(`key:${A.id}`) >= LIMIT + 2 && named(`key:${B.id}`) >= LIMIT + 2 && named(`key:${C.id}`) >= 3 * LIMIT, `A ${named(`key:${A.id}`)}, B ${named(`key:${B.id}`)}, C ${named(`key:${C.id}`)}`);
  for (const k of [A, B, C]) {
    const raw = Buffer.from(k.key);
    t.notOk(rows.some((r) => r.key.includes(raw) || r.key.includes(Buffer.from(k.prefix)) || r.key.equals(counterDigest(k.key))), `no trace of key ${k.prefix}… in the table`);
  }
  const logs = [...one.lines, ...two.lines].join('\n');
  t.notOk([A, B, C].some((k) => logs.includes(k.key)), 'nor in either process\'s output');

  // The portal's sign-in limit (per client address) is one count across the processes too, apart
  // from the premium routes' count of the same address. It counts before the form is read: the
  // attempts within it are refused for their missing CSRF token (403), the one after it with 429.
  const signIn = (base: string) => fetch(`${base}/portal/sign-in`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40b.example&password=x', redirect: 'manual' });
  const statuses: number[] = [];
  for (let i = 0; i <= SIGN_IN_PER_MINUTE; i++) statuses.push((await signIn(apis[i % 2])).status);
  t.strictSame(statuses, [...Array(SIGN_IN_PER_MINUTE).fill(403), 429], `${SIGN_IN_PER_MINUTE} attempts over both processes, then 429`);
  const refused = await signIn(apis[0]);
  t.strictSame([refused.status, (await refused.json()).error], [429, 'RATE_LIMITED'], 'from either');
  const counts = (await sql<{ key: Buffer; count: number }>`select key, count from rate_limit_counters`.execute(db)).rows;
  // At least the attempts made (a process may lease counts ahead, as for the premium keys above).
  const signIns = counts.find((r) => r.key.equals(counterDigest('sign-in:127.0.0.1')))?.count ?? 0;
  t.ok(signIns >= SIGN_IN_PER_MINUTE + 2, `one counter, named by a hash (${signIns})`);
  t.equal(counts.find((r) => r.key.equals(counterDigest('ip:127.0.0.1')))?.count, 3, 'the premium routes\' count of the address is untouched');
});

t.test('the database unreachable under the API: answered, counted in memory, one warning, then the database again', async (t) => {
  const { db, url } = await createTestDb(t);
  const site = await seedSite(db, { title: 'Alfa kommun', url: 'https://alfa.example/' });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [site] });
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) }, t);
  // The API's pool reaches the database through the proxy; its caches listen directly (so that the
  // key stays known while the proxy holds everything, as a process keeps what it has cached).
  const apiDb = createDb(proxy.urlThrough(url), { max: 4 });
  t.teardown(() => apiDb.destroy());
  const stream = new PassThrough();
  let log = '';
  stream.on('data', (c: Buffer) => (log += c.toString()));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' }, { databaseUrl: url, rateLimitPerMinute: LIMIT });
  t.equal(config.rateLimitStore, 'postgres', 'the shared count is the default');
  const app = await buildApp({ db: apiDb, config, registry: new PluginRegistry(), version: '1.0.0', databaseUrl: url }, { logger: { stream } });
  t.teardown(() => app.close());
  await app.ready();
  for (let i = 0; i < 100 && !app.resultsCache.live; i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(app.resultsCache.live, 'the caches listen');

  // The readability tool needs no database once the key is known: it answers through the outage.
  const lix = async () => {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: '/tools/lix/?content=Solen%20skiner.', headers: { 'api-key': key, 'site-id': String(site) } });
    return { status: res.statusCode, remaining: res.headers['x-ratelimit-remaining'], reset: res.headers['x-ratelimit-reset'], ms: performance.now() - started };
  };
  t.strictSame([(await lix()).remaining, (await lix()).remaining], [String(LIMIT - 1), String(LIMIT - 2)], 'counted in the database');

  proxy.set('hold');
  const held = [await lix(), await lix(), await lix()];
  t.strictSame(held.map((r) => r.status), [200, 200, 200], 'answered while the database does not answer');
  t.ok(held[0].ms < 2_500, `the first within the counter's timeout (${Math.round(held[0].ms)} ms)`);
  t.ok(held[1].ms < 500 && held[2].ms < 500, `the next at once, in memory (${Math.round(held[1].ms)}, ${Math.round(held[2].ms)} ms)`);
  t.strictSame(held.map((r) => r.remaining), [String(LIMIT - 1), String(LIMIT - 2), String(LIMIT - 3)], 'counted in this process\'s memory');
  t.ok(held.every((r) => r.reset === '60' || r.reset === '59'), 'with its headers');
  const warnings = () => log.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => /^rate limit:/.test(l.msg ?? ''));
  t.equal(warnings().length, 1, 'one line in the log');
  t.match(warnings()[0], { level: 40, msg: /counting in this process's memory/ });
  const metric = async () => (await metricsText()).body.split('\n').filter((l) => /^webperf_rate_limit_(counting_in_memory|fallbacks_total) /.test(l));
  t.strictSame(await metric(), ['webperf_rate_limit_counting_in_memory 1', 'webperf_rate_limit_fallbacks_total 1'], 'and in the metrics, for an alert');

  proxy.set('pass');
  // Asked again after 5 s (retryAfterMs): from then on counted in the database, from its own count.
  await new Promise((r) => setTimeout(r, 5_200));
  let again = await lix();
  for (let i = 0; i < 50 && again.remaining !== String(LIMIT - 3); i++) {
    await new Promise((r) => setTimeout(r, 100));
    again = await lix();
  }
  t.equal(again.remaining, String(LIMIT - 3), 'the database\'s count again (two before, this one)');
  t.strictSame(warnings().map((l) => [l.level, l.msg]), [[40, warnings()[0].msg], [30, 'rate limit: counting in the database again']]);
  t.strictSame(await metric(), ['webperf_rate_limit_counting_in_memory 0', 'webperf_rate_limit_fallbacks_total 1'], 'the metric back at 0');
  t.notOk(log.includes(key), 'the key is nowhere in the log');
});
