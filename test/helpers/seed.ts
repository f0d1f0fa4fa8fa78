/**
 * Arrange realistic data: sites in categories and premium levels, and test results stored the way
 * the runner stores them (core/store/runs.ts saveRunResults, which also keeps the summaries).
 */
import { sql } from '../../core/db/kysely.js';
import type { Db } from '../../core/db/database.js';
import { NOT_RATED, type Category } from '../../core/plugin-api.js';
import type { TestOutcome } from '../../core/pipeline.js';
import type { ReportSet, Reports } from '../../core/report.js';
import { saveRunResults } from '../../core/store/runs.js';
import { createSite } from '../../core/store/sites.js';

export { NOT_RATED };

export interface SeedSite {
  title: string;
  url: string;
  premiumLevel?: string | null;
  monthlyQuota?: number | null;
  /** Category titles; created when missing. */
  categories?: string[];
}

export async function seedLevel(db: Db, name: string, monthlyQuota: number): Promise<void> {
  await db
    .insertInto('premium_levels')
    .values({ name, monthly_quota: monthlyQuota })
    .onConflict((oc) => oc.column('name').doUpdateSet({ monthly_quota: monthlyQuota }))
    .execute();
}

export async function seedCategory(db: Db, title: string): Promise<number> {
  await db.insertInto('categories').values({ title }).onConflict((oc) => oc.column('title').doNothing()).execute();
  const row = await db.selectFrom('categories').select('id').where('title', '=', title).executeTakeFirstOrThrow();
  return row.id;
}

export async function seedSite(db: Db, site: SeedSite): Promise<number> {
  const id = await createSite(db, { title: site.title, url: site.url, premiumLevel: site.premiumLevel ?? null, monthlyQuota: site.monthlyQuota ?? null });
  for (const title of site.categories ?? []) {
    const categoryId = await seedCategory(db, title);
    await db.insertInto('site_categories').values({ site_id: id, category_id: categoryId }).execute();
  }
  return id;
}

/** Readable reports in sv and en, recognisable per test type and language. */
export function reportsFor(typeOfTest: number, rating: number, ratings: Partial<Record<Category, number>>): Reports {
  const make = (lang: 'sv' | 'en'): ReportSet => {
    const label = lang === 'sv' ? 'Betyg' : 'Rating';
    const none = lang === 'sv' ? 'Inte bedömt' : 'Not rated';
    const text = (r: number | undefined) => (r === undefined || r < 1 ? none : `${label}: ${r.toFixed(2)}`);
    return {
      overall: `${lang === 'sv' ? 'Testtyp' : 'Test type'} ${typeOfTest}\n${text(rating)}`,
      a11y: ratings.a11y === undefined ? '' : `${lang === 'sv' ? 'Tillgänglighet' : 'Accessibility'}: ${text(ratings.a11y)}`,
      perf: ratings.pagespeed === undefined ? '' : `${lang === 'sv' ? 'Prestanda' : 'Performance'}: ${text(ratings.pagespeed)}`,
      sec: ratings.infosec === undefined ? '' : `${lang === 'sv' ? 'Integritet & säkerhet' : 'Integrity & Security'}: ${text(ratings.infosec)}`,
      stand: ratings.webstandard === undefined ? '' : `${lang === 'sv' ? 'Standarder' : 'Standards'}: ${text(ratings.webstandard)}`,
    };
  };
  return { sv: make('sv'), en: make('en') };
}

/** A hand-made outcome as a plugin would give it. */
export function outcome(typeOfTest: number, rating: number, ratings: Partial<Record<Category, number>> = {}, data: Record<string, unknown> = {}): TestOutcome {
  return { typeOfTest, rating, ratings, reports: reportsFor(typeOfTest, rating, ratings), findings: [], data, error: null, durationMs: 5 };
}

export interface SeedRun {
  url: string;
  private?: boolean;
  /** When the run was requested (test_runs.created_at). */
  createdAt?: Date;
  /** The runs' results; none leaves the run in `status`. */
  outcomes?: TestOutcome[];
  /** test_date of every result. */
  testDate?: Date;
  /** Set after the results are stored (saveRunResults stamps the real time). */
  finishedAt?: Date;
  /** State of a run without outcomes. */
  status?: 'queued' | 'running' | 'failed';
}

/** Inserts a run (without queueing a job) and stores its outcomes through saveRunResults. */
export async function seedRun(db: Db, siteId: number, run: SeedRun): Promise<{ runId: number; resultIds: number[] }> {
  const row = await db
    .insertInto('test_runs')
    .values({
      site_id: siteId,
      url: run.url,
      private: run.private ?? false,
      status: run.outcomes ? 'running' : run.status ?? 'queued',
      ...(run.createdAt ? { created_at: run.createdAt } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const runId = Number(row.id);
  let resultIds: number[] = [];
  if (run.outcomes) {
    resultIds = await saveRunResults(db, runId, run.outcomes, run.testDate ?? new Date());
    if (run.finishedAt) await db.updateTable('test_runs').set({ finished_at: run.finishedAt }).where('id', '=', runId).execute();
  } else if (run.status === 'failed') {
    await db.updateTable('test_runs').set({ finished_at: run.finishedAt ?? new Date(), error: 'failed' }).where('id', '=', runId).execute();
  }
  return { runId, resultIds };
}

/** A credit ledger row booked `daysAgo` days before now. */
export async function seedCredits(db: Db, siteId: number, credits: number, daysAgo: number): Promise<void> {
  await sql`insert into credit_ledger (site_id, credits, created_at) values (${siteId}::int, ${credits}::int, now() - make_interval(days => ${daysAgo}::int))`.execute(db);
}
