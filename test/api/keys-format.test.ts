/**
 * The key format: new keys are letters and digits only (what public clients such as webperf-mcp
 * accept: 10–100 ASCII letters and digits), with the lead `wpk`, a 15-character public prefix and
 * a 43-character base62 secret; keys of the earlier `wpk_<hex>_<base64url>` format keep working
 * until revoked; a malformed key gets the documented 401 body.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { createKey, isKeyPrefix, keyPrefix, resolveKey, revokeKey } from '../../core/store/keys.js';
import { buildTestApi } from '../helpers/api.js';
import { LEGACY_KEY_RE, createLegacyKey } from '../helpers/legacy-key.js';
import { operator } from '../helpers/operator.js';
import { seedSite } from '../helpers/seed.js';

const { app, db, url } = await buildTestApi(t, { rateLimitPerMinute: 0 });
const A = await seedSite(db, { title: 'Alfa kommun', url: 'https://alfa.example/' });
const B = await seedSite(db, { title: 'Beta region', url: 'https://beta.example/' });

/** What webperf-mcp checks before it sends anything. */
const CLIENT_RE = /^[A-Za-z0-9]{10,100}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const INVALID = { statusCode: 401, error: 'KEY_INVALID', message: 'The api-key is not valid' };
const MISSING = { statusCode: 401, error: 'KEY_MISSING', message: 'An api-key is required' };

async function get(path: string, key?: string) {
  const res = await app.inject({ method: 'GET', url: path, headers: key === undefined ? {} : { 'api-key': key } });
  return { status: res.statusCode, body: res.json() as any };
}

t.test('a new key is 58 letters and digits: wpk, a 12-character id, a 43-character secret', async (t) => {
  const made = [];
  for (let i = 0; i < 200; i++) made.push(await createKey(db, { kind: 'standard', siteIds: [A], label: `k${i}` }));
  for (const { key, prefix } of made) {
    if (!CLIENT_RE.test(key) || !/^wpk[A-Za-z0-9]{55}$/.test(key) || prefix !== key.slice(0, 15)) t.fail(`not of the format: ${prefix}`);
  }
  t.pass('all 200 keys are 58 letters and digits led by wpk, with their first 15 characters as prefix');
  t.equal(new Set(made.map((m) => m.key)).size, 200, 'all different');
  t.equal(new Set(made.map((m) => m.prefix)).size, 200, 'so are their prefixes');
  // The secret draws on all 62 characters (8,600 draws: each character expected about 139 times),
  // so it carries 43 × log2(62) ≈ 256 bits, not the 172 of hex or the like.
  const seen = new Set(made.flatMap((m) => [...m.key.slice(15)]));
  t.strictSame([...seen].sort().join(''), [...BASE62].sort().join(''), 'the secrets use every base62 character');
  const ids = new Set(made.flatMap((m) => [...m.key.slice(3, 15)]));
  t.ok(ids.size > 50, `the lookup ids are base62 too (${ids.size} distinct characters)`);

  const { key, prefix, id } = made[0];
  t.equal(keyPrefix(key), prefix);
  t.ok(isKeyPrefix(prefix), 'the prefix is recognised as one');
  t.notOk(isKeyPrefix(key), 'a whole key is not a prefix');
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  t.strictSame(row.prefix, prefix, 'stored by its prefix');
  t.strictSame(row.hash, createHash('sha256').update(key).digest(), 'and the SHA-256 of the whole key');
  t.notOk(Object.values(row).some((v) => (typeof v === 'string' || Buffer.isBuffer(v)) && v.toString().includes(key.slice(15))), 'the secret is stored nowhere');
});

t.test('a new key authenticates, on both version segments, until revoked', async (t) => {
  const made = await createKey(db, { kind: 'agency', siteIds: [A, B], label: 'new' });
  t.strictSame(await resolveKey(db, made.key), { id: made.id, kind: 'agency', label: 'new', siteIds: [A, B] });
  for (const prefix of ['', '/0.1']) {
    const stats = await get(`${prefix}/stats/`, made.key);
    t.strictSame([stats.status, stats.body.map((s: any) => s.site_id)], [200, [A, B]], `${prefix}/stats/`);
    const me = await get(`${prefix}/whoami/`, made.key);
    t.strictSame([me.status, me.body.prefix, me.body.site_ids], [200, made.prefix, [A, B]], `${prefix}/whoami/`);
  }
  t.ok(await revokeKey(db, made.prefix));
  t.strictSame(await get('/stats/', made.key), { status: 401, body: INVALID }, 'revoked: 401');
});

t.test('a key of the earlier format keeps working until revoked', async (t) => {
  const old = await createLegacyKey(db, { kind: 'standard', siteIds: [B], label: 'from 2025' });
  t.match(old.key, LEGACY_KEY_RE);
  t.notOk(CLIENT_RE.test(old.key), 'the very key the public client refuses');
  t.equal(keyPrefix(old.key), old.prefix);
  t.ok(isKeyPrefix(old.prefix));
  t.strictSame(await resolveKey(db, old.key), { id: old.id, kind: 'standard', label: 'from 2025', siteIds: [B] });
  for (const prefix of ['', '/0.1']) {
    const stats = await get(`${prefix}/stats/${B}`, old.key);
    t.equal(stats.status, 200, `${prefix}/stats/{id}`);
    const me = await get(`${prefix}/whoami/`, old.key);
    t.strictSame([me.status, me.body.kind, me.body.label, me.body.prefix, me.body.site_ids], [200, 'standard', 'from 2025', old.prefix, [B]], `${prefix}/whoami/`);
  }
  t.strictSame(await get(`/stats/${A}`, old.key), { status: 403, body: { statusCode: 403, error: 'FORBIDDEN_SITE', message: 'This api-key has no access to the site' } }, 'and reaches only its sites');
  // Its prefix with another secret, or its secret cut short: not the key.
  t.strictSame(await get('/stats/', `${old.prefix}_${'A'.repeat(43)}`), { status: 401, body: INVALID });
  t.strictSame(await get('/stats/', old.key.slice(0, -1)), { status: 401, body: INVALID });
  t.ok(await revokeKey(db, old.prefix));
  t.strictSame(await get('/stats/', old.key), { status: 401, body: INVALID }, 'revoked: 401');
  t.equal(await resolveKey(db, old.key), null);
});

t.test('a malformed key gets the documented 401 body, a missing key its own', async (t) => {
  const good = await createKey(db, { kind: 'standard', siteIds: [A], label: 'good' });
  const malformed = {
    'the lead alone': 'wpk',
    'one character short': good.key.slice(0, -1),
    'one character long': `${good.key}a`,
    'upper-case lead': `WPK${good.key.slice(3)}`,
    'another lead': `abc${good.key.slice(3)}`,
    'an underscore in the secret': `${good.key.slice(0, 30)}_${good.key.slice(31)}`,
    'a space around it': ` ${good.key}`,
    'non-ASCII letters': `${good.key.slice(0, -1)}å`,
    'a bearer token': `Bearer ${good.key}`,
    'the prefix alone': good.prefix,
    'the earlier format with a short secret': `wpk_000000000000_${'x'.repeat(42)}`,
    'ten letters': 'abcdefghij',
    'a hundred letters': 'a'.repeat(100),
  };
  for (const [what, key] of Object.entries(malformed)) {
    for (const path of ['/stats/', '/0.1/whoami/']) t.strictSame(await get(path, key), { status: 401, body: INVALID }, `${what}: ${path}`);
  }
  t.strictSame(await get('/whoami/'), { status: 401, body: MISSING }, 'no key');
  t.equal((await get('/whoami/', good.key)).status, 200, 'while the well-formed key works');
});

t.test('the OpenAPI description documents the format', async (t) => {
  const doc = (await app.inject('/openapi.json')).json();
  for (const scheme of ['ApiKeyAuth', 'AdminApiKey', 'QueryApiKey']) {
    const d: string = doc.components.securitySchemes[scheme].description;
    t.ok(d.includes('`wpk` followed by 55 base62 characters (`^wpk[A-Za-z0-9]{55}$`)'), `${scheme}: the format`);
    t.ok(d.includes('keep working until revoked'), `${scheme}: the earlier format`);
    t.ok(d.includes('401 `{"statusCode":401,"error":"KEY_INVALID","message":"The api-key is not valid"}`'), `${scheme}: the 401 body`);
  }
  t.match(doc.info.description, /\*\*Keys\*\*: `api-key` values are `wpk` followed by 55 letters and digits/);
});

t.test('webperf keys revoke takes a prefix or a whole key of either format', async (t) => {
  // In this process (test/helpers/operator.ts): what `webperf keys revoke` prints, and its exit code.
  // The spawned CLI's own keys revoke is tested in test/runners/operator-cli.test.ts.
  const op = (...args: string[]) => operator({ DATABASE_URL: url, WEBPERF_DEMO: '0' }, ...args);
  const byKey = await createKey(db, { kind: 'standard', siteIds: [A], label: 'cli 1' });
  const old = await createLegacyKey(db, { kind: 'standard', siteIds: [A], label: 'cli 2' });
  const byPrefix = await createKey(db, { kind: 'standard', siteIds: [A], label: 'cli 3' });
  t.strictSame(await op('keys', 'revoke', byKey.key), { code: 0, stdout: `key ${byKey.prefix} revoked\n`, stderr: '' }, 'a whole new key: its prefix');
  t.strictSame(await op('keys', 'revoke', old.key), { code: 0, stdout: `key ${old.prefix} revoked\n`, stderr: '' }, 'a whole old key: its prefix');
  t.strictSame(await op('keys', 'revoke', byPrefix.prefix), { code: 0, stdout: `key ${byPrefix.prefix} revoked\n`, stderr: '' }, 'a new prefix');
  for (const k of [byKey, old, byPrefix]) t.equal(await resolveKey(db, k.key), null, `${k.prefix} no longer resolves`);
  const junk = await op('keys', 'revoke', 'wpk123');
  t.equal(junk.code, 2);
  t.match(junk.stderr, /"wpk123" is neither a key ID nor a key prefix \(as webperf keys list shows it: wpk and 12 letters or digits/);
});
