/**
 * `webperf data refresh-retire`, run as the operator runs it (the real CLI in its own process),
 * against raw.githubusercontent.com as a site of the test world (its real name, answered by the
 * world's DNS server; https with the suite's CA, which the CLI trusts as an operator configures
 * it: world.env()). Always into a temporary copy (--out), never over the vendored file. The
 * overall download deadline is tried in this process (refreshRetire with a short deadline), and
 * the plugin's loader (loadRetire) between and after the two renames of a refresh.
 * `webperf data refresh-trackers` the same way, against blocklistproject.github.io of the world:
 * the list as published (its comment header, an entry a listed parent covers), stored compactly;
 * what is no list replaces nothing; a private address is refused before anything connects.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { loadConfig } from '../../core/config.js';
import { countRepository, loadRetire, metaFileOf, parseRetireRepository, RETIRE_REPOSITORY_FILE, RETIRE_REPOSITORY_URL, sha256 } from '../../plugins/software/retire-data.js';
import { compactTrackerList, loadTrackerList, parseTrackerList, sha256 as sha256Of, TRACKER_LIST_FILE, TRACKER_LIST_URL, trackerDomainOf, trackerListText, trackerMetaFileOf } from '../../core/trackers.js';
import { refreshRetire } from '../../runners/data-cli.js';
import { startWorld } from '../helpers/world/index.js';

const exec = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');
const REPO_PATH = new URL(RETIRE_REPOSITORY_URL).pathname;

// What the world's raw.githubusercontent.com serves: the vendored repository less one library,
// so that a refresh visibly changes the file; and what a broken source could send.
const vendored = await readFile(RETIRE_REPOSITORY_FILE, 'utf8');
const served = (() => {
  const repo = JSON.parse(vendored);
  delete repo['retire-example'];
  return JSON.stringify(repo, null, 1);
})();
const badSeverity = (() => {
  const repo = JSON.parse(vendored);
  repo.jquery.vulnerabilities[0].severity = 'catastrophic';
  return JSON.stringify(repo);
})();
const ANSWERS: Record<string, [number, string]> = {
  [REPO_PATH]: [200, served],
  '/empty.json': [200, '{}'],
  '/bad-severity.json': [200, badSeverity],
  '/html': [200, '<!DOCTYPE html><title>Not JSON</title>'],
};

const world = await startWorld(t);
await world.site('raw.githubusercontent.com', {
  handler: (req, res) => {
    const url = req.url ?? '/';
    if (url === '/moved') return void res.writeHead(302, { location: REPO_PATH }).end();
    if (url === '/trickle') {
      // A byte every 100 ms, never an end: no idle timeout ever fires.
      res.writeHead(200, { 'content-type': 'application/json' }).write('{');
      const drip = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(drip));
      return;
    }
    const answer = ANSWERS[url];
    if (!answer) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found');
    res.writeHead(answer[0], { 'content-type': 'text/plain; charset=utf-8' }).end(answer[1]);
  },
});

// What the world's blocklistproject.github.io serves: the vendored list less one domain, with the
// published list's comment header and an entry its listed parent covers; and what it must refuse.
const LIST_PATH = new URL(TRACKER_LIST_URL).pathname;
const vendoredList = await readFile(TRACKER_LIST_FILE, 'utf8');
const listDomains = vendoredList.split('\n').filter(Boolean);
const servedDomains = listDomains.filter((d) => d !== 'hotjar.com');
const servedList = `# Title: Tracking Block List\n# Last modified: 2026-11-02 03:04:05 UTC\n#\n${[...servedDomains, 'ads.google-analytics.com'].join('\n')}\n`;
const listRequests: string[] = [];
await world.site('blocklistproject.github.io', {
  handler: (req, res) => {
    listRequests.push(req.url ?? '/');
    if (req.url === LIST_PATH) return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(servedList);
    if (req.url === '/Lists/short.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('# a list\nexample.com\n');
    res.writeHead(404, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>404</title>');
  },
});

const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-data-cli-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

/** A fresh copy of the vendored repository and its sidecar in the test's folder. */
async function copyOfVendored(name: string): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  await copyFile(RETIRE_REPOSITORY_FILE, file);
  await copyFile(metaFileOf(RETIRE_REPOSITORY_FILE), metaFileOf(file));
  return file;
}

async function webperf(args: string[], env: Record<string, string> = world.env()) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, 'data', ...args], { env: { ...process.env, WEBPERF_DEMO: '0', ...env }, cwd: dir, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

const today = () => new Date().toISOString().slice(0, 10);

/** One refresh into a fresh copy of the vendored file. */
async function refresh(name: string, args: string[], env?: Record<string, string>) {
  const out = await copyOfVendored(name);
  const before = today();
  const res = await webperf(['refresh-retire', ...args, '--out', out], env);
  return { out, res, before, after: today() };
}

const BAD: [string, RegExp][] = [
  ['/empty.json', /only 0 libraries and no jQuery: not RetireJS's repository/],
  ['/bad-severity.json', /not a valid RetireJS repository \(1 problem\(s\), first: jquery\.vulnerabilities\.0\.severity: /],
  ['/html', /not JSON/],
  ['/missing.json', /https:\/\/raw\.githubusercontent\.com\/missing\.json answered HTTP 404/],
];

/** A fresh copy of the vendored tracking list and its sidecar in the test's folder. */
async function copyOfList(name: string): Promise<string> {
  const file = path.join(dir, `${name}.txt`);
  await copyFile(TRACKER_LIST_FILE, file);
  await copyFile(trackerMetaFileOf(TRACKER_LIST_FILE), trackerMetaFileOf(file));
  return file;
}
async function refreshList(name: string, args: string[], env?: Record<string, string>) {
  const out = await copyOfList(name);
  const before = today();
  const res = await webperf(['refresh-trackers', ...args, '--out', out], env);
  return { out, res, before, after: today() };
}

// Every run starts at once, each into its own copy (the file's time budget); the tests read their outcomes.
const runs = {
  default: refresh('default', []),
  moved: refresh('moved', ['--from', 'https://raw.githubusercontent.com/moved']),
  bad: Promise.all(BAD.map(([p], i) => refresh(`bad-${i}`, ['--from', `https://raw.githubusercontent.com${p}`]))),
  guarded: refresh('guarded', [], world.env({ WEBPERF_ALLOW_TARGETS: '' })),
  // The sidecar's name is taken by a folder: the data's rename succeeds, the sidecar's fails.
  sidecarBlocked: (async () => {
    const out = await copyOfVendored('blocked');
    await rm(metaFileOf(out));
    await mkdir(metaFileOf(out));
    return { out, res: await webperf(['refresh-retire', '--out', out]) };
  })(),
  trackers: refreshList('trackers', []),
  trackersBad: Promise.all([
    refreshList('trackers-html', ['--from', 'https://blocklistproject.github.io/Lists/missing.txt']),
    refreshList('trackers-short', ['--from', 'https://blocklistproject.github.io/Lists/short.txt']),
  ]),
  trackersGuarded: refreshList('trackers-guarded', ['--from', 'https://blocklistproject.github.io/Lists/guarded.txt'], world.env({ WEBPERF_ALLOW_TARGETS: '' })),
  usage: Promise.all([
    webperf(['refresh-retire', '--from', 'http://raw.githubusercontent.com/x.json', '--out', path.join(dir, 'never.json')]),
    webperf(['refresh-everything']),
    webperf(['--help']),
  ]),
};

t.test('refresh-retire downloads from the default address, checks, replaces the copy and its date', async (t) => {
  const { out, res, before, after } = await runs.default;
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stderr, '');
  const counts = countRepository(parseRetireRepository(served));
  t.equal(counts.libraries, 75);
  const date = JSON.parse(await readFile(metaFileOf(out), 'utf8')).date;
  t.ok(date === before || date === after, 'dated the day of the download');
  t.equal(res.stdout, `default.json: 75 libraries, ${counts.vulnerabilities} vulnerabilities, dated ${date} (was 2026-08-22), from ${RETIRE_REPOSITORY_URL}\n`);
  t.equal(await readFile(out, 'utf8'), served, 'the file is what was served, byte for byte');
  t.match(JSON.parse(await readFile(metaFileOf(out), 'utf8')), {
    source_url: RETIRE_REPOSITORY_URL,
    date,
    sha256: sha256(served),
    libraries: 75,
    vulnerabilities: counts.vulnerabilities,
  });
  t.equal(await readFile(RETIRE_REPOSITORY_FILE, 'utf8'), vendored, 'the vendored file is untouched');
});

t.test('a redirect is followed through the guard', async (t) => {
  const { out, res } = await runs.moved;
  t.equal(res.code, 0, res.stderr);
  t.equal(await readFile(out, 'utf8'), served);
});

t.test('what is not a RetireJS repository, or not there, replaces nothing', async (t) => {
  for (const [i, { out, res }] of (await runs.bad).entries()) {
    t.equal(res.code, 1, BAD[i][0]);
    t.equal(res.stdout, '');
    t.match(res.stderr, BAD[i][1]);
    t.match(res.stderr, /; nothing was written\n$/);
    t.equal(await readFile(out, 'utf8'), vendored, `${BAD[i][0]}: the copy is unchanged`);
    t.equal(JSON.parse(await readFile(metaFileOf(out), 'utf8')).date, '2026-08-22');
  }
});

t.test("the service's guard refuses a private address, as in production", async (t) => {
  const { out, res } = await runs.guarded;
  t.equal(res.code, 1);
  t.match(res.stderr, /^webperf data refresh-retire: The address raw\.githubusercontent\.com resolves to 127\.\d+\.\d+\.\d+, which is not allowed as a test target; nothing was written\n$/);
  t.equal(await readFile(out, 'utf8'), vendored);
});

t.test('bad usage: exit code 2', async (t) => {
  const [http, unknown, help] = await runs.usage;
  t.equal(http.code, 2);
  t.match(http.stderr, /--from must be an https URL, got "http:\/\/raw\.githubusercontent\.com\/x\.json"/);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /^webperf data: unknown command "refresh-everything"\nUsage:\n {2}webperf data refresh-retire/);
  t.equal(help.code, 0);
  t.match(help.stdout, /^Usage:\n {2}webperf data refresh-retire \[--from URL\] \[--out FILE\]/);
});

t.test('when the data is replaced but its sidecar cannot be, the command says so, not "nothing was written"', async (t) => {
  const { out, res } = await runs.sidecarBlocked;
  t.equal(res.code, 1);
  t.equal(res.stdout, '');
  t.match(res.stderr, /^webperf data refresh-retire: blocked\.json was replaced \(75 libraries, \d+ vulnerabilities, from https:\/\/raw\.githubusercontent\.com\/RetireJS\/retire\.js\/master\/repository\/jsrepository-v4\.json\), but blocked\.meta\.json could not be: /);
  t.match(res.stderr, /the software test dates the data by the file's own time; run the command again\.\n$/);
  t.notMatch(res.stderr, /nothing was written/);
  t.equal(await readFile(out, 'utf8'), served, 'the data was replaced');
});

t.test('the download has an overall deadline: a server that trickles a byte every 100 ms is cut off', async (t) => {
  const out = await copyOfVendored('trickle');
  const config = loadConfig({ ...process.env, ...world.env() });
  const started = performance.now();
  await t.rejects(refreshRetire(config, { from: 'https://raw.githubusercontent.com/trickle', out, deadlineMs: 1_500 }), { message: 'the download did not finish within 1.5 s' });
  t.ok(performance.now() - started < 5_000);
  t.equal(await readFile(out, 'utf8'), vendored, 'nothing was written');
});

t.test("the plugin's loader never pairs new data with the old sidecar's date, and reads a new sidecar", async (t) => {
  const file = await copyOfVendored('reader');
  const before = loadRetire(file);
  t.equal(before.meta.date, '2026-08-22');
  t.equal(before.metaMatches, true);
  t.ok('retire-example' in before.repository);

  // A refresh between its two renames: the new data is in place, the old sidecar still beside it.
  await writeFile(`${file}.tmp`, served);
  await utimes(`${file}.tmp`, new Date('2027-02-03T10:00:00Z'), new Date('2027-02-03T10:00:00Z'));
  await rename(`${file}.tmp`, file);
  const between = loadRetire(file);
  t.notOk('retire-example' in between.repository, 'the new data');
  t.equal(between.metaMatches, false, "the old sidecar's SHA-256 is not the new data's");
  t.equal(between.meta.date, '2027-02-03', "dated by the data file's own time, not by the old sidecar (2026-08-22)");
  t.equal(between.meta.sha256, sha256(served));

  // The second rename: the new sidecar is read, though the data file did not change again.
  const meta = { ...JSON.parse(await readFile(metaFileOf(file), 'utf8')), date: '2027-02-04', sha256: sha256(served) };
  await writeFile(`${metaFileOf(file)}.tmp`, JSON.stringify(meta));
  await rename(`${metaFileOf(file)}.tmp`, metaFileOf(file));
  const after = loadRetire(file);
  t.equal(after.metaMatches, true);
  t.equal(after.meta.date, '2027-02-04');
  t.equal(loadRetire(file), after, 'then cached');
});

t.test('refresh-trackers downloads the tracking list from its default address through the guard, stores it compactly and dates it', async (t) => {
  const { out, res, before, after } = await runs.trackers;
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stderr, '');
  const meta = JSON.parse(await readFile(trackerMetaFileOf(out), 'utf8'));
  t.ok(meta.date === before || meta.date === after, 'dated the day of the download');
  const stored = trackerListText(compactTrackerList(servedDomains));
  t.equal(res.stdout, `trackers.txt: ${servedDomains.length} domains (${servedDomains.length + 1} listed), dated ${meta.date} (was 2026-07-20), from ${TRACKER_LIST_URL}\n`);
  t.equal(await readFile(out, 'utf8'), stored, 'the comment header and the covered entry (ads.google-analytics.com) left out');
  t.match(meta, {
    source_url: TRACKER_LIST_URL,
    list_modified: '2026-11-02 03:04:05 UTC',
    source_sha256: sha256Of(servedList),
    source_entries: servedDomains.length + 1,
    sha256: sha256Of(stored),
    domains: servedDomains.length,
    licence: 'The Unlicense (public domain), The Block List Project',
  });
  const list = loadTrackerList(out);
  t.equal(list.metaMatches, true);
  t.equal(trackerDomainOf('static.hotjar.com', list.domains), null, 'the domain the new list dropped');
  t.equal(trackerDomainOf('ads.google-analytics.com', list.domains), 'google-analytics.com');
  t.equal(await readFile(TRACKER_LIST_FILE, 'utf8'), vendoredList, 'the vendored file is untouched');
  t.ok(parseTrackerList(vendoredList).domains.length === listDomains.length);
});

t.test('refresh-trackers: what is not the list replaces nothing', async (t) => {
  const [html, short] = await runs.trackersBad;
  for (const [{ out, res }, why] of [[html, /answered HTTP 404/], [short, /only 1 domains: not the tracking list/]] as const) {
    t.equal(res.code, 1);
    t.equal(res.stdout, '');
    t.match(res.stderr, why);
    t.match(res.stderr, /^webperf data refresh-trackers: .*; nothing was written\n$/);
    t.equal(await readFile(out, 'utf8'), vendoredList);
    t.equal(JSON.parse(await readFile(trackerMetaFileOf(out), 'utf8')).date, '2026-07-20');
  }
});

t.test("refresh-trackers: the service's guard refuses a private address before anything connects", async (t) => {
  const { out, res } = await runs.trackersGuarded;
  t.equal(res.code, 1);
  t.match(res.stderr, /^webperf data refresh-trackers: The address blocklistproject\.github\.io resolves to 127\.\d+\.\d+\.\d+, which is not allowed as a test target; nothing was written\n$/);
  await runs.trackers;
  t.notOk(listRequests.includes('/Lists/guarded.txt'), 'the server never saw the request');
  t.equal(await readFile(out, 'utf8'), vendoredList);
});
