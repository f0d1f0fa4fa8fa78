/**
 * `webperf audit`: the crawl from the command line against a loopback fixture site, with its
 * progress bar and the files it writes (csv format here: axe only, so the test stays fast; the
 * audit_v2 files are covered by the runner test with the same functions), and bad input refused.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

async function webperf(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { timeout: 180_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

const page = (title: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

t.test('webperf audit crawls the site, shows progress and writes the files', async (t) => {
  const pages: Record<string, string> = {
    '/': page('Home', '<p>Go to <a href="/a">page A</a>, <a href="/b">page B</a> or <a href="/c">page C</a>.</p>'),
    '/a': page('A', '<p><img src="/x.png" width="1" height="1"> Back to <a href="/">the start page</a>.</p>'),
    '/b': page('B', '<a href="/">Home</a>'),
    '/c': page('C', 'not reached: only two pages ordered'),
  };
  const site = http.createServer((req, res) => {
    const html = pages[req.url!];
    res.writeHead(html ? 200 : 404, { 'content-type': html ? 'text/html' : 'text/plain' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  const out = await mkdtemp(path.join(os.tmpdir(), 'webperf-audit-'));
  t.teardown(async () => {
    site.close();
    await rm(out, { recursive: true, force: true });
  });
  const r = await webperf(['audit', `${origin}/`, '--pages', '2', '--format', 'csv', '--out', out]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, /auditing .*: up to 2 page\(s\), format csv/);
  t.match(r.stderr, /\[#{12}-{12}\] 1\/2 ✓ http:\/\/127\.0\.0\.1:\d+\//);
  t.match(r.stderr, /\[#{24}\] 2\/2 ✓ http:\/\/127\.0\.0\.1:\d+\/a/);
  t.same(await readdir(out), ['accessibility.csv']);
  t.equal(r.stdout, `${path.join(out, 'accessibility.csv')}\n`);
  const lines = (await readFile(path.join(out, 'accessibility.csv'), 'utf8')).trim().split('\n');
  t.equal(lines[0], 'url,status,rule,impact,elements,help,help_url,error');
  t.equal(lines[1], `${origin}/,done,,,,,,`);
  t.match(lines[2], new RegExp(`^${origin.replace(/\./g, '\\.')}/a,done,image-alt,critical,1,Images must have alternative text,https://dequeuniversity\\.com/rules/axe/[0-9.]+/image-alt\\?application=axeAPI,$`));
  t.equal(lines.length, 3, 'one row per page and rule, two pages');
});

t.test('webperf audit refuses bad input with a clear message', async (t) => {
  const noUrl = await webperf(['audit']);
  t.equal(noUrl.code, 2);
  t.match(noUrl.stderr, /a URL is required/);
  for (const pages of [[], ['--pages', '0'], ['--pages', 'x'], ['--pages', '1.5']]) {
    const r = await webperf(['audit', 'http://127.0.0.1:1/', ...pages]);
    t.equal(r.code, 2);
    t.match(r.stderr, /--pages must be an integer of at least 1/);
  }
  const badFormat = await webperf(['audit', 'http://127.0.0.1:1/', '--pages', '1', '--format', 'pdf']);
  t.match(badFormat.stderr, /--format must be audit_v2 or csv/);
});
