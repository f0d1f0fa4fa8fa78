/**
 * RetireJS's repository of JavaScript libraries and their vulnerabilities, vendored in data/
 * (data/README.md) and refreshed by the operator with `webperf data refresh-retire`; read from
 * disk, and again when the file has changed. Kept apart from the version data (data.ts) so that
 * the refresh command loads only this.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from 'retire/lib/types.js';

export type { Repository, Component, Vulnerability } from 'retire/lib/types.js';

/** RetireJS's matching and range logic (retire 5.7.0, Apache-2.0), the code its CLI runs. */
export const retire = createRequire(import.meta.url)('retire/lib/retire.js') as typeof import('retire/lib/retire.js');

export const DATA_DIR = path.join(import.meta.dirname, 'data');
/** The vendored RetireJS repository; its sidecar `.meta.json` holds its source and date. */
export const RETIRE_REPOSITORY_FILE = path.join(DATA_DIR, 'jsrepository-v4.json');
/** The RetireJS repository file the refresh command downloads by default. */
export const RETIRE_REPOSITORY_URL = 'https://raw.githubusercontent.com/RetireJS/retire.js/master/repository/jsrepository-v4.json';

/** The sidecar of a repository file: data/jsrepository-v4.json → data/jsrepository-v4.meta.json. */
export function metaFileOf(repositoryFile: string): string {
  return repositoryFile.replace(/\.json$/i, '') + '.meta.json';
}

/** What the sidecar says about a RetireJS repository file. */
export interface RetireMeta {
  source_url: string;
  /** The day the data was taken (the snapshot's commit day, or the day it was downloaded). */
  date: string;
  sha256: string;
  libraries: number;
  vulnerabilities: number;
  commit?: string;
  file_last_changed?: string;
  licence?: string;
}

export interface RetireData {
  repository: Repository;
  meta: RetireMeta;
}

/**
 * Parses a RetireJS repository as the RetireJS CLI does (its `§§version§§` placeholders
 * replaced) and checks the shape this plugin relies on; throws saying what is wrong.
 */
export function parseRetireRepository(text: string): Repository {
  let repository: unknown;
  try {
    repository = JSON.parse(retire.replaceVersion(text));
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  if (!repository || typeof repository !== 'object' || Array.isArray(repository)) throw new Error('not a JSON object of libraries');
  const entries = Object.entries(repository as Record<string, any>);
  for (const [name, entry] of entries) {
    if (!entry || typeof entry !== 'object' || !Array.isArray(entry.vulnerabilities) || !entry.extractors || typeof entry.extractors !== 'object') {
      throw new Error(`library "${name}" lacks vulnerabilities or extractors`);
    }
  }
  const jquery = (repository as Record<string, any>).jquery;
  if (entries.length < 20 || !jquery || !Array.isArray(jquery.extractors.filecontent)) {
    throw new Error(`only ${entries.length} libraries and ${jquery ? 'jQuery without content extractors' : 'no jQuery'}: not RetireJS's repository`);
  }
  return repository as Repository;
}

/** Libraries and vulnerabilities in a repository, as the sidecar counts them. */
export function countRepository(repository: Repository): { libraries: number; vulnerabilities: number } {
  const libraries = Object.keys(repository).length;
  const vulnerabilities = Object.values(repository).reduce((n, entry) => n + entry.vulnerabilities.length, 0);
  return { libraries, vulnerabilities };
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

let cached: { file: string; mtimeMs: number; size: number; data: RetireData } | null = null;

/** The RetireJS repository and its sidecar, read again when the file has changed on disk. */
export function loadRetire(file = RETIRE_REPOSITORY_FILE): RetireData {
  const stat = statSync(file);
  if (cached && cached.file === file && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.data;
  const repository = parseRetireRepository(readFileSync(file, 'utf8'));
  const meta = JSON.parse(readFileSync(metaFileOf(file), 'utf8')) as RetireMeta;
  if (typeof meta.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(meta.date)) throw new Error(`${metaFileOf(file)}: no date`);
  const data = { repository, meta };
  cached = { file, mtimeMs: stat.mtimeMs, size: stat.size, data };
  return data;
}
