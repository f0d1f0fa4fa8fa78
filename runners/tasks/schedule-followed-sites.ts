/**
 * Task schedule_followed_sites (daily, from the crontab): queue a test of every followed site's
 * start page.
 */
import type { Task } from 'graphile-worker';
import type { Db } from '../../core/db/database.js';
import { queueRun } from '../../core/store/runs.js';

declare global {
  namespace GraphileWorker {
    interface Tasks {
      schedule_followed_sites: Record<string, never>;
    }
  }
}

export function scheduleFollowedSitesTask(db: Db): Task<'schedule_followed_sites'> {
  return async (_payload, helpers) => {
    const sites = await db.selectFrom('sites').select(['id', 'url']).where('followed', '=', true).orderBy('id').execute();
    await db.transaction().execute(async (trx) => {
      for (const site of sites) await queueRun(trx, { siteId: site.id, url: site.url });
    });
    helpers.logger.info(`queued ${sites.length} followed sites`);
  };
}

/** Daily at 02:00 server time; a missed day is not caught up (no backfill). */
export const CRONTAB = '0 2 * * * schedule_followed_sites ?max=1';
