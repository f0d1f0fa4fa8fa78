/**
 * The rate limit's counters in the database (core/rate-limit-counters.ts over
 * core/store/rate-limits.ts): two counters with pools of their own, as two API processes have,
 * count one window between them exactly, whatever the interleaving; windows open, run out and
 * are judged by the database's clock; expired rows are swept; and an unreachable database (a
 * refused port, or one that never answers) never leaves a request waiting: it is counted in memory
 * within the timeout, one warning is given, and the database is asked again later.
 */
import { sql } from '../../core/db/kysely.js';
import t from 'tap';
import { createDb, type Db } from '../../core/db/database.js';
import { SharedWindowCounter, type CountingIn, type WindowCount } from '../../core/rate-limit-counters.js';
import { counterDigest, incrementCounters, sweepCounters } from '../../core/store/rate-limits.js';
import { createTestDb } from '../helpers/db.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const WINDOW_MS = 60_000;

function incr(counter: SharedWindowCounter, name: string, max?: number): Promise<WindowCount> {
  return new Promise((resolve, reject) => counter.incr(name, (err, res) => (err ? reject(err) : resolve(res!)), WINDOW_MS, max));
}

async function row(db: Db, name: string) {
  const { rows } = await sql<{ count: number; age_ms: number }>`
    select count, extract(epoch from now() - window_start)::float8 * 1000 as age_ms
    from rate_limit_counters where key = ${counterDigest(name)}`.execute(db);
  return rows[0] ?? null;
}

function ownDb(url: string, t: { teardown(fn: () => unknown): void }, options: { connectTimeoutMs?: number } = {}): Db {
  const db = createDb(url, { max: 10, ...options });
  t.teardown(() => db.destroy());
  return db;
}

t.test('two processes\' counters on one database: every request counted once, in one window', async (t) => {
  const { db, url } = await createTestDb(t);
  const a = new SharedWindowCounter(ownDb(url, t), { windowMs: WINDOW_MS });
  const b = new SharedWindowCounter(ownDb(url, t), { windowMs: WINDOW_MS });
  // 300 requests of one name, alternating between the two and spread over 100 ms (statements of
  // every size from both, racing), beside another name's 30.
  const spread = <T>(fn: () => Promise<T>) => new Promise<T>((resolve, reject) => setTimeout(() => fn().then(resolve, reject), Math.random() * 100));
  // Each answer's window ends no earlier than a window opened after the start would: judged
  // against the time it arrived, not a fixed 5 s, so a loaded machine's slow answers still count.
  const started = Date.now();
  const timed = (r: WindowCount) => ({ ...r, arrived: Date.now() });
  const [answers, others] = await Promise.all([
    Promise.all(Array.from({ length: 300 }, (_, i) => spread(() => incr(i % 2 ? b : a, 'key:1').then(timed)))),
    Promise.all(Array.from({ length: 30 }, (_, i) => spread(() => incr(i % 2 ? a : b, 'key:2')))),
  ]);
  t.strictSame(answers.map((r) => r.current).sort((x, y) => x - y), Array.from({ length: 300 }, (_, i) => i + 1), 'the counts are 1..300, each given once');
  t.strictSame(others.map((r) => r.current).sort((x, y) => x - y), Array.from({ length: 30 }, (_, i) => i + 1), 'another name counts apart');
  t.ok(answers.every((r) => r.ttl <= WINDOW_MS && r.arrived + r.ttl >= started + WINDOW_MS - 50), 'every answer is in the window just opened');
  t.equal((await row(db, 'key:1'))?.count, 300);
  t.equal((await row(db, 'key:2'))?.count, 30);
  t.equal(a.sent.waited + b.sent.waited, 330, 'every request went to the database');
  t.equal(a.sent.leased + b.sent.leased, 0, 'no leases without a limit to judge them by');
  t.equal(a.countingIn, 'database');
});

t.test('a name asking hard of two processes: counts leased, far fewer statements, still exactly the limit passes', async (t) => {
  const { db, url } = await createTestDb(t);
  const a = new SharedWindowCounter(ownDb(url, t), { windowMs: WINDOW_MS });
  const b = new SharedWindowCounter(ownDb(url, t), { windowMs: WINDOW_MS });
  const MAX = 2_000;
  // 6,000 requests, 10 at a time in each process (as the bench's connections), alternating.
  const answers: WindowCount[] = [];
  let sent = 0;
  await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    while (sent++ < 6_000) answers.push(await incr(i % 2 ? b : a, 'key:hot', MAX));
  }));
  const currents = answers.map((r) => r.current);
  t.equal(new Set(currents).size, answers.length, 'no count given twice');
  t.strictSame(currents.filter((c) => c <= MAX).sort((x, y) => x - y), Array.from({ length: MAX }, (_, i) => i + 1), `exactly ${MAX} within the limit, each count once`);
  const statements = a.sent.statements + b.sent.statements;
  const leased = a.sent.leased + b.sent.leased;
  t.equal(a.sent.waited + b.sent.waited + leased, 6_000, 'every request counted');
  t.ok(leased > 6_000 * 0.8, `most from leases (${leased})`);
  t.ok(statements < 6_000 / 10, `a statement per ${(6_000 / statements).toFixed(1)} requests`);
  // The database's count: every request, and the counts leased and not used at the end (past the
  // limit: refused anyway), at most a lease of 1,000 per process.
  const count = (await row(db, 'key:hot'))!.count;
  t.ok(count >= 6_000 && count <= 6_000 + 2 * 1_000, `the database counted ${count}`);
});

t.test('a name asking less than once per 50 ms, or near its limit: no lease, one count per request', async (t) => {
  const { url } = await createTestDb(t);
  const counter = new SharedWindowCounter(ownDb(url, t), { windowMs: WINDOW_MS });
  for (let i = 1; i <= 4; i++) {
    t.equal((await incr(counter, 'key:calm', 120)).current, i);
    await new Promise((r) => setTimeout(r, 60));
  }
  t.strictSame(counter.sent, { statements: 4, waited: 4, leased: 0, inMemory: 0 });
  // Twenty at a time against a limit of 10: fewer than 16 left, nothing leased.
  const near = await Promise.all(Array.from({ length: 40 }, () => incr(counter, 'key:near', 10)));
  const more = await Promise.all(Array.from({ length: 40 }, () => incr(counter, 'key:near', 10)));
  t.strictSame([...near, ...more].map((r) => r.current), Array.from({ length: 80 }, (_, i) => i + 1));
  t.equal(counter.sent.leased, 0);
});

t.test('windows follow the database\'s clock: opened by the first request, over after a minute of it', async (t) => {
  const { db, url } = await createTestDb(t);
  const counter = new SharedWindowCounter(ownDb(url, t), { windowMs: WINDOW_MS });
  t.strictSame(await incr(counter, 'ip:192.0.2.1'), { current: 1, ttl: WINDOW_MS }, 'the first request opens a window of a minute');
  // As if the window had opened 45 s ago by the database's clock (whatever this process's says).
  await sql`update rate_limit_counters set window_start = now() - interval '45 seconds'`.execute(db);
  const later = await incr(counter, 'ip:192.0.2.1');
  t.equal(later.current, 2);
  t.ok(later.ttl > 14_000 && later.ttl <= 15_000, `15 s left (${later.ttl} ms)`);
  await sql`update rate_limit_counters set window_start = now() - interval '60 seconds'`.execute(db);
  t.strictSame(await incr(counter, 'ip:192.0.2.1'), { current: 1, ttl: WINDOW_MS }, 'a window a minute old is over: a new one opens');
  const fresh = await row(db, 'ip:192.0.2.1');
  t.ok(fresh && fresh.age_ms < 5_000, 'the new window opened now');
});

t.test('a statement that started before another opened the window: the window is never longer than its length', async (t) => {
  const { db, url } = await createTestDb(t);
  const other = ownDb(url, t);
  // This statement's now() is fixed when its transaction begins; another process then opens the
  // window 300 ms later by the clock, before this statement reaches the row (as when it waited
  // for that one's lock).
  const states = await db.transaction().execute(async (trx) => {
    await sql`select now()`.execute(trx);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await incrementCounters(other, [{ key: counterDigest('key:race'), by: 1 }], WINDOW_MS);
    return incrementCounters(trx, [{ key: counterDigest('key:race'), by: 1 }], WINDOW_MS);
  });
  t.strictSame(states.map((s) => [s.count, s.ageMs]), [[2, 0]], 'counted in that window, its age 0 (not -300 ms)');
});

t.test('expired counters are swept', async (t) => {
  const { db, url } = await createTestDb(t);
  await sql`
    insert into rate_limit_counters (key, window_start, count) values
      (${counterDigest('key:old')}, now() - interval '61 seconds', 7),
      (${counterDigest('key:edge')}, now() - interval '60 seconds', 3),
      (${counterDigest('key:live')}, now() - interval '59 seconds', 5)`.execute(db);
  // The first statement of a counter sweeps (then at most once a window), without waiting for it.
  const counter = new SharedWindowCounter(ownDb(url, t), { windowMs: WINDOW_MS });
  await incr(counter, 'key:new');
  const left = async () => (await sql<{ key: Buffer }>`select key from rate_limit_counters`.execute(db)).rows.map((r) => r.key.toString('hex')).sort();
  const expected = [counterDigest('key:live'), counterDigest('key:new')].map((k) => k.toString('hex')).sort();
  for (let i = 0; i < 50 && (await left()).length > 2; i++) await new Promise((r) => setTimeout(r, 20));
  t.strictSame(await left(), expected, 'the windows a minute old or older are gone');
  t.equal(await sweepCounters(db, WINDOW_MS), 0, 'nothing left to sweep');
});

t.test('the database unreachable: counted in memory within the timeout, one warning, the database asked again later', async (t) => {
  const { db, url } = await createTestDb(t);
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) }, t);
  const switches: { to: CountingIn; reason: string | null }[] = [];
  const TIMEOUT_MS = 300;
  const RETRY_MS = 1_000;
  const counter = new SharedWindowCounter(ownDb(proxy.urlThrough(url), t, { connectTimeoutMs: 10_000 }), {
    windowMs: WINDOW_MS,
    timeoutMs: TIMEOUT_MS,
    retryAfterMs: RETRY_MS,
    onSwitch: (to, reason) => switches.push({ to, reason }),
  });
  t.equal((await incr(counter, 'key:9')).current, 1, 'counted in the database while it answers');
  t.equal((await incr(counter, 'key:9')).current, 2);

  // Refused: the count goes on in memory at once (memory knows nothing of the database's two).
  proxy.set('refuse');
  let started = performance.now();
  const refused = await Promise.all([incr(counter, 'key:9'), incr(counter, 'key:9')]);
  t.ok(performance.now() - started < TIMEOUT_MS + 200, `answered without waiting for the timeout (${Math.round(performance.now() - started)} ms)`);
  t.strictSame(refused.map((r) => r.current), [1, 2], 'counted in memory');
  t.ok(refused.every((r) => r.ttl > 55_000 && r.ttl <= WINDOW_MS));
  t.equal(counter.countingIn, 'memory');
  t.equal(switches.length, 1, 'one switch');
  t.equal(switches[0].to, 'memory');
  t.match(switches[0].reason, /\S/, `with its reason: ${switches[0].reason}`);
  t.equal((await incr(counter, 'key:9')).current, 3, 'and in memory until the database is asked again');

  // Held (a hung server): no request waits much longer than the timeout.
  await new Promise((r) => setTimeout(r, RETRY_MS + 50));
  proxy.set('hold');
  started = performance.now();
  const held = await Promise.all(Array.from({ length: 5 }, () => incr(counter, 'key:9')));
  const waited = performance.now() - started;
  t.ok(waited >= TIMEOUT_MS - 20 && waited < TIMEOUT_MS + 500, `answered at the timeout (${Math.round(waited)} ms)`);
  t.strictSame(held.map((r) => r.current), [4, 5, 6, 7, 8], 'counted in memory, the count going on');
  t.equal(switches.length, 1, 'no second warning while still in memory');

  // Back: after the retry delay the database counts again, from its own count.
  proxy.set('pass');
  await new Promise((r) => setTimeout(r, RETRY_MS + 50));
  // A statement abandoned at the timeout may still be waiting for its connection: until it ends, memory.
  const countingIn = (): CountingIn => counter.countingIn;
  let back: WindowCount | null = null;
  for (let i = 0; i < 100 && countingIn() !== 'database'; i++) {
    back = await incr(counter, 'key:9');
    if (countingIn() !== 'database') await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(countingIn(), 'database', 'counting in the database again');
  t.strictSame(switches.map((s) => s.to), ['memory', 'database']);
  t.equal(back?.current, 3, 'the database\'s count goes on from its own (memory\'s counts are not carried over)');
  t.equal((await row(db, 'key:9'))?.count, 3);
});
