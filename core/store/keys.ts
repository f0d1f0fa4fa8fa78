/**
 * API keys: random, high-entropy, with a recognisable lead (`wpk`); stored only as SHA-256
 * hashes, looked up by their public prefix and compared in constant time. A key reaches the
 * sites linked to it; an agency key reaches its portfolio (the sites linked to it); an admin key
 * reaches every site and has the elevated permissions.
 *
 * The format is letters and digits only, because public clients (webperf-mcp, mirroring
 * api.webperf.se) refuse anything else before sending a request: `wpk`, a 12-character lookup id
 * and a 43-character secret, all base62 (58 characters). The secret alone carries 43 × log2(62)
 * ≈ 256.03 bits. Keys issued before (`wpk_<12 hex>_<43 base64url>`) keep working until revoked.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';
import { notifyCache, withCacheEvents } from './notify.js';

export type KeyKind = 'standard' | 'agency' | 'admin';

/** A key, resolved from a request. */
export interface ResolvedKey {
  id: number;
  kind: KeyKind;
  label: string;
  /** Sites the key reaches; null means every site (admin). */
  siteIds: number[] | null;
}

/** The lead of every key and prefix. */
export const KEY_LEAD = 'wpk';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_CHARS = 12;
const SECRET_CHARS = 43;
/** A key of the current format: lead, lookup id, secret. */
export const KEY_PATTERN = new RegExp(`^${KEY_LEAD}[A-Za-z0-9]{${ID_CHARS + SECRET_CHARS}}$`);
/** The public prefix of a current key: lead and lookup id (15 characters). */
export const PREFIX_PATTERN = new RegExp(`^${KEY_LEAD}[A-Za-z0-9]{${ID_CHARS}}$`);
/** Keys issued before the letters-and-digits format; still accepted until revoked. */
const LEGACY_KEY_PATTERN = /^(wpk_[0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;
const LEGACY_PREFIX_PATTERN = /^wpk_[0-9a-f]{12}$/;

/** Characters drawn uniformly from base62 (randomInt rejects the biased draws). */
function base62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** The lookup prefix of a presented key (current or legacy format), or null when it is malformed. */
export function keyPrefix(presented: string): string | null {
  if (KEY_PATTERN.test(presented)) return presented.slice(0, KEY_LEAD.length + ID_CHARS);
  return LEGACY_KEY_PATTERN.exec(presented)?.[1] ?? null;
}

/** Whether the text is a key's public prefix (as `keys list` and the portal show it), of either format. */
export function isKeyPrefix(text: string): boolean {
  return PREFIX_PATTERN.test(text) || LEGACY_PREFIX_PATTERN.test(text);
}

/** Whether a key is of the current format (an older key works, but clients may refuse it). */
export function isCurrentKeyFormat(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The SHA-256 of a presented key, hex: what an in-process cache of resolved keys is keyed by. */
export function keyDigest(presented: string): string {
  return createHash('sha256').update(presented).digest('hex');
}

/** Creates a key and returns it: the only time the full key is ever seen. */
export async function createKey(db: Db, options: { kind: KeyKind; siteIds: number[]; label?: string; userId?: number }): Promise<{ id: number; key: string; prefix: string }> {
  const prefix = `${KEY_LEAD}${base62(ID_CHARS)}`;
  const key = `${prefix}${base62(SECRET_CHARS)}`;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('api_keys')
      .values({ prefix, hash: sha256(key), kind: options.kind, label: options.label ?? '', user_id: options.userId ?? null })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (options.siteIds.length) {
      await trx.insertInto('key_sites').values(options.siteIds.map((site_id) => ({ key_id: row.id, site_id }))).execute();
    }
    return { id: row.id, key, prefix };
  });
}

/** Resolves a presented key, or null when it is malformed, unknown or revoked. */
export async function resolveKey(db: Db, presented: string): Promise<ResolvedKey | null> {
  const prefix = keyPrefix(presented);
  // Hash anyway so that a malformed key costs about as much as a wrong one.
  const presentedHash = sha256(presented);
  if (prefix === null) return null;
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'hash', 'kind', 'label', 'revoked_at'])
    .where('prefix', '=', prefix)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null) return null;
  if (row.hash.length !== presentedHash.length || !timingSafeEqual(row.hash, presentedHash)) return null;
  const kind = row.kind as KeyKind;
  if (kind === 'admin') return { id: row.id, kind, label: row.label, siteIds: null };
  const sites = await db.selectFrom('key_sites').select('site_id').where('key_id', '=', row.id).orderBy('site_id').execute();
  return { id: row.id, kind, label: row.label, siteIds: sites.map((s) => s.site_id) };
}

/** What a resolved key is, for its holder (GET /whoami/): never its hash. */
export interface KeyDescription {
  prefix: string;
  createdAt: Date;
  /** Every site the key reaches now, ascending (an admin key: every site there is). */
  siteIds: number[];
}

/** Describes a resolved key; null when it is gone (revoked or deleted since it was resolved). */
export async function describeKey(db: Db, key: ResolvedKey): Promise<KeyDescription | null> {
  const row = await db
    .selectFrom('api_keys')
    .select(['prefix', 'created_at'])
    .where('id', '=', key.id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  const siteIds = key.siteIds !== null
    ? [...key.siteIds]
    : (await db.selectFrom('sites').select('id').orderBy('id').execute()).map((s) => s.id);
  return { prefix: row.prefix, createdAt: new Date(row.created_at), siteIds };
}

/** Whether a key (or a portal user, whose reach has the same shape) reaches the site. */
export function canReach(key: Pick<ResolvedKey, 'siteIds'>, siteId: number): boolean {
  return key.siteIds === null || key.siteIds.includes(siteId);
}

/** Revokes a key; the API processes drop it from their caches when this commits. */
export async function revokeKey(db: Db, prefixOrId: string | number, options: { userId?: number } = {}): Promise<boolean> {
  return withCacheEvents(db, async (trx) => {
    let q = trx.updateTable('api_keys').set({ revoked_at: new Date() }).where('revoked_at', 'is', null);
    // A portal user revokes only their own keys.
    if (options.userId !== undefined) q = q.where('user_id', '=', options.userId);
    const row = await (typeof prefixOrId === 'number' ? q.where('id', '=', prefixOrId) : q.where('prefix', '=', prefixOrId)).returning('id').executeTakeFirst();
    if (!row) return false;
    await notifyCache(trx, { key: row.id });
    return true;
  });
}

export async function listKeys(db: Db) {
  const keys = await db.selectFrom('api_keys').select(['id', 'prefix', 'kind', 'label', 'created_at', 'revoked_at']).orderBy('id').execute();
  const links = await db.selectFrom('key_sites').select(['key_id', 'site_id']).orderBy('site_id').execute();
  return keys.map((k) => ({ ...k, site_ids: links.filter((l) => l.key_id === k.id).map((l) => l.site_id) }));
}

/** A portal user's keys, newest first (never the key itself: only its public prefix). */
export async function listUserKeys(db: Db, userId: number) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'kind', 'label', 'created_at', 'last_used_at', 'revoked_at'])
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
}

/**
 * Records that a key was used. At most one write per key a minute: "last used" is for people,
 * and a write per request would cost more than the request.
 */
export async function touchKey(db: Db, keyId: number, now = new Date()): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now.getTime() - 60_000))]))
    .execute();
}

/** Links sites to a key; the API processes drop the key from their caches when this commits. */
export async function addKeySites(db: Db, keyId: number, siteIds: number[]): Promise<void> {
  if (!siteIds.length) return;
  await withCacheEvents(db, async (trx) => {
    await trx
      .insertInto('key_sites')
      .values(siteIds.map((site_id) => ({ key_id: keyId, site_id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
    await notifyCache(trx, { key: keyId });
  });
}

/** Unlinks sites from a key; the API processes drop the key from their caches when this commits. */
export async function removeKeySites(db: Db, keyId: number, siteIds: number[]): Promise<void> {
  if (!siteIds.length) return;
  await withCacheEvents(db, async (trx) => {
    await trx.deleteFrom('key_sites').where('key_id', '=', keyId).where('site_id', 'in', siteIds).execute();
    await notifyCache(trx, { key: keyId });
  });
}
