/**
 * The API's caches (api/plugins/cache.ts) over a real PostgreSQL: resolved keys and the answers
 * of /stats/{siteId}, /stats_per_month/{siteId} and /categories/ are served from memory, and every
 * change that matters reaches them at once: in the writing process at its commit, in another
 * API instance (its own pool and LISTEN connection over the same database) as soon as PostgreSQL
 * delivers the notification. A second instance stands for a second process: writes through the
 * first instance's Db are echoed only to caches on that Db, so the second learns only by LISTEN.
 */
import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { sql } from '../../core/db/kysely.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import { CACHE_LISTENER_NAME } from '../../api/plugins/cache.js';
import { createDb } from '../../core/db/database.js';
import { quotaExceededMessage } from '../../core/quota.js';
import { setLevel, updateCatalogSite } from '../../core/store/catalog-admin.js';
import { addKeySites, createKey, keyDigest, removeKeySites, revokeKey } from '../../core/store/keys.js';
import type { CacheEvent } from '../../core/store/notify.js';
import { operatorCommand } from '../../runners/operator-cli.js';
import { buildTestApi } from '../helpers/api.js';
import { outcome, seedRun, seedSite } from '../helpers/seed.js';

const api = await buildTestApi(t, { rateLimitPerMinute: 0 });
const { app, db, url, config, registry } = api;

const A = await seedSite(db, { title: 'Alfa kommun', url: 'https://alfa.example/', categories: ['Kommuner'] });
const B = await seedSite(db, { title: 'Beta kommun', url: 'https://beta.example/', categories: ['Kommuner'] });
const JAN = new Date('2025-01-15T10:00:00Z');
await seedRun(db, A, { url: 'https://alfa.example/', outcomes: [outcome(30, 3, { a11y: 3, pagespeed: 3 }), outcome(21, 4, { webstandard: 4 })], testDate: JAN });
await seedRun(db, B, { url: 'https://beta.example/', outcomes: [outcome(30, 2, { a11y: 2 })], testDate: JAN });

/** A second API instance over the same database: its own pool, its own LISTEN connection. */
const db2 = createDb(url, { max: 4 });
const app2 = await buildApp({ db: db2, config, registry, version: '1.0.0', databaseUrl: url });
await app2.ready();
t.teardown(async () => {
  await app2.close();
  await db2.destroy();
});

const get = (instance: FastifyInstance, path: string, key: string | null, headers: Record<string, string> = {}) =>
  instance.inject({ method: 'GET', url: path, headers: { ...headers, ...(key === null ? {} : { 'api-key': key }) } });

/** Resolves when `instance` has applied an event matching `match` (subscribe before acting). */
function applied(instance: FastifyInstance, match: (e: CacheEvent | null) => boolean, timeoutMs = 5_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const events = instance.resultsCache.events;
    const timer = setTimeout(() => {
      events.off('event', on);
      reject(new Error('no cache event within the time limit'));
    }, timeoutMs);
    const on = (e: CacheEvent | null) => {
      if (!match(e)) return;
      clearTimeout(timer);
      events.off('event', on);
      resolve();
    };
    events.on('event', on);
  });
}

/** Resolves when the instance's caches go live (true) or off (false). */
function live(instance: FastifyInstance, value: boolean, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const events = instance.resultsCache.events;
    const timer = setTimeout(() => {
      events.off('live', on);
      reject(new Error(`caches not ${value ? 'live' : 'off'} within the time limit`));
    }, timeoutMs);
    const on = (v: boolean) => {
      if (v !== value) return;
      clearTimeout(timer);
      events.off('live', on);
      resolve();
    };
    events.on('live', on);
  });
}

const cachedKey = (instance: FastifyInstance, key: string) => instance.resultsCache.keys.get(keyDigest(key));

async function status(t: Test, instance: FastifyInstance, path: string, key: string | null, expected: number, error: string | null, what: string) {
  const res = await get(instance, path, key);
  t.strictSame([res.statusCode, res.statusCode >= 400 ? res.json().error : null], [expected, error], what);
}

t.test('both instances listen, so their caches are live', async (t) => {
  t.ok(app.resultsCache.live);
  t.ok(app2.resultsCache.live);
});

t.test('a revoked key is refused on the very next request, in this process and in another', async (t) => {
  const { key, prefix, id } = await createKey(db, { kind: 'standard', siteIds: [A], label: 'to revoke' });
  for (const instance of [app, app2]) {
    await status(t, instance, `/stats/${A}`, key, 200, null, 'works before');
    t.ok(cachedKey(instance, key), 'and is cached (by the hash of the key)');
  }
  t.notOk(app.resultsCache.keys.get(key), 'never by the raw key');
  const seen = applied(app2, (e) => e?.key === id);
  t.ok(await revokeKey(db, prefix));
  await status(t, app, `/stats/${A}`, key, 401, 'KEY_INVALID', 'this process: refused at once (applied at commit)');
  await status(t, app, '/categories/', key, 401, 'KEY_INVALID', 'on every route');
  await seen;
  await status(t, app2, `/stats/${A}`, key, 401, 'KEY_INVALID', 'the other instance: refused on its next request after the notification');
  await status(t, app2, `/stats_per_month/${A}`, key, 401, 'KEY_INVALID', 'on every route');
});

t.test('a key whose site access is removed gets 403 at once; access added works at once', async (t) => {
  const { key, id } = await createKey(db, { kind: 'agency', siteIds: [A, B], label: 'portfolio' });
  for (const instance of [app, app2]) {
    await status(t, instance, `/stats/${B}`, key, 200, null, 'reaches B before');
    await status(t, instance, `/stats_per_month/${B}`, key, 200, null, 'reaches B before');
  }
  let seen = applied(app2, (e) => e?.key === id);
  await removeKeySites(db, id, [B]);
  await status(t, app, `/stats/${B}`, key, 403, 'FORBIDDEN_SITE', 'this process: 403 at once, although /stats/B is cached');
  await status(t, app, `/stats_per_month/${B}`, key, 403, 'FORBIDDEN_SITE', 'the cached answer is data, not a decision');
  await status(t, app, `/stats/${A}`, key, 200, null, 'A still reached');
  await seen;
  await status(t, app2, `/stats/${B}`, key, 403, 'FORBIDDEN_SITE', 'the other instance: 403 after the notification');

  seen = applied(app2, (e) => e?.key === id);
  await addKeySites(db, id, [B]);
  await status(t, app, `/stats/${B}`, key, 200, null, 'linked again: reached at once');
  await seen;
  await status(t, app2, `/stats/${B}`, key, 200, null, 'and in the other instance');
});

t.test('the operator command line (another Db, as from another process) reaches the caches', async (t) => {
  const { key, prefix, id } = await createKey(db, { kind: 'standard', siteIds: [A], label: 'cli' });
  await status(t, app, `/stats/${A}`, key, 200, null, 'works and is cached');
  t.ok(cachedKey(app, key));
  const seen = applied(app, (e) => e?.key === id);
  const out: string[] = [];
  const err: string[] = [];
  await operatorCommand(config, 'keys', ['revoke', prefix], { out: (s) => void out.push(s), err: (s) => void err.push(s), exit: (code) => void err.push(`exit ${code}`) });
  t.strictSame(err, [], 'revoked by the command line');
  await seen;
  await status(t, app, `/stats/${A}`, key, 401, 'KEY_INVALID', 'refused after the notification');

  const adminKey = (await createKey(db, { kind: 'admin', siteIds: [], label: 'admin' })).key;
  const before = (await get(app, '/categories/', adminKey)).json().categories.map((c: { title: string }) => c.title);
  t.notOk(before.includes('Landsting'));
  const catSeen = applied(app, (e) => e?.categories === true);
  await operatorCommand(config, 'categories', ['add', 'Landsting'], { out: () => {}, err: (s) => void err.push(s), exit: (code) => void err.push(`exit ${code}`) });
  t.strictSame(err, []);
  await catSeen;
  const after = (await get(app, '/categories/', adminKey)).json().categories.map((c: { title: string }) => c.title);
  t.ok(after.includes('Landsting'), 'a category added by the command line is listed');
});

t.test('a new result appears at once in /stats, /stats_per_month and /categories/', async (t) => {
  const { key } = await createKey(db, { kind: 'standard', siteIds: [A], label: 'reader' });
  const read = async (instance: FastifyInstance) => ({
    stats: (await get(instance, `/stats/${A}`, key)).json(),
    month: (await get(instance, `/stats_per_month/${A}`, key)).json(),
    cats: (await get(instance, '/categories/', key)).json(),
  });
  const before = await read(app);
  const before2 = await read(app2);
  t.strictSame(before2, before, 'both instances answer alike');
  t.equal(before.stats.timestamp, JAN.toISOString());
  t.ok(app.resultsCache.responses.size >= 3, 'the answers are cached');
  t.strictSame(await read(app), before, 'and answered again from the cache');

  const FEB = new Date('2025-02-10T08:30:00Z');
  // Two notifications: the save's (the site's answers) and its categories' averages' just after it.
  const seen = Promise.all([applied(app2, (e) => e?.site === A), applied(app2, (e) => e?.categories === true)]);
  await seedRun(db, A, { url: 'https://alfa.example/', outcomes: [outcome(30, 5, { a11y: 5, pagespeed: 5 })], testDate: FEB });
  const after = await read(app);
  t.equal(after.stats.timestamp, FEB.toISOString(), '/stats: the new result, right after the commit');
  t.equal(after.stats.data.find((r: { type_of_test: number }) => r.type_of_test === 30).rating, 5);
  t.ok(after.month.data.some((m: { timeperiod: string }) => m.timeperiod === '2025-02'), '/stats_per_month: the new month');
  const kommuner = (r: typeof before) => r.cats.categories.find((c: { title: string }) => c.title === 'Kommuner');
  t.not(kommuner(after).rating_a11y, kommuner(before).rating_a11y, '/categories/: the new averages');
  await seen;
  t.strictSame(await read(app2), after, 'the other instance, after the notification');
});

t.test('a changed start page reaches one-off orders at once, in this process and in another', async (t) => {
  const C = await seedSite(db, { title: 'Gamma kommun', url: 'https://gamma.example/', monthlyQuota: 1000 });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [C], label: 'orders' });
  const once = async (instance: FastifyInstance, address: string) => {
    const res = await instance.inject({
      method: 'POST', url: '/test_once/', payload: `urls=${encodeURIComponent(address)}`,
      headers: { 'api-key': key, 'site-id': String(C), 'content-type': 'application/x-www-form-urlencoded' },
    });
    return [res.statusCode, res.statusCode === 200 ? null : res.json().error];
  };
  const cachedUrl = (instance: FastifyInstance) => instance.resultsCache.sites.get(String(C))?.url;
  for (const instance of [app, app2]) {
    t.equal((await once(instance, 'https://gamma.example/a'))[0], 200, 'an address on the site is ordered');
    t.equal(cachedUrl(instance), 'https://gamma.example/', 'the site record is cached');
    t.strictSame(await once(instance, 'https://delta.example/a'), [400, 'URLS_INVALID'], 'an address elsewhere is refused');
  }
  const seen = applied(app2, (e) => e?.site === C);
  t.equal(await updateCatalogSite(db, C, { url: 'https://delta.example/' }, null), true);
  t.equal(cachedUrl(app), undefined, 'this process: dropped at the change');
  t.strictSame(await once(app, 'https://gamma.example/b'), [400, 'URLS_INVALID'], 'the old domain is refused at once');
  t.equal((await once(app, 'https://delta.example/b'))[0], 200, 'the new one is ordered');
  await seen;
  t.equal(cachedUrl(app2), undefined, 'the other instance: dropped by the notification');
  t.strictSame(await once(app2, 'https://gamma.example/b'), [400, 'URLS_INVALID'], 'and it refuses the old domain');
  t.equal((await once(app2, 'https://delta.example/b'))[0], 200);
  t.equal(cachedUrl(app2), 'https://delta.example/');

  const adminKey = (await createKey(db, { kind: 'admin', siteIds: [], label: 'admin orders' })).key;
  const res = await app.inject({
    method: 'POST', url: '/test_once/', payload: 'urls=https%3A%2F%2Fnowhere.example%2F',
    headers: { 'api-key': adminKey, 'site-id': '2147483000', 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.strictSame([res.statusCode, res.json().error], [404, 'SITE_NOT_FOUND'], 'a site that does not exist');
  t.equal(app.resultsCache.sites.get('2147483000'), undefined, 'is not cached');
});

/** An order through `instance`: [status, error code or null, message or null]. */
async function order(instance: FastifyInstance, key: string, siteId: number, kind: 'retest' | 'once') {
  const res = kind === 'retest'
    ? await instance.inject({ method: 'POST', url: '/retest/', headers: { 'api-key': key, 'site-id': String(siteId), testnums: '[30]' } })
    : await instance.inject({
      method: 'POST', url: '/test_once/', payload: `urls=${encodeURIComponent('https://epsilon.example/x')}`,
      headers: { 'api-key': key, 'site-id': String(siteId), 'content-type': 'application/x-www-form-urlencoded' },
    });
  return res.statusCode === 200 ? [200, null, null] : [res.statusCode, res.json().error, res.json().message];
}
const refused = (needed: number, left: number) => [400, 'QUOTA_EXCEEDED', quotaExceededMessage(needed, left)];
const refusal = (instance: FastifyInstance, siteId: number) => instance.resultsCache.refusals.get(String(siteId));

t.test('a refusal for want of credits is answered from memory until a raised quota reaches it', async (t) => {
  const D = await seedSite(db, { title: 'Epsilon kommun', url: 'https://epsilon.example/', monthlyQuota: 10 });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [D], label: 'refusals' });
  for (const instance of [app, app2]) {
    t.strictSame(await order(instance, key, D, 'once'), refused(15, 10), 'refused by the database');
    t.equal(refusal(instance, D), 10, 'the credits then available are kept for the site');
  }
  // Raised behind the caches' back (no event): only the database would now accept.
  await db.updateTable('sites').set({ monthly_quota: 100 }).where('id', '=', D).execute();
  for (const instance of [app, app2]) {
    t.strictSame(await order(instance, key, D, 'once'), refused(15, 10), 'refused again without asking the database');
  }
  t.equal(Number((await db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', D).executeTakeFirstOrThrow()).n), 0, 'nothing ordered');
  const seen = applied(app2, (e) => e?.site === D);
  t.equal(await updateCatalogSite(db, D, { monthly_quota: 100 }, null), true, 'the quota raised as the service does it');
  t.equal(refusal(app, D), undefined, 'this process: dropped at the change');
  t.strictSame(await order(app, key, D, 'once'), [200, null, null], 'and the order fits at once');
  await seen;
  t.equal(refusal(app2, D), undefined, 'the other instance: dropped by the notification');
  t.strictSame(await order(app2, key, D, 'once'), [200, null, null]);
});

t.test('an order that may fit always reaches the database; an accepted one keeps the quoted number exact everywhere', async (t) => {
  const E = await seedSite(db, { title: 'Zeta kommun', url: 'https://epsilon.example/', monthlyQuota: 16 });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [E], label: 'refusals' });
  const first = Promise.all([app, app2].map((instance) => applied(instance, (e) => e?.credits === E)));
  t.strictSame(await order(app2, key, E, 'once'), [200, null, null], '15 of 16 credits');
  await first;
  for (const instance of [app, app2]) {
    t.strictSame(await order(instance, key, E, 'once'), refused(15, 1));
    t.equal(refusal(instance, E), 1);
  }
  const seen = applied(app2, (e) => e?.credits === E);
  t.strictSame(await order(app, key, E, 'retest'), [200, null, null], 'a 1-credit re-test is not refused from memory: it fits');
  t.equal(refusal(app, E), undefined, 'this process drops what it knew at once');
  t.strictSame(await order(app, key, E, 'once'), refused(15, 0), 'and quotes the database\'s number');
  await seen;
  t.equal(refusal(app2, E), undefined, 'the other instance: dropped by place_order\'s event');
  t.strictSame(await order(app2, key, E, 'once'), refused(15, 0), 'its refusal quotes the new number');
  t.equal(refusal(app2, E), 0);
  t.strictSame(await order(app2, key, E, 'retest'), refused(1, 0), 'from memory now: nothing fits');
});

t.test('a refusal is kept no longer than until the oldest booking leaves the window', async (t) => {
  const F = await seedSite(db, { title: 'Eta kommun', url: 'https://epsilon.example/', monthlyQuota: 1 });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [F], label: 'refusals' });
  const spent = applied(app, (e) => e?.credits === F);
  t.strictSame(await order(app, key, F, 'retest'), [200, null, null]);
  await spent;
  // The booking is made to leave the 30-day window 4 s from now.
  await sql`update credit_ledger set created_at = now() - interval '30 days' + interval '4000 milliseconds' where site_id = ${F}`.execute(db);
  t.strictSame(await order(app, key, F, 'retest'), refused(1, 0));
  t.equal(refusal(app, F), 0, 'kept');
  t.strictSame(await order(app, key, F, 'retest'), refused(1, 0), 'refused from memory meanwhile');
  await new Promise((resolve) => setTimeout(resolve, 4_100));
  t.equal(refusal(app, F), undefined, 'gone once the booking has left the window');
  t.strictSame(await order(app, key, F, 'retest'), [200, null, null], 'and the credit it frees is spent');
});

t.test('a premium level\'s raised quota reaches the refusals of its sites', async (t) => {
  await setLevel(db, 'Refusals', 1);
  const G = await seedSite(db, { title: 'Theta kommun', url: 'https://epsilon.example/', premiumLevel: 'Refusals' });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [G], label: 'refusals' });
  const spent = applied(app2, (e) => e?.credits === G);
  t.strictSame(await order(app2, key, G, 'retest'), [200, null, null]);
  await spent;
  t.strictSame(await order(app2, key, G, 'retest'), refused(1, 0));
  t.equal(refusal(app2, G), 0);
  const seen = applied(app2, (e) => e?.levels === true);
  await setLevel(db, 'Refusals', 2);
  await seen;
  t.equal(refusal(app2, G), undefined, 'dropped by the levels event');
  t.strictSame(await order(app2, key, G, 'retest'), [200, null, null], 'the level\'s new credit is spent');
});

t.test('a private result does not touch the public answers', async (t) => {
  const { key } = await createKey(db, { kind: 'standard', siteIds: [B], label: 'b' });
  const before = (await get(app, `/stats/${B}`, key)).body;
  await seedRun(db, B, { url: 'https://beta.example/privat', private: true, outcomes: [outcome(30, 5, { a11y: 5 })] });
  t.equal((await get(app, `/stats/${B}`, key)).body, before);
});

t.test('an unknown key never gets cached access, and a flood of them evicts nothing', async (t) => {
  const { key } = await createKey(db, { kind: 'standard', siteIds: [A], label: 'good' });
  await status(t, app, `/stats/${A}`, key, 200, null, 'a good key, cached');
  const size = app.resultsCache.keys.size;
  for (let i = 0; i < 200; i++) {
    const bad = `wpk_${randomBytes(6).toString('hex')}_${randomBytes(32).toString('base64url')}`;
    const res = await get(app, `/stats/${A}`, bad);
    if (res.statusCode !== 401) t.fail(`unknown key answered ${res.statusCode}`);
    if (cachedKey(app, bad)) t.fail('an unknown key was cached');
  }
  t.equal(app.resultsCache.keys.size, size, 'nothing added for unknown keys');
  t.ok(cachedKey(app, key), 'the good key is still cached');

  // A key unknown when first presented and created afterwards is not held back by any cache.
  const later = await createKey(db, { kind: 'standard', siteIds: [A], label: 'later' });
  await status(t, app, `/stats/${A}`, `${later.prefix}_${'x'.repeat(43)}`, 401, 'KEY_INVALID', 'its prefix with a wrong secret: refused');
  await status(t, app, `/stats/${A}`, later.key, 200, null, 'the key itself: accepted');
});

t.test('ETag and If-None-Match: 304 without a body, after the key and access checks', async (t) => {
  const { key, prefix } = await createKey(db, { kind: 'standard', siteIds: [A], label: 'etag' });
  const other = (await createKey(db, { kind: 'standard', siteIds: [B], label: 'other' })).key;
  for (const path of [`/stats/${A}`, `/stats_per_month/${A}`, '/categories/', `/0.1/stats/${A}`]) {
    const first = await get(app, path, key);
    t.equal(first.statusCode, 200);
    const etag = first.headers.etag as string;
    t.match(etag, /^"[A-Za-z0-9_-]{27}"$/, `${path}: a strong ETag`);
    t.equal(first.headers['cache-control'], 'private, no-cache');
    const again = await get(app, path, key, { 'if-none-match': etag });
    t.strictSame([again.statusCode, again.body, again.headers.etag], [304, '', etag], `${path}: 304 for the current ETag`);
    t.equal((await get(app, path, key, { 'if-none-match': `"other", W/${etag}` })).statusCode, 304, 'a list, weak form');
    t.equal((await get(app, path, key, { 'if-none-match': '"stale"' })).statusCode, 200, 'another ETag: the body');
    t.equal((await get(app, path, null, { 'if-none-match': etag })).statusCode, 401, 'no key: 401, not 304');
    if (path !== '/categories/') t.equal((await get(app, path, other, { 'if-none-match': etag })).statusCode, 403, 'no access: 403, not 304');
  }
  const sv = await get(app, `/stats/${A}?lang=sv`, key);
  const en = await get(app, `/stats/${A}?lang=en`, key);
  t.not(sv.headers.etag, en.headers.etag, 'each language its own ETag');
  t.equal((await get(app, `/stats/${A}?lang=en`, key, { 'if-none-match': sv.headers.etag as string })).statusCode, 200);

  const old = sv.headers.etag as string;
  await seedRun(db, A, { url: 'https://alfa.example/', outcomes: [outcome(21, 1, { webstandard: 1 })], testDate: new Date('2025-03-01T00:00:00Z') });
  const changed = await get(app, `/stats/${A}?lang=sv`, key, { 'if-none-match': old });
  t.equal(changed.statusCode, 200, 'a new result: the old ETag no longer matches');
  t.not(changed.headers.etag, old);

  await revokeKey(db, prefix);
  t.equal((await get(app, `/stats/${A}?lang=sv`, key, { 'if-none-match': changed.headers.etag as string })).statusCode, 401, 'revoked: 401, not 304');
});

t.test('without its LISTEN connection the cache is off; it reconnects and is live again', async (t) => {
  const { key, id } = await createKey(db, { kind: 'standard', siteIds: [A], label: 'outage' });
  await status(t, app2, `/stats/${A}`, key, 200, null, 'cached in the other instance');
  t.ok(cachedKey(app2, key));
  const H = await seedSite(db, { title: 'Iota kommun', url: 'https://epsilon.example/', monthlyQuota: 0 });
  const owner = (await createKey(db, { kind: 'standard', siteIds: [H], label: 'outage refusals' })).key;
  t.strictSame(await order(app2, owner, H, 'retest'), refused(1, 0));
  t.equal(refusal(app2, H), 0, 'a refusal kept');
  const off = live(app2, false);
  const back = live(app2, true);
  // The listening sessions are ended, as a failover or a network cut would end them.
  const { rows } = await sql<{ n: number }>`
    select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
    where datname = current_database() and application_name = ${CACHE_LISTENER_NAME}`.execute(db);
  t.ok(rows[0].n >= 2, 'the listening sessions of both instances were ended');
  await off;
  t.notOk(app2.resultsCache.live, 'off');
  t.equal(app2.resultsCache.keys.size + app2.resultsCache.sites.size + app2.resultsCache.responses.size + app2.resultsCache.refusals.size, 0, 'emptied: a missed notification cannot be served');
  await status(t, app2, `/stats/${A}`, key, 200, null, 'answers still, from the database');
  t.notOk(cachedKey(app2, key), 'and stores nothing while off');
  t.strictSame(await order(app2, owner, H, 'retest'), refused(1, 0), 'refusals come from the database');
  t.equal(refusal(app2, H), undefined, 'and are not kept while off');
  await back;
  t.ok(app2.resultsCache.live, 'reconnected');
  await status(t, app2, `/stats/${A}`, key, 200, null, 'cached again');
  t.ok(cachedKey(app2, key));
  const seen = applied(app2, (e) => e?.key === id);
  await removeKeySites(db, id, [A]);
  await seen;
  await status(t, app2, `/stats/${A}`, key, 403, 'FORBIDDEN_SITE', 'a change reaches it through the new connection');
});
