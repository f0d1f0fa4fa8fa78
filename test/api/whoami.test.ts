/**
 * GET /whoami/ and /0.1/whoami/: the presented key's kind, label, prefix, creation time, the sites
 * it reaches and what is left of its rate limit, counted as the limiter counts (this request
 * included); 401 with the documented body for a missing, malformed, unknown or revoked key, the
 * same for an unknown prefix as for a known prefix with a wrong secret.
 */
import { randomInt } from 'node:crypto';
import t from 'tap';
import { createKey, revokeKey, type KeyKind } from '../../core/store/keys.js';
import { buildTestApi } from '../helpers/api.js';
import { createLegacyKey } from '../helpers/legacy-key.js';
import { seedSite } from '../helpers/seed.js';

const LIMIT = 10;
const { app, db } = await buildTestApi(t, { rateLimitPerMinute: LIMIT });
const A = await seedSite(db, { title: 'Alfa kommun', url: 'https://alfa.example/' });
const B = await seedSite(db, { title: 'Beta region', url: 'https://beta.example/' });
const C = await seedSite(db, { title: 'Gamma AB', url: 'https://gamma.example/' });

const INVALID = { statusCode: 401, error: 'KEY_INVALID', message: 'The api-key is not valid' };
const MISSING = { statusCode: 401, error: 'KEY_MISSING', message: 'An api-key is required' };
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (n: number) => Array.from({ length: n }, () => BASE62[randomInt(62)]).join('');

async function whoami(key: string | undefined, prefix = '', target = app) {
  const res = await target.inject({ method: 'GET', url: `${prefix}/whoami/`, headers: key === undefined ? {} : { 'api-key': key } });
  return { status: res.statusCode, body: res.json() as any, raw: res.body, headers: res.headers };
}

async function created(id: number): Promise<string> {
  const row = await db.selectFrom('api_keys').select('created_at').where('id', '=', id).executeTakeFirstOrThrow();
  return new Date(row.created_at).toISOString();
}

t.test('each kind of key: the exact body, on both version segments', async (t) => {
  const cases: { kind: KeyKind; label: string; siteIds: number[]; reach: number[]; all: boolean }[] = [
    { kind: 'standard', label: 'Alfa webb', siteIds: [A], reach: [A], all: false },
    { kind: 'agency', label: 'Byrå AB', siteIds: [C, A], reach: [A, C], all: false },
    { kind: 'admin', label: '', siteIds: [], reach: [A, B, C], all: true },
  ];
  for (const c of cases) {
    const k = await createKey(db, { kind: c.kind, siteIds: c.siteIds, label: c.label });
    const expected = {
      api_version: '0.1',
      kind: c.kind,
      label: c.label,
      prefix: k.prefix,
      created: await created(k.id),
      all_sites: c.all,
      site_ids: c.reach,
      site_count: c.reach.length,
    };
    // The key's first request opens its one-minute window: 60 s to go, one request used.
    const first = await whoami(k.key);
    t.strictSame([first.status, first.body], [200, { ...expected, rate_limit: { limit: LIMIT, remaining: LIMIT - 1, reset: 60 } }], `${c.kind}: exact body`);
    t.equal(first.headers['cache-control'], 'no-store', `${c.kind}: not stored by caches`);
    t.notOk(first.raw.includes(k.key.slice(15)), `${c.kind}: the secret is not in the answer`);
    const second = await whoami(k.key, '/0.1');
    t.strictSame([second.status, { ...second.body, rate_limit: null }], [200, { ...expected, rate_limit: null }], `${c.kind}: /0.1/whoami/ answers the same`);
    t.equal(second.body.rate_limit.remaining, LIMIT - 2, `${c.kind}: the versioned route shares the counter`);
    t.strictSame(
      second.body.rate_limit,
      { limit: Number(second.headers['x-ratelimit-limit']), remaining: Number(second.headers['x-ratelimit-remaining']), reset: Number(second.headers['x-ratelimit-reset']) },
      `${c.kind}: rate_limit is what the limiter says in its headers`,
    );
    t.ok(second.body.rate_limit.reset >= 1 && second.body.rate_limit.reset <= 60, `${c.kind}: reset within the window`);
  }
});

t.test('the rate limit counts every premium request of the key, whoami included, up to 429', async (t) => {
  const k = await createKey(db, { kind: 'standard', siteIds: [B], label: 'counted' });
  t.equal((await whoami(k.key)).body.rate_limit.remaining, LIMIT - 1);
  t.equal((await app.inject({ url: `/stats/${B}`, headers: { 'api-key': k.key } })).statusCode, 200);
  t.equal((await app.inject({ url: '/0.1/stats/', headers: { 'api-key': k.key } })).statusCode, 200);
  t.equal((await whoami(k.key)).body.rate_limit.remaining, LIMIT - 4, 'two other requests and this one');
  for (let i = 5; i <= LIMIT; i++) t.equal((await whoami(k.key)).body.rate_limit.remaining, LIMIT - i);
  const over = await whoami(k.key);
  t.equal(over.status, 429, 'over the limit');
  t.equal(over.body.error, 'RATE_LIMITED');
  t.strictSame(Object.keys(over.body), ['statusCode', 'error', 'message']);
  // Another key has its own window.
  const other = await createKey(db, { kind: 'standard', siteIds: [B], label: 'other' });
  t.equal((await whoami(other.key)).body.rate_limit.remaining, LIMIT - 1);
});

t.test('the reach is read when asked: an admin key sees a site added later', async (t) => {
  const admin = await createKey(db, { kind: 'admin', siteIds: [], label: 'ops' });
  t.strictSame((await whoami(admin.key)).body.site_ids, [A, B, C]);
  const D = await seedSite(db, { title: 'Delta kommun', url: 'https://delta.example/' });
  const after = (await whoami(admin.key)).body;
  t.strictSame([after.site_ids, after.site_count, after.all_sites], [[A, B, C, D], 4, true]);
});

t.test('a key of the earlier format answers too', async (t) => {
  const old = await createLegacyKey(db, { kind: 'agency', siteIds: [B, A], label: 'från förr' });
  const res = await whoami(old.key);
  t.strictSame([res.status, res.body], [200, {
    api_version: '0.1', kind: 'agency', label: 'från förr', prefix: old.prefix, created: await created(old.id),
    all_sites: false, site_ids: [A, B], site_count: 2, rate_limit: { limit: LIMIT, remaining: LIMIT - 1, reset: 60 },
  }]);
});

t.test('401: missing, malformed, unknown, wrong secret, revoked; never a hint whether a prefix exists', async (t) => {
  // Without a rate limit: these requests all count on the client address.
  const { app: open, db: openDb } = await buildTestApi(t, { rateLimitPerMinute: 0 });
  const site = await seedSite(openDb, { title: 'Alfa kommun', url: 'https://alfa.example/' });
  const known = await createKey(openDb, { kind: 'standard', siteIds: [site], label: 'known' });
  const legacy = await createLegacyKey(openDb, { kind: 'standard', siteIds: [site], label: 'legacy' });
  const ok = await whoami(known.key, '', open);
  t.strictSame([ok.status, ok.body.rate_limit], [200, null], 'without a rate limit: rate_limit is null');

  for (const prefix of ['', '/0.1']) {
    t.strictSame(await whoami(undefined, prefix, open).then((r) => [r.status, r.body]), [401, MISSING], `${prefix} no key`);
    t.strictSame(await whoami('', prefix, open).then((r) => [r.status, r.body]), [401, MISSING], `${prefix} an empty key`);
    const answers = {
      'malformed': await whoami('wpk-not-a-key', prefix, open),
      'unknown prefix': await whoami(`wpk${base62(55)}`, prefix, open),
      'known prefix, wrong secret': await whoami(`${known.prefix}${base62(43)}`, prefix, open),
      'unknown prefix (earlier format)': await whoami(`wpk_0123456789ab_${'A'.repeat(43)}`, prefix, open),
      'known prefix, wrong secret (earlier format)': await whoami(`${legacy.prefix}_${'A'.repeat(43)}`, prefix, open),
    };
    for (const [what, res] of Object.entries(answers)) {
      t.equal(res.status, 401, `${prefix} ${what}: 401`);
      t.equal(res.raw, JSON.stringify(INVALID), `${prefix} ${what}: byte for byte the documented body`);
      t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `${prefix} ${what}: JSON`);
    }
  }

  // Resolved (and cached) first, then revoked: 401 at once, whatever a cache still holds.
  t.equal((await whoami(legacy.key, '', open)).status, 200);
  t.equal((await whoami(known.key, '/0.1', open)).status, 200);
  t.ok(await revokeKey(openDb, known.prefix));
  t.ok(await revokeKey(openDb, legacy.id));
  for (const key of [known.key, legacy.key]) {
    for (const prefix of ['', '/0.1']) t.strictSame(await whoami(key, prefix, open).then((r) => [r.status, r.body]), [401, INVALID], `${prefix} revoked`);
  }
});

t.test('described in the OpenAPI document, once, with its response schema', async (t) => {
  const doc = (await app.inject('/openapi.json')).json();
  t.notOk(doc.paths['/0.1/whoami/'], 'the /0.1 copy is not described twice');
  const op = doc.paths['/whoami/'].get;
  t.strictSame(op.tags, ['premium']);
  t.strictSame(op.security, [{ ApiKeyAuth: [] }, { AdminApiKey: [] }]);
  t.match(op.description, /never tells whether a prefix exists/);
  const schema = op.responses['200'].content['application/json'].schema;
  t.strictSame(schema.required, ['api_version', 'kind', 'label', 'prefix', 'created', 'all_sites', 'site_ids', 'site_count', 'rate_limit']);
  t.strictSame(schema.properties.kind.enum, ['standard', 'agency', 'admin']);
  t.strictSame(schema.properties.rate_limit.required, ['limit', 'remaining', 'reset']);
  t.strictSame(Object.keys(op.responses).sort(), ['200', '401', '429', '500']);
  t.strictSame(Object.keys(op.responses['200'].headers).sort(), ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
});
