/**
 * Version arithmetic of the software plugin: comparing dotted versions (OpenSSL's letter suffix
 * included: 1.1.1w), counting the known releases newer than a version (upstream's BEHIND levels)
 * and matching a version to its release branch (end of life).
 */

/** One part of a version: its number and any letters after it (1.1.1w → [1,''], [1,''], [1,'w']). */
type Part = [number, string];

function parts(version: string): Part[] | null {
  const out: Part[] = [];
  for (const piece of version.trim().split('.')) {
    const m = /^(\d+)([a-z]*)$/i.exec(piece);
    if (!m) return null;
    out.push([Number(m[1]), m[2].toLowerCase()]);
  }
  return out.length ? out : null;
}

/** True when the version is dotted numbers (an OpenSSL-style letter allowed on each part). */
export function isComparable(version: string): boolean {
  return parts(version) !== null;
}

/** -1, 0 or 1; missing parts count as 0 (1.7 = 1.7.0). Throws on a version that is not comparable. */
export function compareVersions(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  if (!pa || !pb) throw new Error(`not a comparable version: ${!pa ? a : b}`);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [na, la] = pa[i] ?? [0, ''];
    const [nb, lb] = pb[i] ?? [0, ''];
    if (na !== nb) return na < nb ? -1 : 1;
    if (la !== lb) return la < lb ? -1 : 1;
  }
  return 0;
}

/**
 * How many of the known releases are newer than `version`. A version given in fewer parts than
 * the releases (PHP/7.4) stands for its whole branch: its own patch releases (7.4.1 … 7.4.33)
 * are not counted as newer.
 */
export function newerReleases(version: string, releases: readonly string[]): number {
  if (!isComparable(version)) return 0;
  let n = 0;
  for (const release of releases) {
    if (!isComparable(release) || release.startsWith(`${version}.`)) continue;
    if (compareVersions(release, version) > 0) n++;
  }
  return n;
}

/**
 * The version is older than every release listed (and not of a listed release's branch). The
 * lists are cut short (nginx's and WordPress's at 100 releases, OpenSSL's at 1.1.1k), so how many
 * releases are really newer is not known, only that it is more than the list holds: such a version
 * counts as BEHIND100 for every software (issues.ts).
 */
export function olderThanListed(version: string, releases: readonly string[]): boolean {
  const listed = releases.filter(isComparable);
  if (!isComparable(version) || listed.length === 0) return false;
  return listed.every((release) => !release.startsWith(`${version}.`) && compareVersions(release, version) > 0);
}

/** Upstream's BEHIND levels: the issue key for that many newer releases, or null for none. */
export function behindLevel(newer: number): 'BEHIND100' | 'BEHIND075' | 'BEHIND050' | 'BEHIND025' | 'BEHIND010' | 'BEHIND001' | null {
  if (newer >= 100) return 'BEHIND100';
  if (newer >= 75) return 'BEHIND075';
  if (newer >= 50) return 'BEHIND050';
  if (newer >= 25) return 'BEHIND025';
  if (newer >= 10) return 'BEHIND010';
  if (newer >= 1) return 'BEHIND001';
  return null;
}

/**
 * The version is in the branch: 8.1.2 in 8.1, OpenSSL's 1.1.1w in 1.1.1; 2012 R2 is only in
 * 2012 R2, not in 2012.
 */
export function inBranch(version: string, branch: string): boolean {
  const v = version.trim().toLowerCase();
  const b = branch.trim().toLowerCase();
  if (v === b) return true;
  if (!v.startsWith(b) || !isComparable(v)) return false;
  const rest = v.slice(b.length);
  return rest.startsWith('.') || /^[a-z]+$/.test(rest);
}
