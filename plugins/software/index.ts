/**
 * Type 25: Software (Mjukvara). Judges the software the one page load shows: the CMS, web server,
 * operating system, languages and frameworks (rules.ts, on the page's own site's URLs, headers,
 * HTML, meta generator and cookies), web analytics, accessibility overlays (AccessiBe, AccessiWay,
 * EqualWeb, UserWay, AudioEye, Eye-Able, Accessibly, EaseAccess24, Ally) and the JavaScript
 * libraries of every script the page ran (RetireJS's repository, with the CLI's matching).
 *
 * Rated as webperf_core's test 25 (family A, issues.ts): each distinct known vulnerability 1.0,
 * BEHIND levels 2.0–4.9, archived 1.75, unmaintained 4.0–1.0, end of life 1.75 (overall and
 * infosec), an overlay 1.0 (overall and a11y), and 5.0 for each kind of issue absent; overall and
 * each category are the plain means of their sub-ratings. A page with neither HTML nor requests
 * is NOT_RATED.
 *
 * Data (data/README.md), vendored and dated, never fetched by a run; `data.data_dates` says how
 * old each file is against the run's time: RetireJS's jsrepository-v4.json (refreshed by the
 * operator with `webperf data refresh-retire`), server-software.json (releases and CVEs of nginx,
 * Apache, OpenSSL, PHP, WordPress from webperf_core's software-full.json; end-of-life branches of
 * PHP, OpenSSL, IIS, Windows Server, Apache, Drupal from the vendors' pages) and js-libraries.json
 * (releases and repository state of 25 libraries, from software-full.json).
 *
 * Where this deviates from upstream, and why:
 * - Vulnerabilities of JavaScript libraries come from RetireJS (ranges, so every version is
 *   covered) instead of upstream's per-version lists; RetireJS's advisories without a CVE id
 *   count too (under their GitHub advisory or the library's issue id), since they are known
 *   vulnerabilities all the same. RetireJS's end-of-life notices (jQuery 1.x/2.x, AngularJS,
 *   Bootstrap 3) count as END_OF_LIFE, not as vulnerabilities.
 * - Server-side software is read from the page's own site only; upstream reads every response's
 *   Server header, so a third party's CDN counted as the site's web server.
 * - Upstream's WordPress rule also named Tomcat as the web server (a slip in its rules); here a
 *   CMS rule names only what it shows.
 * - End of life is judged against the run's time with dated branches (PHP 8.2 ends on
 *   2026-12-31), not frozen when the data was made; unmaintained sources are judged against the
 *   day the data was taken (a stale snapshot must not make a maintained project look abandoned).
 * - A version given in fewer parts (PHP/7.4) is not counted behind its own patch releases.
 * - Stealth only: no extra requests (upstream's default), no image EXIF, no `*.LICENSE.txt`.
 * - RetireJS's "dont check" entry is not a library: scripts at its URLs (Google Analytics' ga.js,
 *   Google's plusone.js, cxense's cx.js) are not scanned for libraries, as RetireJS's browser
 *   extension skips them (retire-data.ts).
 * - Bounded work: a page cannot stall the service or make the test fail. RetireJS's patterns run
 *   in a worker thread, one per run (started at the first script, reused), 5 s per script (URL and
 *   text together), 30 s for all scripts of a run (script-scanner.ts); on its first 2,000,000
 *   characters of each script's text and only on URL paths of at most 2,048 characters
 *   (retire-scan.ts). A script left unscanned for time is named (info `js-not-scanned`, in the
 *   summary and data.retire_scan) and not guessed at; the rest is rated. The signal terminates the
 *   worker at once. data.retire_scan states these bounds.
 * - A version older than the oldest release a list holds counts as BEHIND100, whatever the
 *   number of releases listed (the lists are cut short: data/README.md).
 * - Nothing is written beside the data (upstream appends unknown software to a file).
 */
import { definePlugin, NOT_RATED, type Finding, type ReportText, type TestPlugin } from '../../core/plugin-api.js';
import { JS_DATA, SERVER_DATA } from './data.js';
import { loadRetire } from './retire-data.js';
import { MAX_RESOURCES, detectSoftware, type Detection, type ScriptScanned } from './detect.js';
import { MAX_CONTENT_CHARS, MAX_URL_PATH_CHARS } from './retire-scan.js';
import { SCAN_LIMITS, ScriptScanner, type ScanLimits } from './script-scanner.js';
import { enrich, poolIssues, pointsOf, ratingsOf, subRatings, type PooledIssue, type SoftwareIssues } from './issues.js';
import { meta } from './meta.js';
import { CATEGORY_ORDER } from './rules.js';
import { STRINGS } from './strings.js';

const DAY_MS = 86_400_000;
/** Data older than this is named in the summary. */
const STALE_DAYS = 180;

function ageDays(date: string, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - Date.parse(`${date}T00:00:00Z`)) / DAY_MS));
}

function findingOf(issue: PooledIssue): Finding {
  const points = pointsOf(issue);
  const behind = /^BEHIND(\d{3})$/.exec(issue.key);
  const unmaintained = /^UNMAINTAINED_SOURCE_(\d+)_YEARS$/.exec(issue.key);
  const { softwares, resources } = issue;
  if (issue.key === 'CVE') return { rule: 'cve', category: 'infosec', severity: 'error', text: STRINGS.cve(issue.ids, softwares, resources), count: issue.ids.length };
  if (behind) {
    return { rule: `behind-${behind[1]}`, category: 'infosec', severity: 'warning', text: STRINGS.behind(Number(behind[1]), points, softwares, resources), count: softwares.length };
  }
  if (issue.key === 'ARCHIVED_SOURCE') return { rule: 'archived-source', category: 'infosec', severity: 'error', text: STRINGS.archived(points, softwares, resources), count: softwares.length };
  if (unmaintained) {
    const years = Number(unmaintained[1]);
    return { rule: `unmaintained-source-${years}-years`, category: 'infosec', severity: 'warning', text: STRINGS.unmaintained(years, points, softwares, resources), count: softwares.length };
  }
  if (issue.key === 'END_OF_LIFE') return { rule: 'end-of-life', category: 'infosec', severity: 'error', text: STRINGS.endOfLife(points, softwares, resources), count: softwares.length };
  return { rule: 'a11y-overlay', category: 'a11y', severity: 'error', text: STRINGS.overlay(points, softwares, resources), count: softwares.length };
}

/** What an API client reads about one piece of software. */
function softwareData(d: Detection, issues: SoftwareIssues) {
  return {
    category: d.category,
    key: d.key,
    name: d.name,
    version: d.version,
    found_by: d.foundBy,
    resources: d.resources,
    vulnerabilities: issues.vulnerabilities.map((v) => ({ ids: v.ids, severity: v.severity, summary: v.summary, source: v.source })),
    newer_releases: issues.newerReleases,
    latest_release: issues.latest,
    behind: issues.behind,
    older_than_listed: issues.olderThanListed,
    end_of_life: issues.endOfLife,
    archived: issues.archived,
    unmaintained_years: issues.unmaintainedYears,
  };
}

/** What data.retire_scan says of the libraries scan: its bounds and the scripts it left. */
function retireScanData(scripts: readonly ScriptScanned[], limits: ScanLimits, pageUrl: string) {
  const urls = (statuses: string[]) => scripts.filter((s) => statuses.includes(s.status)).map((s) => s.url || pageUrl);
  const notScanned = scripts.filter((s) => s.status === 'timed-out' || s.status === 'out-of-time' || s.status === 'failed');
  const dontCheck = urls(['dont-check']);
  return {
    limits: { script_deadline_ms: limits.scriptDeadlineMs, budget_ms: limits.budgetMs, max_content_chars: MAX_CONTENT_CHARS, max_url_path_chars: MAX_URL_PATH_CHARS },
    scripts: scripts.length,
    scanned: scripts.filter((s) => s.status === 'scanned').length,
    /** Not scanned: its own deadline passed (timed-out), the run's budget did (out-of-time), or the worker broke (failed). */
    not_scanned: notScanned.slice(0, MAX_RESOURCES).map((s) => ({ url: s.url || pageUrl, reason: s.status })),
    not_scanned_count: notScanned.length,
    /** RetireJS's "dont check" URLs: not scanned, by RetireJS's own rule. */
    dont_check: dontCheck.slice(0, MAX_RESOURCES),
    dont_check_count: dontCheck.length,
  };
}

/** Type 25 with these bounds on the libraries scan (the default export has the documented ones). */
export function createSoftware(limits: Partial<ScanLimits> = {}): TestPlugin {
  const scanLimits = { ...SCAN_LIMITS, ...limits };
  return definePlugin({
    meta,
    async run(artifacts, context) {
      const retire = loadRetire();
      const now = context.now;
      const dates = {
        retirejs: { date: retire.meta.date, source: retire.meta.source_url },
        server_software: { date: SERVER_DATA.taken, source: SERVER_DATA.source },
        js_libraries: { date: JS_DATA.taken, source: JS_DATA.source },
      };
      const data_dates = Object.fromEntries(Object.entries(dates).map(([k, v]) => [k, { ...v, age_days: ageDays(v.date, now) }])) as Record<keyof typeof dates, { date: string; source: string; age_days: number }>;

      if (!artifacts.mainDocument.html && artifacts.network.length === 0) {
        return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.notRated, data: { software: [], detected: {}, issues: [], sub_ratings: [], data_dates, retire_scan: retireScanData([], scanLimits, '') } };
      }

      // Its worker starts at the first script, if any, and is terminated here whatever happens.
      const scanner = new ScriptScanner(retire, context.signal, scanLimits);
      const { detections, scripts } = await detectSoftware(artifacts, scanner).finally(() => scanner.close());
      const pageUrl = artifacts.finalUrl || artifacts.mainDocument.url;
      const retireScan = retireScanData(scripts, scanLimits, pageUrl);
      const found = detections.map((detection) => ({ detection, issues: enrich(detection, now) }));
      const pooled = poolIssues(found);
      const rows = subRatings(pooled);
      const { rating, infosec, a11y } = ratingsOf(rows);

      const findings: Finding[] = pooled.map(findingOf);
      const absent = new Set(rows.map((r) => r.issue));
      const resolved = (rule: string, category: Finding['category'], text: ReportText): Finding => ({ rule, category, severity: 'resolved', text });
      if (absent.has('NO_CVE')) findings.push(resolved('cve', 'infosec', STRINGS.noCve));
      if (absent.has('NO_BEHIND')) findings.push(resolved('behind', 'infosec', STRINGS.noBehind));
      if (absent.has('NO_SOURCE_ISSUES')) findings.push(resolved('unmaintained-source', 'infosec', STRINGS.noSourceIssues));
      if (absent.has('NO_END_OF_LIFE')) findings.push(resolved('end-of-life', 'infosec', STRINGS.noEndOfLife));
      if (absent.has('NO_A11Y_OVERLAY')) findings.push(resolved('a11y-overlay', 'a11y', STRINGS.noOverlay));
      const notScanned = retireScan.not_scanned_count
        ? STRINGS.notScanned(retireScan.not_scanned_count, retireScan.not_scanned.map((s) => s.url), scanLimits.scriptDeadlineMs / 1000, scanLimits.budgetMs / 1000)
        : null;
      // An info finding is no report bullet: the summary carries it.
      if (notScanned) findings.push({ rule: 'js-not-scanned', category: 'infosec', severity: 'info', text: notScanned, count: retireScan.not_scanned_count });

      const detected: Record<string, string[]> = {};
      const lines: ReportText[] = [];
      for (const category of CATEGORY_ORDER) {
        const names = [...new Set(detections.filter((d) => d.category === category).map((d) => (d.version ? `${d.name} ${d.version}` : d.name)))].sort((a, b) => a.localeCompare(b, 'en'));
        if (!names.length) continue;
        detected[category] = names;
        lines.push(STRINGS.categoryLine(category, names));
      }
      let summary = STRINGS.summary(lines);
      const stale = (Object.keys(data_dates) as (keyof typeof dates)[]).filter((k) => data_dates[k].age_days > STALE_DAYS);
      if (stale.length) {
        const note = STRINGS.staleData(stale.map((k) => ({ label: STRINGS.dataLabels[k], days: data_dates[k].age_days })));
        summary = { sv: summary.sv + note.sv, en: summary.en + note.en };
      }
      if (notScanned) summary = { sv: `${summary.sv}\n${notScanned.sv}`, en: `${summary.en}\n${notScanned.en}` };

      return {
        rating,
        ratings: { infosec, a11y },
        findings,
        summary,
        data: {
          software: found.map(({ detection, issues }) => softwareData(detection, issues)),
          detected,
          issues: pooled.map((p) => ({ key: p.key, points: pointsOf(p), softwares: p.softwares, resources: p.resources, ids: p.ids })),
          sub_ratings: rows,
          data_dates,
          retire_scan: retireScan,
        },
      };
    },
  });
}

export default createSoftware();
