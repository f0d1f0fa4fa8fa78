/**
 * Arrange the public dashboard's data: the 310 public-sector websites, results over three months
 * for a few of them (stored through saveRunResults, which keeps the summaries), a public-sector
 * website whose title and report are markup, a customer's own website and a private test.
 */
import type { Db } from '../../core/db/database.js';
import { importPublicSector } from '../../core/store/sites.js';
import { outcome, seedRun, seedSite } from './seed.js';

export const XSS_TITLE = '<script>alert(1)</script> & "Kommun"';
export const XSS_REPORT = '<img src=x onerror=alert(2)> Rubriker saknas';
export const CUSTOMER_TITLE = 'Kundens egen webbplats';

export interface DashboardData {
  /** Public-sector websites with results, by title. */
  rated: Record<string, number>;
  xssId: number;
  customerId: number;
  /** A public-sector website that also has a private test (which must not show). */
  privateOnId: number;
}

const MONTHS = [new Date('2026-08-14T10:00:00Z'), new Date('2026-09-14T10:00:00Z'), new Date('2026-10-14T10:00:00Z')];

async function idOf(db: Db, title: string): Promise<number> {
  return (await db.selectFrom('sites').select('id').where('title', '=', title).executeTakeFirstOrThrow()).id;
}

export async function seedDashboard(db: Db): Promise<DashboardData> {
  await importPublicSector(db);
  const plan: [string, number][] = [['Ale kommun', 0.5], ['Region Gotland', 1.2], ['Salems kommun', 0.1], ['Åre kommun', 1.6], ['Älvdalens kommun', 0.9]];
  const rated: Record<string, number> = {};
  for (const [title, base] of plan) {
    const id = await idOf(db, title);
    rated[title] = id;
    for (const [i, date] of MONTHS.entries()) {
      const r = (x: number) => Math.min(5, Math.round((1.5 + base + x + i * 0.35) * 100) / 100);
      await seedRun(db, id, {
        url: `https://example.invalid/${id}`,
        testDate: date,
        outcomes: [
          outcome(2, r(0.4), { a11y: r(0.6), pagespeed: r(0.2) }),
          outcome(9, r(0.1), { webstandard: r(0.3) }),
          outcome(21, r(0.7), { infosec: r(0.8) }),
        ],
      });
    }
  }
  const xss = await db
    .insertInto('sites')
    .values({ title: XSS_TITLE, url: 'https://xss.invalid/', org_category: 'Municipality', org_code: 'X999', public_sector: true, followed: true })
    .returning('id')
    .executeTakeFirstOrThrow();
  const x = outcome(2, 2.5, { a11y: 2.5 });
  x.reports.sv.overall = XSS_REPORT;
  x.reports.en.overall = XSS_REPORT;
  await seedRun(db, xss.id, { url: 'https://xss.invalid/', testDate: MONTHS[2], outcomes: [x] });

  const customerId = await seedSite(db, { title: CUSTOMER_TITLE, url: 'https://kund.invalid/', premiumLevel: null });
  await seedRun(db, customerId, { url: 'https://kund.invalid/', testDate: MONTHS[2], outcomes: [outcome(2, 4.9, { a11y: 4.9 })] });
  // A later private test of a public-sector website, rated far from its public results.
  const privateOnId = rated['Ale kommun'];
  await seedRun(db, privateOnId, { url: 'https://www.ale.se/privat', private: true, testDate: new Date('2026-11-01T10:00:00Z'), outcomes: [outcome(2, 1.01, { a11y: 1.01, pagespeed: 1.01 })] });
  return { rated, xssId: xss.id, customerId, privateOnId };
}
