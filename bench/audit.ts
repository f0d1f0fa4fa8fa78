/**
 * Audit benchmark, side by side in one run on a fixture site of 24 linked pages served twice: as
 * plain http on a high port of 127.0.0.1 (the figures of before), and as the web serves a site,
 * https://bench-audit.test/ on port 443 in the test world (its own loopback address and DNS
 * server, a certificate from a CA made for the run, HTTP/2), which our audit reaches through the
 * guard proxy's CONNECT tunnel. For each:
 *   A. 20 bare Lighthouse runs on the 20 pages the audit tests (Node API, the gather step's flags,
 *      one clean browser context each, one Chromium; the https name mapped to its address by a
 *      host-resolver rule, as a machine's own DNS would), interleaved with B page by page;
 *   B. our audit of 20 pages: crawl (robots.txt, sitemaps, rendered links) + Lighthouse + axe +
 *      tracking/cookies + analytics per page, and the summary files;
 * and on the http site only:
 *   C. Unlighthouse (@unlighthouse/cli, system Chromium, same categories), when it is installed
 *      (UNLIGHTHOUSE_BIN or node_modules/.bin/unlighthouse-ci), given the same 20 pages;
 *      otherwise the note says why.
 * Goal: B ≤ 1.1 × A on each, and B < C. A profile of A and B, phase by phase, follows the figures.
 * The https site needs ports 80 and 443 (root, as CI runs, or see test/helpers/world).
 *
 *   npm run bench -- audit
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { navigationGather } from 'lighthouse/core/gather/navigation-runner.js';
import { Runner } from 'lighthouse/core/runner.js';
import type { CrawledPage } from '../core/audit/crawl.js';
import { auditCrawl, auditFiles } from '../core/audit/execute.js';
import { PROJECT_ROOT, findChromium } from '../core/config.js';
import { LIGHTHOUSE_FLAGS } from '../core/gather/gather.js';
import { SparePage } from '../core/gather/guarded-context.js';
import { TargetGuard } from '../core/net/target-guard.js';
import { PhaseTimes } from '../core/phase-times.js';
import { loadPlugins, type PluginRegistry } from '../core/registry.js';
import { BrowserPool } from '../runners/browser-pool.js';
import { AUDIT_PLUGIN_IDS } from '../runners/tasks/run-audit.js';
import { startWorld } from '../test/helpers/world/index.js';
import { runIfMain } from './main.js';

const SITE_PAGES = 24;
const AUDIT_PAGES = 20;

/** A small municipal-looking site: every page links to its neighbours and the start page. */
function fixtureHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  const page = (i: number) => {
    const links = [0, i - 1, i + 1, i + 2].filter((n) => n >= 0 && n < SITE_PAGES && n !== i).map((n) => `<li><a href="${n === 0 ? '/' : `/page-${n}`}">Page ${n}</a></li>`).join('');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Page ${i}</title><meta name="description" content="Page ${i} of the fixture"><link rel="stylesheet" href="/style.css"></head>
<body><header><nav><ul>${links}</ul></nav></header><main><h1>Page ${i}</h1>${'<p>Residents can apply for permits, read the council minutes and find opening hours of the library and the swimming pool.</p>'.repeat(6)}<img src="/pic.svg" alt="A picture" width="200" height="100"></main><footer><p>Fixture municipality</p></footer></body></html>`;
  };
  return (req, res) => {
    const url = req.url!.split('?')[0];
    if (url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (url === '/style.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('body{font-family:sans-serif;margin:2rem;line-height:1.5}nav li{display:inline-block;margin-right:1rem;padding:.5rem}');
    if (url === '/pic.svg') return void res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#36c"/></svg>');
    const m = /^\/(?:page-(\d+))?$/.exec(url);
    const i = m ? Number(m[1] ?? 0) : -1;
    if (i < 0 || i >= SITE_PAGES) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(i));
  };
}

function unlighthouseBin(): string | null {
  const candidates = [process.env.UNLIGHTHOUSE_BIN, path.join(PROJECT_ROOT, 'node_modules', '.bin', 'unlighthouse-ci')].filter((p): p is string => !!p);
  return candidates.find((p) => existsSync(p)) ?? null;
}

const f = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One site's figures: A and B interleaved page by page. */
interface Measured {
  crawled: CrawledPage[];
  msBare: number;
  msAudit: number;
  timesA: PhaseTimes;
  timesB: PhaseTimes;
  loadAtStart: string;
  loadAtEnd: string;
}

const loadNow = () => os.loadavg().map((l) => l.toFixed(1)).join(', ');

/** A (bare Lighthouse) and B (our audit) on the site at `origin`, through `guard`, after one warm-up run. */
async function measure(origin: string, guard: TargetGuard, pool: BrowserPool, registry: PluginRegistry): Promise<Measured> {
  const loadAtStart = loadNow();
  // Warm-up: one Lighthouse run (Chromium start, Lighthouse's module loading, the site's first connection).
  const warm = await (await pool.acquire()).createBrowserContext();
  await lighthouse(`${origin}/`, { ...LIGHTHOUSE_FLAGS }, undefined, (await warm.newPage()) as any);
  await warm.close();

  // A and B interleaved page by page: as the audit stores page N, the same page is run bare
  // (its time is A's and taken out of B's wall clock). On a shared machine the load drifts over
  // minutes; interleaving puts both under the same load. Never two Lighthouse runs at once.
  const timesA = new PhaseTimes();
  const timesB = new PhaseTimes();
  const bare = async (url: string) => {
    const lap = timesA.laps('gather:open');
    const context = await (await pool.acquire()).createBrowserContext();
    const page = await context.newPage();
    // lighthouse(url, flags, undefined, page) is exactly these two steps; timed apart here.
    lap.next('lighthouse');
    const gathered = await navigationGather(page as any, url, { flags: { ...LIGHTHOUSE_FLAGS } });
    lap.next('lighthouse:audits');
    await Runner.audit(gathered.artifacts, gathered.runnerOptions);
    lap.next('gather:close');
    await context.close();
    lap.end();
  };
  let msBare = 0;
  // As a runner audits: each page's load finds its context and page opened as the one before ended.
  const spare = new SparePage();
  const t0 = performance.now();
  const crawled = await auditCrawl(`${origin}/`, AUDIT_PAGES, {
    spare,
    browser: () => pool.acquire(),
    guard,
    registry,
    plugins: registry.select(AUDIT_PLUGIN_IDS),
    crux: { apiKey: null, endpoint: '' },
    pageTimeoutMs: 120_000,
    times: timesB,
  }, [], async (p) => {
    if (p.status !== 'done') return;
    const t = performance.now();
    await bare(p.url);
    msBare += performance.now() - t;
  });
  await spare.close();
  const filesLap = timesB.laps('files');
  await auditFiles('audit_v2', `${origin}/`, 'bench', AUDIT_PAGES, crawled, { apiKey: null, endpoint: '' });
  filesLap.end();
  const msAudit = performance.now() - t0 - msBare;
  // The bare runs sit inside the crawl's 'save' step: take them out of it.
  timesB.add('save', -msBare, 0);
  return { crawled, msBare, msAudit, timesA, timesB, loadAtStart, loadAtEnd: loadNow() };
}

/** The profile of A and B, phase by phase. */
function profile(m: Measured): string[] {
  const phases = [...new Set([...m.timesB.entries(), ...m.timesA.entries()].map((e) => e.phase))];
  const byPhase = (t: PhaseTimes, phase: string) => t.entries().find((e) => e.phase === phase)?.ms ?? 0;
  const col = (ms: number) => f(ms).padStart(9);
  return [
    `    ${'phase'.padEnd(26)}${'A'.padStart(9)}${'B'.padStart(9)}${'B - A'.padStart(9)}`,
    ...phases.map((ph) => `    ${ph.padEnd(26)}${col(byPhase(m.timesA, ph))}${col(byPhase(m.timesB, ph))}${col(byPhase(m.timesB, ph) - byPhase(m.timesA, ph))}`),
    `    ${'(unaccounted)'.padEnd(26)}${col(m.msBare - m.timesA.total())}${col(m.msAudit - m.timesB.total())}`,
  ];
}

async function unlighthouse(chromium: string, origin: string, crawled: readonly CrawledPage[], msAudit: number): Promise<string> {
  const bin = unlighthouseBin();
  if (!bin) return 'not run: @unlighthouse/cli is not a dependency of this project (603 packages); it does run offline with the system Chromium: install it elsewhere (PUPPETEER_SKIP_DOWNLOAD=1 npm install @unlighthouse/cli) and set UNLIGHTHOUSE_BIN to its unlighthouse-ci';
  const out = await mkdtemp(path.join(os.tmpdir(), 'webperf-unlh-'));
  const t2 = performance.now();
  const r = await new Promise<{ code: number; err: string }>((resolve) => {
    // The same 20 pages (--urls turns its crawler off), none left out by its route sampling.
    const urls = crawled.map((p) => new URL(p.url).pathname).join(',');
    execFile(bin, ['--site', `${origin}/`, '--urls', urls, '--disable-dynamic-sampling', '--output-path', out, '--budget', '0', '--reporter', 'jsonSimple', '--no-cache'], {
      timeout: 30 * 60_000,
      env: { ...process.env, PUPPETEER_EXECUTABLE_PATH: chromium, CHROME_PATH: chromium },
    }, (err, _stdout, stderr) => resolve({ code: err ? ((err as any).code ?? 1) : 0, err: String(stderr).slice(-400) }));
  });
  const ms = performance.now() - t2;
  const scanned = await readFile(path.join(out, 'ci-result.json'), 'utf8').then((j) => (JSON.parse(j) as unknown[]).length, () => 0);
  await rm(out, { recursive: true, force: true });
  return r.code === 0 ? `${f(ms)} (${scanned} pages)   B / C = ${(msAudit / ms).toFixed(2)} (goal < 1: ${msAudit < ms ? 'PASS' : 'FAIL'})` : `failed (exit ${r.code}) after ${f(ms)}: ${r.err}`;
}

export async function benchAudit(): Promise<string> {
  const chromium = findChromium(process.env.CHROMIUM_PATH);
  if (!chromium) throw new Error('Chromium was not found: install it with `apt-get install chromium`');
  const madeCa = !process.env.WEBPERF_TEST_CA_DIR;
  const server = http.createServer(fixtureHandler());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const httpOrigin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const world = await startWorld();
  const site = await world.site('bench-audit.test', { handler: fixtureHandler() });
  const registry = await loadPlugins();
  // One Chromium for all runs: trusting the world's CA (as WEBPERF_EXTRA_CA_CERTS makes the
  // service's), and, for the bare runs that go through no guard proxy, finding the https site's
  // name where the world serves it (the audit's loads reach it through the proxy, which asks the
  // world's DNS server).
  const pool = new BrowserPool(chromium, null, [...world.trust.chromiumArgs, `--host-resolver-rules=MAP ${site.name} ${site.address}`]);
  try {
    const overHttp = await measure(httpOrigin, new TargetGuard([httpOrigin]), pool, registry);
    const unlh = await unlighthouse(chromium, httpOrigin, overHttp.crawled, overHttp.msAudit);
    const overHttps = await measure(site.origin, world.guard(), pool, registry);

    const w = 30;
    const row = (label: string, a: string, b: string) => `  ${label.padEnd(50)}${a.padStart(w)}${b.padStart(w)}`;
    const ratio = (m: Measured) => `${(m.msAudit / m.msBare).toFixed(2)} ${m.msAudit / m.msBare <= 1.1 ? 'PASS' : 'FAIL'}`;
    const tested = (m: Measured) => `${m.crawled.filter((p) => p.status === 'done').length} tested, ${m.crawled.filter((p) => p.status !== 'done').length} failed`;
    return [
      `Audit of a ${SITE_PAGES}-page fixture site, ${AUDIT_PAGES} pages, one Chromium, each site after a warm-up run (${os.cpus().length} cores):`,
      row('', `http (${new URL(httpOrigin).host})`, `https (${site.name}:443)`),
      row('pages', tested(overHttp), tested(overHttps)),
      row('load average at the start', overHttp.loadAtStart, overHttps.loadAtStart),
      row('load average at the end', overHttp.loadAtEnd, overHttps.loadAtEnd),
      row('A  bare Lighthouse runs (same flags)', f(overHttp.msBare), f(overHttps.msBare)),
      row('B  our audit (crawl + LH + axe + privacy + files)', f(overHttp.msAudit), f(overHttps.msAudit)),
      row('B / A  (goal ≤ 1.1)', ratio(overHttp), ratio(overHttps)),
      `  C  Unlighthouse on the http site: ${unlh}`,
      `  Profile, wall time per phase over all pages (A: bare Lighthouse, B: our audit; the indented`,
      `  "in page" steps are the parts of lighthouse:page, between Lighthouse's page load and its audits, and are not summed).`,
      `  http:`,
      ...profile(overHttp),
      `  https, our audit through the guard proxy's tunnel:`,
      ...profile(overHttps),
    ].join('\n');
  } finally {
    await pool.close();
    server.closeAllConnections();
    server.close();
    await world.close();
    if (madeCa && process.env.WEBPERF_TEST_CA_DIR) await rm(process.env.WEBPERF_TEST_CA_DIR, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, () => benchAudit());
