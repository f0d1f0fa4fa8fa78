/**
 * Operator commands over the vendored data plugins read.
 *
 *   webperf data refresh-retire [--from URL] [--out FILE]
 *   webperf data refresh-trackers [--from URL] [--out FILE]
 *
 * refresh-trackers downloads The Block List Project's tracking list (core/data/
 * blocklistproject-tracking-nl.txt, read by core/trackers.ts for types 31 and 23) the same way,
 * through the same guard, deadline and size cap, checks that it is a list of domains, and replaces
 * the stored copy (compacted, core/data/README.md) and its sidecar by the same two renames.
 *
 * refresh-retire downloads RetireJS's repository of JavaScript libraries and their vulnerabilities (the software
 * plugin's data/jsrepository-v4.json) through the service's target guard, as every request the
 * service makes on its own goes (WEBPERF_DNS_SERVERS, WEBPERF_ALLOW_TARGETS, WEBPERF_EXTRA_CA_CERTS;
 * private addresses refused), over https with the certificate verified. The answer must be a
 * RetireJS repository (RetireJS's own schema check, and jQuery among at least 20 libraries)
 * before it replaces the file. The download has an overall deadline (DOWNLOAD_DEADLINE_MS, all
 * redirects included: a server that trickles is cut off) besides the idle timeout, and a size cap.
 *
 * Replacing: both new files are written beside the old under temporary names, then the data is
 * renamed over the old, then the `.meta.json` (source, date, SHA-256). Each file is replaced
 * whole, but the two renames are not one: a reader in between sees the new data beside the old
 * sidecar. The plugin's loader (plugins/software/retire-data.ts) therefore believes a sidecar only
 * when its SHA-256 is that of the data it read (else it dates the data by the file's own time) and
 * reads both again when either changes. If the second rename fails, the data has been replaced
 * and the command says so (exit 1), not that nothing was written.
 *
 * Exit codes: 0 refreshed · 1 the download or the check failed (nothing written), or the data was
 * replaced but its `.meta.json` was not (said so) · 2 bad usage.
 */
import http from 'node:http';
import https from 'node:https';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../core/config.js';
import type { TargetGuard } from '../core/net/target-guard.js';
import type { TrackerListMeta } from '../core/trackers.js';
import type { RetireMeta } from '../plugins/software/retire-data.js';

/** The default source, as plugins/software/retire-data.ts names it (kept here so that --help loads nothing). */
const DEFAULT_FROM = 'https://raw.githubusercontent.com/RetireJS/retire.js/master/repository/jsrepository-v4.json';
/** The tracking list's default source, as core/trackers.ts names it. */
const DEFAULT_TRACKERS_FROM = 'https://blocklistproject.github.io/Lists/alt-version/tracking-nl.txt';

export const DATA_USAGE = `Usage:
  webperf data refresh-retire [--from URL] [--out FILE]
      download RetireJS's repository of JavaScript libraries and their vulnerabilities, check it
      and replace the software test's copy (and its .meta.json); prints the new date
      --from   an https URL (default ${DEFAULT_FROM})
      --out    the file to replace (default plugins/software/data/jsrepository-v4.json)
  webperf data refresh-trackers [--from URL] [--out FILE]
      download The Block List Project's list of tracking domains, check it and replace the copy
      the privacy and tracking tests read (and its .meta.json); prints the new date
      --from   an https URL (default ${DEFAULT_TRACKERS_FROM})
      --out    the file to replace (default core/data/blocklistproject-tracking-nl.txt)
  each download must end within 180 s and 20 MB
`;

const MAX_BYTES = 20_000_000;
/** No byte for this long ends the download. */
const TIMEOUT_MS = 60_000;
/** The whole download, redirects included, ends by then however the server trickles. */
export const DOWNLOAD_DEADLINE_MS = 180_000;
const MAX_REDIRECTS = 5;

/** The data file was replaced, but its sidecar could not be: not "nothing was written". */
export class SidecarNotWritten<M = RetireMeta> extends Error {
  constructor(
    readonly meta: M,
    readonly metaFile: string,
    readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SidecarNotWritten';
  }
}

type Fail = (message: string, code?: number) => never;

/** One GET through the guard, certificate verified, ended at `deadline` (epoch ms); the body, or a redirect's target. */
function getOnce(guard: TargetGuard, url: URL, deadline: number, late: () => Error, accept: string): Promise<{ status: number; location?: string; body: Buffer }> {
  return new Promise<{ status: number; location?: string; body: Buffer }>((settle, fail) => {
    const timer = setTimeout(() => {
      const err = late();
      req.destroy(err);
      fail(err);
    }, Math.max(0, deadline - Date.now()));
    const resolve = (value: { status: number; location?: string; body: Buffer }) => {
      clearTimeout(timer);
      settle(value);
    };
    const reject = (err: Error) => {
      clearTimeout(timer);
      fail(err);
    };
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        method: 'GET',
        lookup: guard.lookupFor(url) as any,
        headers: { 'user-agent': 'webperf data refresh', accept },
        timeout: TIMEOUT_MS,
        agent: false,
        ...(url.protocol === 'https:' ? { secureContext: guard.trust.secureContext(), rejectUnauthorized: true } : {}),
      } as https.RequestOptions,
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ status, location: res.headers.location, body: Buffer.alloc(0) });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) return req.destroy(new Error(`the answer is larger than ${MAX_BYTES} bytes`));
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}

/** GET with redirects, every hop through the guard and over https, all of it within deadlineMs. */
async function download(guard: TargetGuard, raw: string, deadlineMs: number, accept = 'application/json'): Promise<Buffer> {
  const deadline = Date.now() + deadlineMs;
  const late = () => new Error(`the download did not finish within ${deadlineMs / 1000} s`);
  let current = raw;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const url = await guard.assertUrl(current);
    if (url.protocol !== 'https:') throw new Error(`${current} is not https`);
    if (Date.now() >= deadline) throw late();
    const res = await getOnce(guard, url, deadline, late, accept);
    if (res.location) {
      current = new URL(res.location, url).href;
      continue;
    }
    if (res.status !== 200) throw new Error(`${current} answered HTTP ${res.status}`);
    return res.body;
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects`);
}

/** RetireJS's own schema check (lib/repo.js, as its CLI checks a downloaded repository). */
function validateWithRetire(text: string, retire: typeof import('retire/lib/retire.js')): void {
  const { validateRepository } = createRequire(import.meta.url)('retire/lib/repo.js') as typeof import('retire/lib/repo.js');
  const result = validateRepository(JSON.parse(retire.replaceVersion(text)), retire.replaceVersion);
  if (!result.success) {
    const first = result.error.issues[0];
    throw new Error(`not a valid RetireJS repository (${result.error.issues.length} problem(s), first: ${first.path.join('.')}: ${first.message})`);
  }
}

async function previousDate(metaFile: string): Promise<string | null> {
  try {
    return (JSON.parse(await readFile(metaFile, 'utf8')) as RetireMeta).date ?? null;
  } catch {
    return null;
  }
}

/**
 * Downloads, checks and replaces `out` and its sidecar. Rejects with SidecarNotWritten when the
 * data was replaced but the sidecar was not; with any other error, nothing was replaced.
 */
export async function refreshRetire(config: Config, options: { from: string; out: string; now?: Date; deadlineMs?: number }): Promise<{ meta: RetireMeta; previous: string | null }> {
  const [{ guardFromConfig }, { countRepository, metaFileOf, parseRetireRepository, retire, sha256 }] = await Promise.all([
    import('../core/net/egress.js'),
    import('../plugins/software/retire-data.js'),
  ]);
  const guard = guardFromConfig(config);
  const body = await download(guard, options.from, options.deadlineMs ?? DOWNLOAD_DEADLINE_MS);
  const text = body.toString('utf8');
  const repository = parseRetireRepository(text);
  validateWithRetire(text, retire);
  const counts = countRepository(repository);
  const now = options.now ?? new Date();
  const meta: RetireMeta = {
    source_url: options.from,
    date: now.toISOString().slice(0, 10),
    sha256: sha256(body),
    libraries: counts.libraries,
    vulnerabilities: counts.vulnerabilities,
    licence: 'Apache-2.0 (RetireJS, Erlend Oftedal and contributors)',
  };
  const previous = await replaceWithSidecar(options.out, metaFileOf(options.out), body, meta, now);
  return { meta, previous };
}

/**
 * Writes `data` and its sidecar beside the old files, then renames the data over `out`, then the
 * sidecar over `metaFile`; the sidecar's previous date. Rejects with SidecarNotWritten when only
 * the data was replaced.
 */
async function replaceWithSidecar<M extends object>(out: string, metaFile: string, data: string | Buffer, meta: M, now: Date): Promise<string | null> {
  const previous = await previousDate(metaFile);
  // Both written in full beside the old ones first; then data, then sidecar, each by one rename.
  const suffix = `.${process.pid}.tmp`;
  try {
    await writeFile(out + suffix, data);
    await writeFile(metaFile + suffix, `${JSON.stringify({ ...meta, fetched_at: now.toISOString() }, null, 1)}\n`);
    await rename(out + suffix, out);
    try {
      await rename(metaFile + suffix, metaFile);
    } catch (err) {
      throw new SidecarNotWritten(meta, metaFile, err);
    }
  } finally {
    await Promise.all([rm(out + suffix, { force: true }), rm(metaFile + suffix, { force: true })]);
  }
  return previous;
}

/**
 * Downloads The Block List Project's tracking list, checks it, and replaces `out` (compacted) and
 * its sidecar. Rejects with SidecarNotWritten when the list was replaced but the sidecar was not;
 * with any other error, nothing was replaced.
 */
export async function refreshTrackers(config: Config, options: { from: string; out: string; now?: Date; deadlineMs?: number }): Promise<{ meta: TrackerListMeta; previous: string | null }> {
  const [{ guardFromConfig }, { compactTrackerList, parseTrackerList, sha256, trackerListText, trackerMetaFileOf, TRACKER_LIST_LICENCE }] = await Promise.all([
    import('../core/net/egress.js'),
    import('../core/trackers.js'),
  ]);
  const guard = guardFromConfig(config);
  const body = await download(guard, options.from, options.deadlineMs ?? DOWNLOAD_DEADLINE_MS, 'text/plain');
  const { domains, modified } = parseTrackerList(body.toString('utf8'));
  const stored = trackerListText(compactTrackerList(domains));
  const now = options.now ?? new Date();
  const meta: TrackerListMeta = {
    source_url: options.from,
    date: now.toISOString().slice(0, 10),
    ...(modified ? { list_modified: modified } : {}),
    source_sha256: sha256(body),
    source_entries: domains.length,
    sha256: sha256(stored),
    domains: stored.split('\n').length - 1,
    licence: TRACKER_LIST_LICENCE,
  };
  const previous = await replaceWithSidecar(options.out, trackerMetaFileOf(options.out), stored, meta, now);
  return { meta, previous };
}

export async function dataCommand(config: Config, args: string[], fail: Fail): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(DATA_USAGE);
    return;
  }
  if (sub !== 'refresh-retire' && sub !== 'refresh-trackers') fail(`webperf data: unknown command "${sub}"\n${DATA_USAGE}`);
  let values: { from?: string; out?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { from: { type: 'string' }, out: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    fail(`webperf data ${sub}: ${(err as Error).message}\n${DATA_USAGE}`);
  }
  const from = values.from ?? (sub === 'refresh-retire' ? DEFAULT_FROM : DEFAULT_TRACKERS_FROM);
  let fromUrl: URL | null = null;
  try {
    fromUrl = new URL(from);
  } catch {
    /* refused below */
  }
  if (!fromUrl || fromUrl.protocol !== 'https:') fail(`webperf data ${sub}: --from must be an https URL, got "${from}"`);
  if (sub === 'refresh-trackers') return trackersCommand(config, from, values.out, fail);
  const out = path.resolve(values.out ?? (await import('../plugins/software/retire-data.js')).RETIRE_REPOSITORY_FILE);
  try {
    const { meta, previous } = await refreshRetire(config, { from, out });
    process.stdout.write(
      `${path.basename(out)}: ${meta.libraries} libraries, ${meta.vulnerabilities} vulnerabilities, dated ${meta.date}` +
        `${previous ? ` (was ${previous})` : ''}, from ${from}\n`,
    );
  } catch (err) {
    if (err instanceof SidecarNotWritten) {
      fail(
        `webperf data refresh-retire: ${path.basename(out)} was replaced (${err.meta.libraries} libraries, ${err.meta.vulnerabilities} vulnerabilities, from ${from}), ` +
          `but ${path.basename(err.metaFile)} could not be: ${err.message}. Until it is, the software test dates the data by the file's own time; run the command again.`,
        1,
      );
    }
    fail(`webperf data refresh-retire: ${err instanceof Error ? err.message : String(err)}; nothing was written`, 1);
  }
}

async function trackersCommand(config: Config, from: string, outArg: string | undefined, fail: Fail): Promise<void> {
  const out = path.resolve(outArg ?? (await import('../core/trackers.js')).TRACKER_LIST_FILE);
  try {
    const { meta, previous } = await refreshTrackers(config, { from, out });
    process.stdout.write(
      `${path.basename(out)}: ${meta.domains} domains (${meta.source_entries} listed), dated ${meta.date}` +
        `${previous ? ` (was ${previous})` : ''}, from ${from}\n`,
    );
  } catch (err) {
    if (err instanceof SidecarNotWritten) {
      const meta = err.meta as TrackerListMeta;
      fail(
        `webperf data refresh-trackers: ${path.basename(out)} was replaced (${meta.domains} domains, from ${from}), ` +
          `but ${path.basename(err.metaFile)} could not be: ${err.message}. Until it is, the privacy test dates the list by the file's own time; run the command again.`,
        1,
      );
    }
    fail(`webperf data refresh-trackers: ${err instanceof Error ? err.message : String(err)}; nothing was written`, 1);
  }
}
