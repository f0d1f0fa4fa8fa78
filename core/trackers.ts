/**
 * Known tracking domains: The Block List Project's tracking list (the "-nl", no-leading variant
 * webperf_core's privacy and tracking tests read as data/blocklistproject-tracking-nl.txt),
 * vendored in core/data/ (README.md there: source, commit, date, licence) and refreshed by the
 * operator with `webperf data refresh-trackers`, which passes every download through the service's
 * target guard as `refresh-retire` does. One module for every test type that names trackers (31
 * rates them, 23 lists them in its data).
 *
 * Stored compactly but greppable: one domain a line, sorted, without the list's comment header and
 * without the entries a listed parent already covers (`a.tracker.example` under a listed
 * `tracker.example`): matching is by suffix, so those never change an answer (10,325 of 143,876
 * entries in the vendored copy; gzip would save more but could not be grepped). The sidecar
 * (`.meta.json`) holds the source, its date, the SHA-256 of what was downloaded and of what was
 * stored; it is believed only when the stored SHA-256 is that of the file read (a refresh renames
 * the list, then the sidecar), else the list is dated by its file's modification day.
 */
import path from 'node:path';
import { PROJECT_ROOT } from './config.js';
import { vendoredReader, type VendoredMeta } from './vendored-data.js';

export { sha256 } from './vendored-data.js';

/** In the source tree, not dist/: `webperf data refresh-trackers` replaces the file there. */
export const TRACKER_LIST_FILE = path.join(PROJECT_ROOT, 'core', 'data', 'blocklistproject-tracking-nl.txt');
/** Where webperf_core downloads the list from (its CI and docs/tests/tracking.md), the refresh's default. */
export const TRACKER_LIST_URL = 'https://blocklistproject.github.io/Lists/alt-version/tracking-nl.txt';
export const TRACKER_LIST_LICENCE = 'The Unlicense (public domain), The Block List Project';

/** A list with fewer entries is no copy of the tracking list (the vendored one holds 143,876). */
const MIN_ENTRIES = 1_000;
/** One line of the list: a host name in lower case (letters, digits, hyphens, underscores). */
const DOMAIN_LINE = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9-]{2,63}$/;

/** What the sidecar says about the stored list. */
export interface TrackerListMeta extends VendoredMeta {
  source_url: string;
  /** The day the list was taken (the snapshot's commit day, or the day it was downloaded). */
  date: string;
  /** SHA-256 of the list as it was downloaded. */
  source_sha256: string;
  /** Entries of the list as downloaded. */
  source_entries: number;
  /** SHA-256 of the stored file. */
  sha256: string;
  /** Domains stored (the entries no listed parent covers). */
  domains: number;
  licence: string;
  commit?: string;
  /** The day the list's file last changed at that commit. */
  file_last_changed?: string;
  /** The "Last modified" line of the list's own header. */
  list_modified?: string;
}

export interface TrackerList {
  domains: ReadonlySet<string>;
  meta: TrackerListMeta;
  /** False when the sidecar is not that of this file (its SHA-256 differs): meta.date is then the file's modification day. */
  metaMatches: boolean;
}


/** The sidecar of a list file: x.txt → x.meta.json. */
export function trackerMetaFileOf(listFile: string): string {
  return listFile.replace(/\.txt$/i, '') + '.meta.json';
}

/**
 * The domains of a list as The Block List Project publishes it (its `-nl` variant: `#` comment
 * lines, then one domain a line); throws saying why it is not such a list. Also reads the header's
 * "Last modified" line.
 */
export function parseTrackerList(text: string): { domains: string[]; modified: string | null } {
  if (/^\s*</.test(text)) throw new Error('an HTML page, not a list of domains');
  const domains: string[] = [];
  let modified: string | null = null;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      modified ??= /^#\s*Last modified:\s*(.+)$/i.exec(line)?.[1]?.trim() ?? null;
      continue;
    }
    const domain = line.toLowerCase();
    if (!DOMAIN_LINE.test(domain)) throw new Error(`line ${i + 1} is not a domain: "${line.slice(0, 80)}"`);
    domains.push(domain);
  }
  if (domains.length < MIN_ENTRIES) throw new Error(`only ${domains.length} domains: not the tracking list (it holds over ${MIN_ENTRIES})`);
  return { domains, modified };
}

/** The domains to store: unique, sorted, without those a listed parent covers (suffix matching makes them redundant). */
export function compactTrackerList(domains: readonly string[]): string[] {
  const all = new Set(domains);
  return [...all].filter((d) => !listedParent(d, all)).sort();
}

/** The stored file's text: one domain a line. */
export function trackerListText(domains: readonly string[]): string {
  return `${domains.join('\n')}\n`;
}

/** The closest listed parent of `host` (not `host` itself), or null. */
function listedParent(host: string, list: ReadonlySet<string>): string | null {
  for (let i = host.indexOf('.'); i >= 0 && host.indexOf('.', i + 1) >= 0; i = host.indexOf('.', i + 1)) {
    const parent = host.slice(i + 1);
    if (list.has(parent)) return parent;
  }
  return null;
}

/**
 * The listed domain `host` falls under (the host itself or a parent domain of at least two labels,
 * as webperf_core matches), or null.
 */
export function trackerDomainOf(host: string, domains: ReadonlySet<string>): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (domains.has(name) && name.includes('.')) return name;
  return listedParent(name, domains);
}

/** The hosts among `hosts` that fall under a listed tracking domain, with that domain. */
export function listedTrackers(hosts: readonly string[], domains: ReadonlySet<string>): { host: string; listed: string }[] {
  return hosts.flatMap((host) => {
    const listed = trackerDomainOf(host, domains);
    return listed ? [{ host, listed }] : [];
  });
}

const readTrackerList = vendoredReader<TrackerListMeta, TrackerList>(trackerMetaFileOf, ({ bytes, meta, digest, metaMatches, fileDay }) => {
  const domains = new Set(bytes.toString('utf8').split('\n').filter(Boolean));
  return {
    domains,
    meta: metaMatches
      ? meta
      : { ...meta, date: fileDay, sha256: digest, domains: domains.size, source_sha256: '', source_entries: 0, commit: undefined, file_last_changed: undefined, list_modified: undefined },
    metaMatches,
  };
});

/** The stored list and its sidecar, read again when either has changed on disk. */
export function loadTrackerList(file = TRACKER_LIST_FILE): TrackerList {
  return readTrackerList(file);
}
