/**
 * `webperf audit`: the crawl from the command line, a spawned process pointed at the test world
 * as an operator would point it (world.env(): its DNS server, its CA, loopback allowed), against a
 * municipality served as the web serves one (https://kommun.test/ answers 301 to
 * https://www.kommun.test/, whose robots.txt disallows /intern/): its progress bar and the files
 * it writes (csv format here: axe only, so the test stays fast; the audit_v2 files are covered by
 * the runner test with the same functions), and bad input refused.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { startWorld } from '../helpers/world/index.js';
import { lentChromiumEnv } from '../helpers/shared-chromium.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

async function webperf(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { timeout: 180_000, env: { ...process.env, ...lentChromiumEnv(), ...env } });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

t.test('webperf audit crawls the site, shows progress and writes the files', async (t) => {
  const world = await startWorld(t);
  await world.site('kommun.test', { handler: (req, res) => void res.writeHead(301, { location: `https://www.kommun.test${req.url}`, 'content-length': '0' }).end() });
  await world.site('www.kommun.test', { root: 'kommun-www' });
  const out = await mkdtemp(path.join(os.tmpdir(), 'webperf-audit-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  const r = await webperf(['audit', 'https://kommun.test/', '--pages', '3', '--format', 'csv', '--out', out], world.env());
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, /auditing https:\/\/kommun\.test\/: up to 3 page\(s\), format csv/);
  // The start page answers 301 to www's, which the sitemap lists; /intern/lonelista/, also listed, is disallowed.
  t.match(r.stderr, /\[#{8}-{16}\] 1\/3 ✓ https:\/\/www\.kommun\.test\/\n/);
  t.match(r.stderr, /\[#{16}-{8}\] 2\/3 ✓ https:\/\/www\.kommun\.test\/bygga-bo\/\n/);
  t.match(r.stderr, /\[#{24}\] 3\/3 ✓ https:\/\/www\.kommun\.test\/om-kommunen\/\n/);
  t.notMatch(r.stderr, /intern/);
  t.same(await readdir(out), ['accessibility.csv']);
  t.equal(r.stdout, `${path.join(out, 'accessibility.csv')}\n`);
  const lines = (await readFile(path.join(out, 'accessibility.csv'), 'utf8')).trim().split('\n');
  t.equal(lines[0], 'url,status,rule,impact,elements,help,help_url,error');
  t.equal(lines[1], 'https://www.kommun.test/,done,,,,,,');
  t.match(lines[2], /^https:\/\/www\.kommun\.test\/bygga-bo\/,done,image-alt,critical,1,Images must have alternative text,https:\/\/dequeuniversity\.com\/rules\/axe\/[0-9.]+\/image-alt\?application=axeAPI,$/);
  t.equal(lines[3], 'https://www.kommun.test/om-kommunen/,done,,,,,,');
  t.equal(lines.length, 4, 'one row per page and rule, three pages');
});

t.test('webperf audit refuses bad input with a clear message', async (t) => {
  const noUrl = await webperf(['audit']);
  t.equal(noUrl.code, 2);
  t.match(noUrl.stderr, /a URL is required/);
  for (const pages of [[], ['--pages', '0'], ['--pages', 'x'], ['--pages', '1.5']]) {
    const r = await webperf(['audit', 'https://kommun.test/', ...pages]);
    t.equal(r.code, 2);
    t.match(r.stderr, /--pages must be an integer of at least 1/);
  }
  const badFormat = await webperf(['audit', 'https://kommun.test/', '--pages', '1', '--format', 'pdf']);
  t.match(badFormat.stderr, /--format must be audit_v2 or csv/);
});
