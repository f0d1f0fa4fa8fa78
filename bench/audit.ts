/**
 * Audit benchmark, side by side in one run on a loopback fixture site of 24 linked pages:
 *   A. 20 bare Lighthouse runs on the 20 pages the audit tests (Node API, the gather step's flags,
 *      one clean browser context each, one Chromium), interleaved with B page by page;
 *   B. our audit of 20 pages: crawl (robots.txt, sitemaps, rendered links) + Lighthouse + axe +
 *      tracking/cookies + analytics per page, and the summary files;
 *   C. Unlighthouse (@unlighthouse/cli, system Chromium, same categories) on the same site, when it
 *      is installed (UNLIGHTHOUSE_BIN or node_modules/.bin/unlighthouse-ci), given the same 20 pages;
 *      otherwise the note says why.
 * Goal: B ≤ 1.1 × A, and B < C. A profile of A and B, phase by phase, follows the figures.
 *
 *   npm run bench -- audit
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { navigationGather } from 'lighthouse/core/gather/navigation-runner.js';
import { Runner } from 'lighthouse/core/runner.js';
import { auditCrawl, auditFiles } from '../core/audit/execute.js';
import { PROJECT_ROOT, findChromium } from '../core/config.js';
import { LIGHTHOUSE_FLAGS } from '../core/gather/gather.js';
import { TargetGuard } from '../core/net/target-guard.js';
import { PhaseTimes } from '../core/phase-times.js';
import { loadPlugins } from '../core/registry.js';
import { BrowserPool } from '../runners/browser-pool.js';
import { AUDIT_PLUGIN_IDS } from '../runners/tasks/run-audit.js';

const SITE_PAGES = 24;
const AUDIT_PAGES = 20;

/** A small municipal-looking site: every page links to its neighbours and the start page. */
function fixtureSite(): http.Server {
  const page = (i: number) => {
    const links = [0, i - 1, i + 1, i + 2].filter((n) => n >= 0 && n < SITE_PAGES && n !== i).map((n) => `<li><a href="${n === 0 ? '/' : `/page-${n}`}">Page ${n}</a></li>`).join('');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Page ${i}</title><meta name="description" content="Page ${i} of the fixture"><link rel="stylesheet" href="/style.css"></head>
<body><header><nav><ul>${links}</ul></nav></header><main><h1>Page ${i}</h1>${'<p>Residents can apply for permits, read the council minutes and find opening hours of the library and the swimming pool.</p>'.repeat(6)}<img src="/pic.svg" alt="A picture" width="200" height="100"></main><footer><p>Fixture municipality</p></footer></body></html>`;
  };
  return http.createServer((req, res) => {
    const url = req.url!.split('?')[0];
    if (url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (url === '/style.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('body{font-family:sans-serif;margin:2rem;line-height:1.5}nav li{display:inline-block;margin-right:1rem;padding:.5rem}');
    if (url === '/pic.svg') return void res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#36c"/></svg>');
    const m = /^\/(?:page-(\d+))?$/.exec(url);
    const i = m ? Number(m[1] ?? 0) : -1;
    if (i < 0 || i >= SITE_PAGES) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(i));
  });
}

function unlighthouseBin(): string | null {
  const candidates = [process.env.UNLIGHTHOUSE_BIN, path.join(PROJECT_ROOT, 'node_modules', '.bin', 'unlighthouse-ci')].filter((p): p is string => !!p);
  return candidates.find((p) => existsSync(p)) ?? null;
}

export async function benchAudit(): Promise<string> {
  const chromium = findChromium(process.env.CHROMIUM_PATH);
  if (!chromium) throw new Error('Chromium was not found: install it with `apt-get install chromium`');
  const server = fixtureSite();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const guard = new TargetGuard([origin]);
  const registry = await loadPlugins();
  const pool = new BrowserPool(chromium);
  const f = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  try {
    const loadAtStart = os.loadavg().map((l) => l.toFixed(1)).join(', ');
    // Warm-up: one Lighthouse run (Chromium start, Lighthouse's module loading).
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
      lap.next('lighthouse:audits+page');
      await Runner.audit(gathered.artifacts, gathered.runnerOptions);
      lap.next('gather:close');
      await context.close();
      lap.end();
    };
    let msBare = 0;
    const t0 = performance.now();
    const crawled = await auditCrawl(`${origin}/`, AUDIT_PAGES, {
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
    const filesLap = timesB.laps('files');
    await auditFiles('audit_v2', `${origin}/`, 'bench', AUDIT_PAGES, crawled, { apiKey: null, endpoint: '' });
    filesLap.end();
    const msAudit = performance.now() - t0 - msBare;
    const failed = crawled.filter((p) => p.status !== 'done');
    // The bare runs sit inside the crawl's 'save' step: take them out of it.
    timesB.add('save', -msBare, 0);

    let unlh: string;
    const bin = unlighthouseBin();
    if (!bin) {
      unlh = 'not run: @unlighthouse/cli is not a dependency of this project (603 packages); it does run offline with the system Chromium: install it elsewhere (PUPPETEER_SKIP_DOWNLOAD=1 npm install @unlighthouse/cli) and set UNLIGHTHOUSE_BIN to its unlighthouse-ci';
    } else {
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
      unlh = r.code === 0 ? `${f(ms)} (${scanned} pages)   B / C = ${(msAudit / ms).toFixed(2)} (goal < 1: ${msAudit < ms ? 'PASS' : 'FAIL'})` : `failed (exit ${r.code}) after ${f(ms)}: ${r.err}`;
    }
    const phases = [...new Set([...timesB.entries(), ...timesA.entries()].map((e) => e.phase))];
    const byPhase = (t: PhaseTimes, phase: string) => t.entries().find((e) => e.phase === phase)?.ms ?? 0;
    const col = (ms: number) => f(ms).padStart(9);
    const profile = [
      `  Profile, wall time per phase over all pages (A: bare Lighthouse, B: our audit; the indented`,
      `  "in page" steps run beside Lighthouse's audits, inside lighthouse:audits+page, and are not summed):`,
      `    ${'phase'.padEnd(26)}${'A'.padStart(9)}${'B'.padStart(9)}${'B - A'.padStart(9)}`,
      ...phases.map((ph) => `    ${ph.padEnd(26)}${col(byPhase(timesA, ph))}${col(byPhase(timesB, ph))}${col(byPhase(timesB, ph) - byPhase(timesA, ph))}`),
      `    ${'(unaccounted)'.padEnd(26)}${col(msBare - timesA.total())}${col(msAudit - timesB.total())}`,
    ];
    const load = os.loadavg().map((l) => l.toFixed(1)).join(', ');
    return [
      `Audit of a ${SITE_PAGES}-page loopback site, ${AUDIT_PAGES} pages (${crawled.length} tested, ${failed.length} failed), one Chromium, after a warm-up;`,
      `load average at the start ${loadAtStart}, at the end ${load} (${os.cpus().length} cores):`,
      `  A  ${crawled.length} bare Lighthouse runs (same flags)            ${f(msBare)}`,
      `  B  our audit (crawl + Lighthouse + axe + privacy + files) ${f(msAudit)}`,
      `  C  Unlighthouse                                      ${unlh}`,
      `  B / A = ${(msAudit / msBare).toFixed(2)}  (goal ≤ 1.1: ${msAudit / msBare <= 1.1 ? 'PASS' : 'FAIL'})`,
      ...profile,
    ].join('\n');
  } finally {
    await pool.close();
    server.closeAllConnections();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchAudit());
  process.exit(0);
}
