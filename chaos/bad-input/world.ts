/**
 * The world the bad-input runs play in: two sites and one key of every kind, created through the
 * store (as the operator commands create them), and the description fetched from the running API.
 */
import type { Db } from '../../core/db/database.js';
import { createKey, revokeKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import type { FuzzWorld } from './fuzz.js';

/** Seeds sites and keys; `port` is the API's. */
export async function seedWorld(db: Db, port: number, testTypeId: number): Promise<FuzzWorld> {
  // IP-literal addresses: nothing the fuzzer makes the service look at resolves a name.
  const siteId = await createSite(db, { title: 'Fuzz site', url: 'http://127.0.0.1:9/', monthlyQuota: 1_000_000 });
  const otherSiteId = await createSite(db, { title: 'Other site', url: 'http://127.0.0.2:9/', monthlyQuota: 1_000_000 });
  const standard = await createKey(db, { kind: 'standard', siteIds: [siteId], label: 'fuzz standard' });
  const other = await createKey(db, { kind: 'standard', siteIds: [otherSiteId], label: 'fuzz other site' });
  const agency = await createKey(db, { kind: 'agency', siteIds: [siteId, otherSiteId], label: 'fuzz agency' });
  const admin = await createKey(db, { kind: 'admin', siteIds: [], label: 'fuzz admin' });
  const revoked = await createKey(db, { kind: 'standard', siteIds: [siteId], label: 'fuzz revoked' });
  await revokeKey(db, revoked.id);
  return {
    port,
    siteId,
    otherSiteId,
    testTypeId,
    keys: { standard: standard.key, 'other-site': other.key, agency: agency.key, admin: admin.key, revoked: revoked.key },
  };
}

/** GETs a JSON document from the API over loopback. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as T;
}
