/**
 * Runs the kysely migrations of migrations/ (ISO-dated names, applied in order).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Migrator, type Kysely, type Migration, type MigrationProvider } from './kysely.js';
import { CODE_ROOT } from '../config.js';

/** The built migrations (migrations/*.ts in dist/): a migration's name is its file's, less the extension. */
const MIGRATIONS_DIR = path.join(CODE_ROOT, 'migrations');

class FolderProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}-\d{2}-\d{2}T.*\.js$/.test(f)).sort();
    const out: Record<string, Migration> = {};
    for (const file of files) {
      out[file.replace(/\.js$/, '')] = (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as Migration;
    }
    return out;
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new FolderProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
