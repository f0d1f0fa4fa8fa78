/**
 * The software plugin (type 25) and RetireJS's own code (retire 5.7.0) agree, on the same vendored
 * repository: the same libraries, versions and vulnerabilities (ids, severities and summaries),
 * RetireJS's end-of-life notices told apart.
 * - Files: RetireJS's CLI (`--verbose --outputformat json`, one spawn) on three stub scripts of
 *   test/fixtures/sites/software: jQuery 1.12.4 (found by its file name), jQuery 3.7.1 and
 *   Bootstrap 3.3.7 (found by their banners).
 * - URLs: scripts at realistic CDN addresses (jQuery, jQuery UI, Bootstrap, AngularJS, lodash,
 *   moment, Vue on code.jquery.com, Google's, cdnjs, jsDelivr, unpkg, BootstrapCDN) and at the
 *   three of RetireJS's "dont check" entry, against RetireJS's URL scan as its browser extension
 *   runs it: a URL matching "dont check" is not scanned; else `retire.scanUri`, and when that
 *   finds nothing `retire.scanFileName` on the file name; advisories de-duplicated by the CLI's
 *   rule (lib/scanner.js uniqueVulnerabilities: the first of those sharing an identifier).
 * Both sides are put in one form by this file's own reading of RetireJS's raw fields, not by the
 * plugin's helpers: the ids an advisory counts under as the plugin's header documents them, and
 * end-of-life notices known by their CWE-1104 ("use of unmaintained third-party components").
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { runPlugin } from '../../core/pipeline.js';
import type { Probes } from '../../core/plugin-api.js';
import { createRequire } from 'node:module';
import type { Repository, Vulnerability } from 'retire/lib/types.js';
import { RETIRE_REPOSITORY_FILE } from '../../plugins/software/retire-data.js';
import plugin from '../../plugins/software/index.js';
import { fixtureRoot, makeArtifacts } from '../helpers/fixture-artifacts.js';

const run = promisify(execFile);
const FILES = ['jquery-1.12.4.min.js', 'jquery.min.js', 'bootstrap.min.js'];
const PAGE = 'https://kommun.test/';

const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-retire-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const scripts = path.join(dir, 'js');
await mkdir(scripts);
for (const f of FILES) await copyFile(path.join(fixtureRoot('software'), 'js', f), path.join(scripts, f));

/** Per file or URL: component@version → sorted "ids severity: summary" of its vulnerabilities, and its end-of-life notice. */
type Seen = Record<string, Record<string, { vulnerabilities: string[]; endOfLife: boolean }>>;

const line = (ids: string[], severity: string | null, summary: string | null | undefined) => `${ids.join('+')} ${severity}: ${summary?.trim() || '-'}`;

/**
 * The ids the plugin documents an advisory to count under (plugins/software/index.ts header,
 * "Where this deviates"): each CVE id; else the GitHub advisory; else the library's issue, bug or
 * pull request, or RetireJS's own id.
 */
function documentedIds(component: string, v: Vulnerability): string[] {
  const ids = (v.identifiers ?? {}) as Record<string, any>;
  if (ids.CVE?.length) return ids.CVE;
  if (ids.githubID) return [ids.githubID];
  if (ids.issue) return [`${component} issue ${ids.issue}`];
  if (ids.bug) return [`${component} bug ${ids.bug}`];
  if (ids.PR) return [`${component} PR ${ids.PR}`];
  if (ids.retid) return [`RetireJS ${ids.retid}`];
  return [`${component} <${v.below}`];
}

/** RetireJS's end-of-life notices: CWE-1104, use of unmaintained third-party components. */
const isNotice = (v: Vulnerability) => (v.cwe ?? []).includes('CWE-1104');

/** RetireJS's results in the form compared. */
function seenOf(results: { component: string; version: string; vulnerabilities?: Vulnerability[] }[]): Seen[string] {
  const out: Seen[string] = {};
  for (const r of results) {
    const vulns = r.vulnerabilities ?? [];
    out[`${r.component}@${r.version}`] = {
      vulnerabilities: vulns.filter((v) => !isNotice(v)).map((v) => line(documentedIds(r.component, v), v.severity ?? null, v.identifiers?.summary)).sort(),
      endOfLife: vulns.some(isNotice),
    };
  }
  return out;
}

/** The plugin's js detections in the form compared, per resource (file name or URL). */
function pluginSeen(data: any, key: (resource: string) => string): Seen {
  const out: Seen = {};
  for (const s of data.software.filter((s: any) => s.category === 'js')) {
    for (const resource of s.resources as string[]) {
      (out[key(resource)] ??= {})[`${s.key}@${s.version}`] = {
        vulnerabilities: (s.vulnerabilities as { ids: string[]; severity: string; summary: string | null }[]).map((v) => line(v.ids, v.severity, v.summary)).sort(),
        endOfLife: s.end_of_life !== null,
      };
    }
  }
  return out;
}

t.test('the RetireJS CLI and the plugin find the same libraries and vulnerabilities', async (t) => {
  const out = path.join(dir, 'retire.json');
  const cli = path.join(PROJECT_ROOT, 'node_modules', 'retire', 'lib', 'cli.js');
  await run(process.execPath, [cli, '--path', scripts, '--jsrepo', RETIRE_REPOSITORY_FILE, '--outputformat', 'json', '--outputpath', out, '--verbose', '--exitwith', '0'], {
    cwd: dir,
    timeout: 60_000,
    env: { ...process.env, HOME: dir },
  });
  const report = JSON.parse(await readFile(out, 'utf8')) as { data: { file: string; results: { component: string; version: string; vulnerabilities?: Vulnerability[] }[] }[]; errors: string[] };
  t.strictSame(report.errors, [], 'the CLI read the vendored repository');

  const byCli: Seen = {};
  for (const finding of report.data) byCli[path.basename(finding.file)] = seenOf(finding.results);

  const artifacts = makeArtifacts(PAGE, {
    mainDocument: { url: PAGE, status: 200, headers: {}, html: '<!DOCTYPE html><html lang="sv"><head><title>K</title></head><body></body></html>' },
    scripts: await Promise.all(FILES.map(async (f) => ({ url: `${PAGE}js/${f}`, content: await readFile(path.join(scripts, f), 'utf8') }))),
  });
  const probes = {} as Probes; // never asked
  const outcome = await runPlugin(plugin, artifacts, { probes, now: new Date('2026-11-27T12:00:00Z') });
  t.equal(outcome.error, null);
  const byPlugin = pluginSeen(outcome.data, (resource) => path.basename(resource));

  t.strictSame(byPlugin, byCli, 'the same libraries, versions and vulnerabilities per file');
  // What both found, spelled out (RetireJS repository of 2026-08-22).
  t.strictSame(Object.keys(byCli).sort(), FILES.slice().sort());
  t.strictSame(byCli['jquery-1.12.4.min.js'], {
    'jquery@1.12.4': {
      vulnerabilities: [
        'CVE-2015-9251 medium: 3rd party CORS request may execute',
        'CVE-2019-11358 medium: jQuery before 3.4.0, as used in Drupal, Backdrop CMS, and other products, mishandles jQuery.extend(true, {}, ...) because of Object.prototype pollution',
        'CVE-2020-11022 medium: Regex in its jQuery.htmlPrefilter sometimes may introduce XSS',
        "CVE-2020-11023 medium: passing HTML containing <option> elements from untrusted sources - even after sanitizing it - to one of jQuery's DOM manipulation methods (i.e. .html(), .append(), and others) may execute untrusted code.",
        'jquery issue 11974 medium: parseHTML() executes scripts in event handlers',
      ],
      endOfLife: true,
    },
  });
  t.strictSame(byCli['jquery.min.js'], { 'jquery@3.7.1': { vulnerabilities: [], endOfLife: false } });
  t.strictSame(Object.keys(byCli['bootstrap.min.js']), ['bootstrap@3.3.7']);
  t.ok(byCli['bootstrap.min.js']['bootstrap@3.3.7'].endOfLife, "Bootstrap 3 is past RetireJS's end of life");
  t.ok(byCli['bootstrap.min.js']['bootstrap@3.3.7'].vulnerabilities.some((v) => v.startsWith('CVE-2019-8331 medium: ')));
});

const retire = createRequire(import.meta.url)('retire/lib/retire.js') as typeof import('retire/lib/retire.js');
/** The vendored repository as RetireJS reads it, "dont check" and all; read here, not through the plugin. */
const raw = JSON.parse(retire.replaceVersion(await readFile(RETIRE_REPOSITORY_FILE, 'utf8'))) as Repository;

const CDN_URLS = [
  'https://code.jquery.com/jquery-1.12.4.min.js',
  'https://ajax.googleapis.com/ajax/libs/jquery/3.5.1/jquery.min.js',
  'https://cdnjs.cloudflare.com/ajax/libs/jquery/2.2.4/jquery.min.js',
  'https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js',
  'https://code.jquery.com/ui/1.12.1/jquery-ui.min.js',
  'https://maxcdn.bootstrapcdn.com/bootstrap/3.3.7/js/bootstrap.min.js',
  'https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js',
  'https://cdn.jsdelivr.net/npm/bootstrap@5.3.2/dist/js/bootstrap.bundle.min.js',
  'https://ajax.googleapis.com/ajax/libs/angularjs/1.8.2/angular.min.js',
  'https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.15/lodash.min.js',
  'https://cdnjs.cloudflare.com/ajax/libs/moment.js/2.29.1/moment.min.js',
  'https://unpkg.com/vue@2.6.14/dist/vue.min.js',
];
const DONT_CHECK_URLS = ['https://www.google-analytics.com/ga.js', 'https://apis.google.com/js/plusone.js', 'https://cdn.cxense.com/cx.js'];

/** The identifiers RetireJS's CLI tells advisories apart by (lib/scanner.js getIdentifiers). */
const identifiers = (v: Vulnerability) => [...(v.identifiers?.CVE ?? []), ...[v.identifiers?.bug, v.identifiers?.issue, v.identifiers?.githubID].filter((x): x is string => !!x)];

/** RetireJS's URL scan, as its browser extension runs it, with the CLI's de-duplication; null: not scanned ("dont check"). */
function retireUrlScan(url: string): ReturnType<typeof retire.scanUri> | null {
  const { ['dont check']: dontCheck, ...libraries } = raw;
  if (dontCheck.extractors.uri!.some((pattern) => new RegExp(pattern).test(url))) return null;
  let results = retire.scanUri(url, libraries);
  if (results.length === 0) results = retire.scanFileName(new URL(url).pathname.split('/').pop()!, libraries, false);
  for (const r of results) {
    const unique: Vulnerability[] = [];
    for (const v of r.vulnerabilities ?? []) if (!unique.some((u) => identifiers(u).some((id) => identifiers(v).includes(id)))) unique.push(v);
    r.vulnerabilities = unique;
  }
  return results;
}

t.test("scripts at CDN URLs: the plugin finds what RetireJS's URL scan finds, and skips its \"dont check\" URLs", async (t) => {
  // What made type 25 fail (error, rating -1) or name a library "dont-check www": RetireJS's URL
  // API on the repository with its pseudo-entry in.
  t.throws(() => retire.scanUri('https://apis.google.com/js/plusone.js', raw), TypeError);
  t.strictSame(retire.scanUri('https://www.google-analytics.com/ga.js', raw).map((r) => r.component), ['dont check']);

  const expected: Seen = {};
  for (const url of CDN_URLS) {
    const results = retireUrlScan(url);
    t.ok(results, `${url} is scanned`);
    if (results!.length) expected[url] = seenOf(results!);
  }
  for (const url of DONT_CHECK_URLS) t.equal(retireUrlScan(url), null, `${url} is not scanned`);

  const urls = [...CDN_URLS, ...DONT_CHECK_URLS];
  const artifacts = makeArtifacts(PAGE, {
    mainDocument: { url: PAGE, status: 200, headers: {}, html: '<!DOCTYPE html><html lang="sv"><head><title>K</title></head><body></body></html>' },
    network: urls.map((url) => ({
      url, method: 'GET', status: 200, resourceType: 'Script', mimeType: 'text/javascript', remoteAddress: '192.0.2.1', protocol: 'h2',
      requestHeaders: {}, responseHeaders: {}, setCookies: [], transferSize: 500, resourceSize: 500, failed: false,
    })),
  });
  const outcome = await runPlugin(plugin, artifacts, { probes: {} as Probes, now: new Date('2026-11-27T12:00:00Z') });
  t.equal(outcome.error, null);
  t.strictSame(pluginSeen(outcome.data, (resource) => resource), expected, 'the same libraries, versions and vulnerabilities per URL');
  t.match((outcome.data as any).retire_scan, { scripts: urls.length, scanned: CDN_URLS.length, dont_check: DONT_CHECK_URLS, not_scanned_count: 0 });

  // What both found, in short.
  t.strictSame(Object.fromEntries(Object.entries(expected).map(([url, seen]) => [new URL(url).hostname + new URL(url).pathname, Object.keys(seen).join(' ')])), {
    'code.jquery.com/jquery-1.12.4.min.js': 'jquery@1.12.4',
    'ajax.googleapis.com/ajax/libs/jquery/3.5.1/jquery.min.js': 'jquery@3.5.1',
    'cdnjs.cloudflare.com/ajax/libs/jquery/2.2.4/jquery.min.js': 'jquery@2.2.4',
    'code.jquery.com/ui/1.12.1/jquery-ui.min.js': 'jquery-ui@1.12.1',
    'maxcdn.bootstrapcdn.com/bootstrap/3.3.7/js/bootstrap.min.js': 'bootstrap@3.3.7',
    'stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js': 'bootstrap@4.3.1',
    'ajax.googleapis.com/ajax/libs/angularjs/1.8.2/angular.min.js': 'angularjs@1.8.2',
    'cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.15/lodash.min.js': 'lodash@4.17.15',
    'cdnjs.cloudflare.com/ajax/libs/moment.js/2.29.1/moment.min.js': 'moment.js@2.29.1',
  });
  t.ok(expected['https://maxcdn.bootstrapcdn.com/bootstrap/3.3.7/js/bootstrap.min.js']['bootstrap@3.3.7'].endOfLife);
  t.ok(expected['https://ajax.googleapis.com/ajax/libs/angularjs/1.8.2/angular.min.js']['angularjs@1.8.2'].endOfLife);
});
