/**
 * JavaScript libraries and their known vulnerabilities, found the way the RetireJS CLI finds them
 * in a file (retire 5.7.0, lib/scanner.js scanJsFile): the file's name and path first, its content
 * (banners, code patterns, a SHA-1 of known files) only when the name tells nothing; then the
 * repository's ranges give the vulnerabilities, one per advisory (the CLI's de-duplication: two
 * entries sharing an identifier are one).
 *
 * A script whose URL matches RetireJS's "dont check" patterns is not scanned at all, as RetireJS's
 * browser extension skips it (retire-data.ts). RetireJS's patterns are regular expressions some
 * of which backtrack quadratically on crafted input (the jQuery UI content pattern: 72 KB took 5 s;
 * a 100 KB path of digits 12 s), so what they see is bounded: a URL path longer than
 * MAX_URL_PATH_CHARS is not scanned by name, and only the first MAX_CONTENT_CHARS of a script's
 * text are scanned (its SHA-1 too, so a longer file matches no known hash). Time is bounded by
 * the caller: scans run in a worker thread with a deadline per script (retire-worker.ts,
 * script-scanner.ts).
 */
import { createHash } from 'node:crypto';
import { retire, type Repository, type Vulnerability } from './retire-data.js';

/** One library version found in one script. */
export interface RetireHit {
  component: string;
  version: string;
  /** The script's URL ('' for an inline script). */
  url: string;
  detection: string;
  vulnerabilities: Vulnerability[];
}

const hasher = { sha1: (data: string) => createHash('sha1').update(data).digest('hex') };

/** The identifiers that tell one advisory from another (the CLI's getIdentifiers). */
function identifiersOf(v: Vulnerability): string[] {
  const ids = v.identifiers ?? {};
  return [...(ids.CVE ?? []), ...(ids.bug ? [ids.bug] : []), ...(ids.issue ? [ids.issue] : []), ...(ids.githubID ? [ids.githubID] : [])];
}

/** The CLI's uniqueVulnerabilities: the first of the advisories sharing an identifier. */
export function uniqueVulnerabilities(list: readonly Vulnerability[]): Vulnerability[] {
  const unique: Vulnerability[] = [];
  for (const v of list) {
    const mine = identifiersOf(v);
    if (!unique.some((u) => identifiersOf(u).some((id) => mine.includes(id)))) unique.push(v);
  }
  return unique;
}

/** The part of a script's text RetireJS scans: 2,000,000 characters (UTF-16 units), about 2 MB. */
export const MAX_CONTENT_CHARS = 2_000_000;
/** A URL path (origin included) longer than this is not scanned by name; real ones are far shorter. */
export const MAX_URL_PATH_CHARS = 2_048;

/** The script is one RetireJS does not scan (its "dont check" patterns, on the whole URL, as its extension tests them). */
export function isDontCheck(url: string, dontCheck: readonly string[]): boolean {
  return url !== '' && dontCheck.some((pattern) => new RegExp(pattern).test(url));
}

/** A URL as a file path: without query and fragment, so that `jquery-1.12.4.min.js?v=2` is that file. */
function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, '');
  }
}

/**
 * Scans one script: by URL first, by content when the URL says nothing. `repository` is without
 * "dont check" (retire-data.ts); skipping those scripts is isDontCheck's.
 */
export function scanScript(script: { url: string; content: string | null }, repository: Repository): RetireHit[] {
  const path = script.url ? pathOf(script.url) : '';
  let results = path && path.length <= MAX_URL_PATH_CHARS ? retire.scanFileName(path, repository, true) : [];
  if (results.length === 0 && script.content) results = retire.scanFileContent(script.content.slice(0, MAX_CONTENT_CHARS), repository, hasher);
  return results.map((r) => ({
    component: r.component,
    version: r.version,
    url: script.url,
    detection: r.detection ?? '',
    vulnerabilities: uniqueVulnerabilities(r.vulnerabilities ?? []),
  }));
}

/** RetireJS's end-of-life notices (jQuery 1.x and 2.x, AngularJS, Bootstrap 3) are advisories too; they are rated as end of life. */
export function isEndOfLifeNotice(v: Vulnerability): boolean {
  return /end[- ]of[- ]life/i.test(v.identifiers?.summary ?? '');
}

/**
 * The ids a vulnerability is counted under: each CVE id; without one, its GitHub advisory id;
 * without that, the library's own issue, bug or pull request, or RetireJS's id.
 */
export function vulnerabilityIds(component: string, v: Vulnerability): string[] {
  const ids = v.identifiers ?? {};
  if (ids.CVE?.length) return [...ids.CVE];
  if (ids.githubID) return [ids.githubID];
  const extra = ids as Record<string, unknown>;
  if (ids.issue) return [`${component} issue ${ids.issue}`];
  if (ids.bug) return [`${component} bug ${ids.bug}`];
  if (typeof extra.PR === 'string') return [`${component} PR ${extra.PR}`];
  if (typeof extra.retid === 'string') return [`RetireJS ${extra.retid}`];
  return [`${component} <${v.below}`];
}
