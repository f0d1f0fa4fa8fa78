/**
 * An audit end to end with a real runner, Chromium and Lighthouse on a small fixture site in the
 * test world (https://audit.test/ on port 443, through the guard): the first attempt dies after
 * its first page, the queued job resumes without loading that page again or charging again, one
 * hanging page is recorded and does not fail the audit, and the files hold what the site has —
 * including the CrUX API's documented answer, served from loopback over plain http (the endpoint
 * is the operator's setting, fetched as configured, neither guarded nor resolved by the world).
 */
import http from 'node:http';
import { unzipSync } from 'fflate';
import t from 'tap';
import { executeAudit } from '../../core/audit/execute.js';
import { loadPlugins } from '../../core/registry.js';
import { getAudit, placeAudit, readAuditFile } from '../../core/store/audits.js';
import { createSite } from '../../core/store/sites.js';
import { auditDeps } from '../../runners/tasks/run-audit.js';
import { startWorker } from '../../runners/worker.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { createTestDb } from '../helpers/db.js';
import { startWorld } from '../helpers/world/index.js';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const page = (title: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><meta name="description" content="${title}"></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/** The documented CrUX API answer (records:queryRecord), trimmed to two metrics. */
const cruxRecord = (key: Record<string, string>) => ({
  record: {
    key,
    metrics: {
      largest_contentful_paint: { histogram: [{ start: 0, end: 2500, density: 0.8 }, { start: 2500, end: 4000, density: 0.15 }, { start: 4000, density: 0.05 }], percentiles: { p75: 2100 } },
      cumulative_layout_shift: { histogram: [{ start: '0.00', end: '0.10', density: 0.9 }, { start: '0.10', end: '0.25', density: 0.07 }, { start: '0.25', density: 0.03 }], percentiles: { p75: '0.04' } },
    },
    collectionPeriod: { firstDate: { year: 2026, month: 10, day: 25 }, lastDate: { year: 2026, month: 11, day: 21 } },
  },
});

t.test('an audit is crawled, tested, resumed after a killed runner and summarised', async (t) => {
  const { db, url } = await createTestDb(t);
  const world = await startWorld(t);
  const documentLoads: string[] = [];
  // /hang never answers; the world closes its connection at the end.
  const site = await world.site('audit.test', { handler: (req, res) => {
    if (req.url === '/hang') return;
    const pages: Record<string, string> = {
      '/': page('Home', '<p>Welcome.</p><a href="/a">Page A</a> <a href="/hang">Slow</a> <a href="/b">Page B</a>'),
      '/a': page('Page A', '<p>A picture:</p><img src="/pic.png" width="10" height="10"><a href="/">Home</a>'),
      '/b': page('Page B', '<p>Nothing more.</p><a href="/">Home</a>'),
    };
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nAllow: /\n');
    }
    if (req.url === '/pic.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));
    }
    const html = pages[req.url!];
    if (!html) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end(page('Not found', '<p>Not found.</p>'));
    }
    // Chromium's loads, not the crawler's own probe (which sends the webperf user agent).
    if (!/webperf\//.test(req.headers['user-agent'] ?? '')) documentLoads.push(req.url!);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  } });
  const origin = site.origin;
  const cruxAsked: unknown[] = [];
  const crux = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const q = JSON.parse(body) as { origin?: string; url?: string };
      cruxAsked.push({ path: req.url, ...q });
      res.setHeader('content-type', 'application/json');
      if (q.url === `${origin}/b`) {
        res.statusCode = 404;
        return res.end(JSON.stringify({ error: { code: 404, message: 'chrome ux report data not found', status: 'NOT_FOUND' } }));
      }
      res.end(JSON.stringify(cruxRecord(q.origin ? { origin: q.origin } : { url: q.url! })));
    });
  });
  const cruxOrigin = await listen(crux);
  t.teardown(() => {
    crux.closeAllConnections();
    crux.close();
  });

  const siteId = await createSite(db, { title: 'Fixture', url: `${origin}/`, monthlyQuota: 10 });
  const placed = await placeAudit(db, { siteId, keyId: null, pages: 4, format: 'audit_v2', baseUrl: `${origin}/`, title: 'Audit of Fixture' });
  const registry = await loadPlugins();
  const guard = world.guard();
  const cruxSettings = { apiKey: 'test-key', endpoint: `${cruxOrigin}/v1/records:queryRecord` };
  const deps = { pool: testBrowserPool(), guard, registry, jobTimeoutMs: 120_000, crux: cruxSettings };

  // First attempt: the runner dies right after storing its first page.
  const killed = auditDeps(deps);
  killed.onProgress = () => {
    throw new Error('runner killed');
  };
  await t.rejects(executeAudit(db, placed.auditId, killed), /runner killed/);
  const afterKill = await getAudit(db, placed.auditId);
  t.match(afterKill, { status: 'running', pages_done: 1 });
  t.same(documentLoads, ['/'], 'the first attempt loaded the start page only');

  // The queued job resumes it.
  const worker = await startWorker({ db, connectionString: url, pool: testBrowserPool(), guard, registry, concurrency: 1, jobTimeoutMs: 120_000, schedule: false, crux: cruxSettings });
  t.teardown(() => worker.stop());
  for (const until = Date.now() + 300_000; ;) {
    const a = await getAudit(db, placed.auditId);
    if (a!.status === 'done' || a!.status === 'failed' || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const audit = (await getAudit(db, placed.auditId))!;
  t.match(audit, { status: 'done', pages_done: 4, error: null });
  t.same(documentLoads, ['/', '/a', '/b'], 'each page loaded once; the start page not again after the kill');
  t.same((await db.selectFrom('credit_ledger').select('credits').execute()).map((r) => r.credits), [4], 'charged once, at the order');
  const stored = await db.selectFrom('audit_pages').select(['position', 'url', 'status']).orderBy('position').execute();
  t.same(stored, [
    { position: 0, url: `${origin}/`, status: 'done' },
    { position: 1, url: `${origin}/a`, status: 'done' },
    { position: 2, url: `${origin}/hang`, status: 'failed' },
    { position: 3, url: `${origin}/b`, status: 'done' },
  ]);

  const file = async (name: string) => (await readAuditFile(db, placed.auditId, name))!;
  const json = async (name: string) => JSON.parse((await file(name)).content.toString());
  const files = await db.selectFrom('audit_files').select('name').where('audit_id', '=', placed.auditId).orderBy('name').execute();
  t.same(files.map((f) => f.name), ['accessibility_summary.json', 'best-practices_summary.json', 'crux_summary.json', 'performance_summary.json', 'privacy_summary.json', 'seo_summary.json', 'summaries.zip']);

  for (const cat of ['accessibility', 'performance', 'seo', 'best-practices']) {
    const s = await json(`${cat}_summary.json`);
    t.match(s, { format_version: 1, category: cat, base_url: `${origin}/`, folder: audit.folder, pages_ordered: 4, pages_tested: 3, pages_failed: 1 });
    t.same(s.pages.map((p: any) => [p.url, p.status]), stored.map((p) => [p.url, p.status]));
    t.match(s.pages[2], { score: null, failing: [], error: /timed out/i });
    const scores = s.pages.filter((p: any) => p.status === 'done').map((p: any) => p.score);
    t.ok(scores.every((x: number) => Number.isInteger(x) && x >= 0 && x <= 100), `${cat}: three page scores`);
    const sorted = [...scores].sort((x, y) => x - y);
    t.same(s.distribution, {
      pages_scored: 3,
      mean: Math.round((scores.reduce((x: number, y: number) => x + y, 0) / 3) * 10) / 10,
      median: sorted[1],
      worst: { score: sorted[0], url: s.pages.find((p: any) => p.score === sorted[0]).url },
    }, `${cat}: distribution over the pages`);
  }
  const a11y = await json('accessibility_summary.json');
  const imageAlt = a11y.failing.find((f: any) => f.id === 'axe:image-alt');
  t.same(imageAlt, { id: 'axe:image-alt', title: 'Images must have alternative text', source: 'axe', impact: 'critical', pages: 1, share: 33.3, example_pages: [`${origin}/a`] }, 'the image without alt on page A, found by axe');
  t.same(a11y.failing.find((f: any) => f.id === 'image-alt')?.example_pages, [`${origin}/a`], 'and by Lighthouse');
  t.same(a11y.pages[1].failing.includes('axe:image-alt'), true);
  t.same(a11y.pages[0].failing.includes('axe:image-alt'), false);

  const privacy = await json('privacy_summary.json');
  t.same(privacy.third_party_hosts, []);
  t.same(privacy.analytics, []);
  t.same(privacy.cookies, []);
  t.same(privacy.pages.map((p: any) => [p.url, p.third_party_hosts, p.cookies, p.analytics]), stored.map((p) => [p.url, [], [], []]));

  const cruxFile = await json('crux_summary.json');
  t.match(cruxFile, { format_version: 1, origin, available: true, origin_record: { available: true, key: { origin }, metrics: { largest_contentful_paint: { p75: 2100 }, cumulative_layout_shift: { p75: '0.04' } } } });
  t.same(cruxFile.pages.map((p: any) => [p.url, p.available]), [[`${origin}/`, true], [`${origin}/a`, true], [`${origin}/b`, false]], 'the tested pages; /b has no CrUX record');
  t.match(cruxFile.pages[2].reason, /no field data/);
  t.same(cruxAsked, [{ path: '/v1/records:queryRecord?key=test-key', origin }, ...['/', '/a', '/b'].map((p) => ({ path: '/v1/records:queryRecord?key=test-key', url: `${origin}${p}` }))]);

  const zip = unzipSync(new Uint8Array((await file('summaries.zip')).content));
  for (const name of ['accessibility_summary.json', 'performance_summary.json', 'seo_summary.json', 'best-practices_summary.json', 'crux_summary.json', 'privacy_summary.json']) {
    t.equal(Buffer.from(zip[name]).toString(), (await file(name)).content.toString(), `${name} is in the zip as served`);
  }
});

t.test('without a CrUX key the file says field data is not available, and why', async (t) => {
  const { cruxSummary } = await import('../../core/audit/crux.js');
  const s = await cruxSummary({ apiKey: null, endpoint: 'http://127.0.0.1:9/' }, 'https://www.exempel.se', ['https://www.exempel.se/']);
  t.same(s, {
    format_version: 1,
    source: 'Chrome UX Report API (field data from real Chrome users, 28-day rolling window)',
    origin: 'https://www.exempel.se',
    available: false,
    reason: 'Field data is not available: this service has no Chrome UX Report API key configured (WEBPERF_CRUX_API_KEY). Lab results are never passed off as field data.',
    origin_record: null,
    pages: [],
  });
});
