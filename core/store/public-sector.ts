/**
 * The open public-sector list (GET /public-sector/): its websites and when it last changed.
 */
import type { Db } from '../db/database.js';
import { listPublicSector } from './sites.js';

export interface PublicSectorList {
  rows: Awaited<ReturnType<typeof listPublicSector>>;
  /** When the newest public-sector website was added; null for an empty list. */
  changedAt: Date | null;
}

export async function readPublicSector(db: Db): Promise<PublicSectorList> {
  const [rows, changed] = await Promise.all([
    listPublicSector(db),
    db.selectFrom('sites').select((eb) => eb.fn.max('created_at').as('at')).where('public_sector', '=', true).executeTakeFirst(),
  ]);
  return { rows, changedAt: changed?.at ? new Date(changed.at) : null };
}
