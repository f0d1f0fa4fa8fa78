/**
 * The operator's catalogue: sites with their premium level, quota and categories; premium levels;
 * categories. A change of a site's categories or of the category list reaches the API caches
 * with `{categories: true}`, published once the change and its refreshed averages are committed.
 */
import type { Db } from '../db/database.js';
import { publishCacheEvent } from './notify.js';
import { refreshCategoryScores } from './runs.js';
import { createSite } from './sites.js';
import { refreshAnalyticsCsvRow } from './webanalytics.js';

export async function levelExists(db: Db, name: string): Promise<boolean> {
  return (await db.selectFrom('premium_levels').select('name').where('name', '=', name).executeTakeFirst()) !== undefined;
}

/** The ids of the categories with these titles, by title; unknown titles are absent. */
export async function categoryIdsByTitle(db: Db, titles: string[]): Promise<Map<string, number>> {
  if (!titles.length) return new Map();
  const rows = await db.selectFrom('categories').select(['id', 'title']).where('title', 'in', titles).execute();
  return new Map(rows.map((r) => [r.title, r.id]));
}

/** Sites (all, or those with these ids) by id, each with its category titles sorted. */
export async function listCatalogSites(db: Db, ids?: number[]) {
  let q = db
    .selectFrom('sites as s')
    .select((eb) => [
      's.id',
      's.title',
      's.url',
      's.premium_level',
      's.monthly_quota',
      's.followed',
      's.public_sector',
      eb
        .selectFrom('site_categories as sc')
        .innerJoin('categories as c', 'c.id', 'sc.category_id')
        .select((e) => e.fn.agg<string[]>('array_agg', ['c.title']).as('t'))
        .whereRef('sc.site_id', '=', 's.id')
        .as('categories'),
    ])
    .orderBy('s.id');
  if (ids) q = q.where('s.id', 'in', ids);
  const rows = await q.execute();
  return rows.map((r) => ({ ...r, categories: [...(r.categories ?? [])].sort() }));
}

/** A site as the operator sees it. */
export type CatalogSite = Awaited<ReturnType<typeof listCatalogSites>>[number];

/** Adds a site in the given categories; returns its id. */
export async function addCatalogSite(
  db: Db,
  site: { title: string; url: string; premiumLevel: string | null; monthlyQuota: number | null },
  categoryIds: number[],
): Promise<number> {
  const id = await db.transaction().execute(async (trx) => {
    const siteId = await createSite(trx, site);
    if (categoryIds.length) await trx.insertInto('site_categories').values(categoryIds.map((category_id) => ({ site_id: siteId, category_id }))).execute();
    return siteId;
  });
  if (categoryIds.length) {
    await refreshCategoryScores(db, id);
    // After the change is committed: the API processes drop their cached /categories/.
    await publishCacheEvent(db, { categories: true });
  }
  return id;
}

/** What `updateCatalogSite` may change on a site. */
export interface CatalogSiteChanges {
  url?: string;
  premium_level?: string | null;
  monthly_quota?: number | null;
  followed?: boolean;
}

/**
 * Changes a site; with categoryIds, its categories become exactly these. Returns false, having
 * changed nothing, when there is no such site.
 */
export async function updateCatalogSite(db: Db, id: number, changes: CatalogSiteChanges, categoryIds: number[] | null): Promise<boolean> {
  const found = await db.transaction().execute(async (trx) => {
    const exists = await trx.selectFrom('sites').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
    if (!exists) return false;
    if (Object.keys(changes).length) await trx.updateTable('sites').set(changes).where('id', '=', id).execute();
    // The agency CSV shows the address of a site not yet tested.
    if (changes.url !== undefined) await refreshAnalyticsCsvRow(trx, id);
    if (categoryIds !== null) {
      await trx.deleteFrom('site_categories').where('site_id', '=', id).execute();
      if (categoryIds.length) await trx.insertInto('site_categories').values(categoryIds.map((category_id) => ({ site_id: id, category_id }))).execute();
    }
    return true;
  });
  // Its record changed: cached pages showing it (the dashboard) are dropped.
  if (found && Object.keys(changes).length) await publishCacheEvent(db, { site: id });
  // The site may have left categories: recompute every category's averages.
  if (found && categoryIds !== null) {
    await refreshCategoryScores(db, null);
    await publishCacheEvent(db, { categories: true });
  }
  return found;
}

/** Premium levels by name, each with how many sites have it. */
export async function listLevels(db: Db): Promise<{ name: string; monthly_quota: number; sites: number }[]> {
  const rows = await db
    .selectFrom('premium_levels as l')
    .select((eb) => ['l.name', 'l.monthly_quota', eb.selectFrom('sites').select((e) => e.fn.countAll<number>().as('n')).whereRef('sites.premium_level', '=', 'l.name').as('sites')])
    .orderBy('l.name')
    .execute();
  return rows.map((r) => ({ name: r.name, monthly_quota: r.monthly_quota, sites: Number(r.sites ?? 0) }));
}

/** Creates a premium level or changes its quota. */
export async function setLevel(db: Db, name: string, monthlyQuota: number): Promise<void> {
  await db
    .insertInto('premium_levels')
    .values({ name, monthly_quota: monthlyQuota })
    .onConflict((oc) => oc.column('name').doUpdateSet({ monthly_quota: monthlyQuota }))
    .execute();
  // The ceilings of the level's sites changed: refusals the API keeps no longer stand.
  await publishCacheEvent(db, { levels: true });
}

/** Categories by id, each with how many sites are in it. */
export async function listCategories(db: Db): Promise<{ id: number; title: string; sites: number }[]> {
  const rows = await db
    .selectFrom('categories as c')
    .select((eb) => ['c.id', 'c.title', eb.selectFrom('site_categories as sc').select((e) => e.fn.countAll<number>().as('n')).whereRef('sc.category_id', '=', 'c.id').as('sites')])
    .orderBy('c.id')
    .execute();
  return rows.map((r) => ({ id: r.id, title: r.title, sites: Number(r.sites ?? 0) }));
}

/** Adds a category; returns its id, or null when one with this title exists already. */
export async function addCategory(db: Db, title: string): Promise<number | null> {
  const row = await db.insertInto('categories').values({ title }).onConflict((oc) => oc.column('title').doNothing()).returning('id').executeTakeFirst();
  if (!row) return null;
  await publishCacheEvent(db, { categories: true });
  return row.id;
}
