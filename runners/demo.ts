/**
 * The demo: a small bundled website (runners/demo-site) served on loopback, registered as the demo
 * site with a demo api-key and a premium level, and tested at first start so that a newcomer sees
 * real scores at GET /item/{demo id} within minutes. The demo key is published by design (the
 * spec's "published demo key"): it is kept in the data folder (mode 0600) so that every start can
 * print it; the database holds only its hash. A demo key of the earlier format (which public
 * clients such as webperf-mcp refuse) is revoked and replaced by one of the current format.
 */
import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../core/db/database.js';
import { createKey, isCurrentKeyFormat, resolveKey, revokeKey } from '../core/store/keys.js';
import { queueRun, retargetOpenRuns } from '../core/store/runs.js';
import { getSetting, setSetting } from '../core/store/sites.js';
import { addCatalogSite, addCategory, categoryIdsByTitle, levelExists, setLevel, updateCatalogSite } from '../core/store/catalog-admin.js';
import { createUser, findUserByEmail, setPassword } from '../core/store/users.js';
import { startStaticSite } from './static-site.js';

export const DEMO_ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'demo-site');
export const DEMO_LEVEL = { name: 'demo', monthly_quota: 200 };
const DEMO_CATEGORY = 'Demo';
/** The demo portal account (a reserved example domain: no mail ever goes there). */
export const DEMO_EMAIL = 'demo@example.org';

export interface Demo {
  siteId: number;
  key: string;
  url: string;
  /** The demo portal account, printed at start like the demo key. */
  portal: { email: string; password: string };
  close(): Promise<void>;
}

export async function startDemo(db: Db, dataDir: string, options: { port?: number } = {}): Promise<Demo> {
  const site = await startStaticSite(DEMO_ROOT, { port: options.port ?? 0 });
  if (!(await levelExists(db, DEMO_LEVEL.name))) await setLevel(db, DEMO_LEVEL.name, DEMO_LEVEL.monthly_quota);
  let siteId = await getSetting<number>(db, 'demo_site_id');
  let firstStart = false;
  if (siteId === undefined) {
    await addCategory(db, DEMO_CATEGORY);
    const category = (await categoryIdsByTitle(db, [DEMO_CATEGORY])).get(DEMO_CATEGORY)!;
    siteId = await addCatalogSite(db, { title: 'Exempelby kommun (demo)', url: site.url, premiumLevel: DEMO_LEVEL.name, monthlyQuota: null }, [category]);
    await setSetting(db, 'demo_site_id', siteId);
    firstStart = true;
  } else {
    // The loopback port changes from one start to the next.
    await updateCatalogSite(db, siteId, { url: site.url }, null);
    // A run queued (or cut short by a crash) before this start is tested at today's address.
    await retargetOpenRuns(db, siteId, site.url);
  }

  const file = path.join(dataDir, 'demo.json');
  let key: string | null = null;
  let portal: { email: string; password: string } | null = null;
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { siteId: number; key: string; portal?: { email: string; password: string } };
    if (saved.siteId === siteId && isCurrentKeyFormat(saved.key) && (await resolveKey(db, saved.key))) key = saved.key;
    if (saved.siteId === siteId && saved.portal && (await findUserByEmail(db, saved.portal.email))?.password_hash) portal = saved.portal;
  } catch {
    key = null;
  }
  portal ??= await demoPortalAccount(db, siteId);
  if (!key) {
    const old = await db.selectFrom('api_keys').select('id').where('label', '=', 'demo').where('revoked_at', 'is', null).execute();
    for (const k of old) await revokeKey(db, k.id);
    key = (await createKey(db, { kind: 'standard', siteIds: [siteId], label: 'demo' })).key;
  }
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, JSON.stringify({ siteId, key, portal }, null, 2) + '\n', { mode: 0o600 });
  await chmod(file, 0o600);
  if (firstStart) await queueRun(db, { siteId, url: site.url });
  return { siteId, key, url: site.url, portal, close: () => site.close() };
}

/** The demo's portal account on the demo site, with a fresh random password (kept in demo.json like the key). */
async function demoPortalAccount(db: Db, siteId: number): Promise<{ email: string; password: string }> {
  const id = (await findUserByEmail(db, DEMO_EMAIL))?.id ?? (await createUser(db, { email: DEMO_EMAIL, level: 'standard', siteIds: [siteId] }));
  if (id === null) throw new Error('demo: the demo portal account could not be created');
  await db.insertInto('user_sites').values({ user_id: id, site_id: siteId }).onConflict((oc) => oc.doNothing()).execute();
  const password = randomBytes(12).toString('base64url');
  await setPassword(db, id, password);
  return { email: DEMO_EMAIL, password };
}
