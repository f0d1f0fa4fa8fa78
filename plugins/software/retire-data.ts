/**
 * RetireJS's repository of JavaScript libraries and their vulnerabilities, vendored in data/
 * (data/README.md) and refreshed by the operator with `webperf data refresh-retire`; read from
 * disk, and again when the file or its sidecar has changed. Kept apart from the version data
 * (data.ts) so that the refresh command loads only this.
 *
 * The sidecar (`.meta.json`: source, date, SHA-256) is believed only when its SHA-256 is that of
 * the data read: the refresh renames the data, then the sidecar, so a reader in between sees new
 * data beside the old sidecar, and a refresh whose second rename failed leaves them so. The data
 * is then dated by its file's own modification day, and read again once the sidecar changes.
 *
 * RetireJS's pseudo-entry "dont check" is not a library: its URL patterns (two without a capture
 * group) name scripts RetireJS's browser extension never queues for scanning (firefox/lib/repo.js
 * dontCheck, tested against the script's whole URL). It is taken out of the repository here and
 * kept as `dontCheck`, for retire-scan.ts to skip those scripts the same way.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../core/config.js';
import { vendoredReader, type VendoredMeta } from '../../core/vendored-data.js';
import type { Repository } from 'retire/lib/types.js';

export type { Repository, Component, Vulnerability } from 'retire/lib/types.js';
export { sha256 } from '../../core/vendored-data.js';

/** RetireJS's matching and range logic (retire 5.7.0, Apache-2.0), the code its CLI runs. */
export const retire = createRequire(import.meta.url)('retire/lib/retire.js') as typeof import('retire/lib/retire.js');

/** In the source tree, not dist/: `webperf data refresh-retire` replaces the repository file there. */
export const DATA_DIR = path.join(PROJECT_ROOT, 'plugins', 'software', 'data');
/** The vendored RetireJS repository; its sidecar `.meta.json` holds its source and date. */
export const RETIRE_REPOSITORY_FILE = path.join(DATA_DIR, 'jsrepository-v4.json');
/** The RetireJS repository file the refresh command downloads by default. */
export const RETIRE_REPOSITORY_URL = 'https://raw.githubusercontent.com/RetireJS/retire.js/master/repository/jsrepository-v4.json';

/** The sidecar of a repository file: data/jsrepository-v4.json → data/jsrepository-v4.meta.json. */
export function metaFileOf(repositoryFile: string): string {
  return repositoryFile.replace(/\.json$/i, '') + '.meta.json';
}

/** What the sidecar says about a RetireJS repository file. */
export interface RetireMeta extends VendoredMeta {
  source_url: string;
  libraries: number;
  vulnerabilities: number;
  commit?: string;
  file_last_changed?: string;
  licence?: string;
}

export interface RetireData {
  /** The libraries, without the "dont check" pseudo-entry. */
  repository: Repository;
  /** The "dont check" entry's URL patterns (RegExp sources): scripts not scanned at all. */
  dontCheck: string[];
  meta: RetireMeta;
  /** False when the sidecar is not that of this data (its SHA-256 differs): meta.date is then the file's modification day. */
  metaMatches: boolean;
}

/** The RetireJS repository's pseudo-entry of URLs not to scan. */
export const DONT_CHECK = 'dont check';

/** The repository without its "dont check" entry, and that entry's URL patterns. */
export function splitDontCheck(repository: Repository): { repository: Repository; dontCheck: string[] } {
  const { [DONT_CHECK]: entry, ...libraries } = repository;
  return { repository: libraries, dontCheck: [...(entry?.extractors.uri ?? [])] };
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

const readRetire = vendoredReader<RetireMeta, RetireData>(metaFileOf, ({ bytes, meta, digest, metaMatches, fileDay }) => {
  const raw = parseRetireRepository(bytes.toString('utf8'));
  return {
    ...splitDontCheck(raw),
    // Not this data's sidecar: only its source is kept; the date is the file's own.
    meta: metaMatches
      ? meta
      : { source_url: meta.source_url, date: fileDay, sha256: digest, ...countRepository(raw), ...(meta.licence ? { licence: meta.licence } : {}) },
    metaMatches,
  };
});

/**
 * The RetireJS repository and its sidecar, read again when either has changed on disk (a refresh
 * renames new files in, so each read is of one whole file, the old or the new).
 */
export function loadRetire(file = RETIRE_REPOSITORY_FILE): RetireData {
  return readRetire(file);
}
