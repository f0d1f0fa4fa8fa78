/**
 * Each result keeps its findings (issue 31): `test_results.findings`, the problems and passed
 * checks a plugin reported, each with its identity (category, rule, locator), severity, count,
 * measured value and unit, and its text in the report languages (core/changes.ts StoredFinding),
 * so that what changed between two runs can be told from the results alone. Null for results
 * stored before this: their findings were not kept, and a diff against them says so.
 *
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  // json, not jsonb: written with every result and read whole, never queried inside; jsonb's conversion
  // made a save 1.12× one without findings, json 1.05× (npm run bench -- store, issue 31's goal ≤ 1.1).
  await sql`alter table test_results add column findings json`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table test_results drop column findings`.execute(db);
}
