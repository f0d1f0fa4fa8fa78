/**
 * Sites: the public-sector organisations (open data) and every other tested website.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseString } from '@fast-csv/parse';
import { sql, type Selectable } from '../db/kysely.js';
import { PROJECT_ROOT } from '../config.js';
import type { Db } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { publishCacheEvent } from './notify.js';

export const PUBLIC_SECTOR_CSV = path.join(PROJECT_ROOT, 'core', 'data', 'public-sector.csv');

interface PublicSectorRow {
  code: string;
  category: 'Municipality' | 'Region';
  title: string;
  url: string;
  same_as: string;
}

export async function readPublicSectorCsv(file = PUBLIC_SECTOR_CSV): Promise<PublicSectorRow[]> {
  const text = await readFile(file, 'utf8');
  return new Promise((resolve, reject) => {
    const rows: PublicSectorRow[] = [];
    parseString<PublicSectorRow, PublicSectorRow>(text, { headers: true, trim: true })
      .on('error', reject)
      .on('data', (row) => rows.push(row))
      .on('end', () => resolve(rows));
  });
}

/** Imports the public-sector list once (by organisation code); returns how many rows were added. */
export async function importPublicSector(db: Db, file?: string): Promise<number> {
  const rows = await readPublicSectorCsv(file);
  let added = 0;
  // One transaction, in file order, so that ids are stable from one installation to the next.
  await db.transaction().execute(async (trx) => {
    for (const row of rows) {
      const res = await trx
        .insertInto('sites')
        .values({
          title: row.title,
          url: row.url,
          org_category: row.category,
          org_code: row.code,
          same_as: row.same_as || null,
          public_sector: true,
          followed: true,
        })
        .onConflict((oc) => oc.column('org_code').doNothing())
        .executeTakeFirst();
      added += Number(res.numInsertedOrUpdatedRows ?? 0);
    }
    // Two categories, so that /categories/ averages municipalities and regions.
    for (const [category, title] of [['Municipality', 'Kommuner'], ['Region', 'Regioner']] as const) {
      await trx.insertInto('categories').values({ title }).onConflict((oc) => oc.column('title').doNothing()).execute();
      await sql`
        insert into site_categories (site_id, category_id)
        select s.id, c.id from sites s, categories c
        where s.org_category = ${category} and c.title = ${title}
        on conflict do nothing`.execute(trx);
    }
  });
  // New public-sector websites: the dashboard's cached start page is dropped.
  if (added > 0) await publishCacheEvent(db, { sites: true });
  return added;
}

export async function listPublicSector(db: Db) {
  return db
    .selectFrom('sites')
    .select(['id', 'title', 'url', 'org_category', 'same_as'])
    .where('public_sector', '=', true)
    .orderBy('id')
    .execute();
}

/** A site's record. */
export type SiteRecord = Selectable<DB['sites']>;

export async function getSite(db: Db, id: number): Promise<SiteRecord | undefined> {
  return db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Of these site ids, those with no site. */
export async function missingSiteIds(db: Db, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const found = await db.selectFrom('sites').select('id').where('id', 'in', ids).execute();
  return ids.filter((id) => !found.some((f) => f.id === id));
}

export async function getSiteScores(db: Db, siteId: number) {
  return db.selectFrom('site_scores').selectAll().where('site_id', '=', siteId).executeTakeFirst();
}

export interface NewSite {
  title: string;
  url: string;
  premiumLevel?: string | null;
  monthlyQuota?: number | null;
  followed?: boolean;
}

export async function createSite(db: Db, site: NewSite): Promise<number> {
  const row = await db
    .insertInto('sites')
    .values({
      title: site.title,
      url: site.url,
      premium_level: site.premiumLevel ?? null,
      monthly_quota: site.monthlyQuota ?? null,
      followed: site.followed ?? true,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function getSetting<T>(db: Db, name: string): Promise<T | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value as T | undefined;
}

export async function setSetting(db: Db, name: string, value: unknown): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value: JSON.stringify(value) })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: JSON.stringify(value) }))
    .execute();
}

/** The database answers (health check). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
