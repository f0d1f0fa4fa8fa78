/**
 * A key of the earlier format (`wpk_<12 hex>_<43 base64url>`), stored as the service stored it
 * before keys became letters and digits: such keys must keep working until revoked.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../core/db/database.js';
import type { KeyKind } from '../../core/store/keys.js';

export const LEGACY_KEY_RE = /^wpk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/;

export async function createLegacyKey(db: Db, options: { kind: KeyKind; siteIds: number[]; label?: string }): Promise<{ id: number; key: string; prefix: string }> {
  const prefix = `wpk_${randomBytes(6).toString('hex')}`;
  const key = `${prefix}_${randomBytes(32).toString('base64url')}`;
  const row = await db
    .insertInto('api_keys')
    .values({ prefix, hash: createHash('sha256').update(key).digest(), kind: options.kind, label: options.label ?? '' })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (options.siteIds.length) await db.insertInto('key_sites').values(options.siteIds.map((site_id) => ({ key_id: row.id, site_id }))).execute();
  return { id: row.id, key, prefix };
}
