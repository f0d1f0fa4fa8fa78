/**
 * The audit crawler's link logic against a fixture site on loopback, with a real Chromium (the
 * crawl-only visitor: guarded loads that read the rendered links, no Lighthouse): the exact pages
 * crawled and why every other address was left out.
 */
import http from 'node:http';
import t, { type Test } from 'tap';
import { crawl, type CrawledPage, type SkipReason } from '../../core/audit/crawl.js';
import { normaliseUrl, pageKey } from '../../core/audit/normalise.js';
import { crawlOnlyVisitor } from '../../core/audit/visit.js';
import { createProbes } from '../../core/net/probes.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

const html = (body: string, head = '') => `<!doctype html><html lang="en"><head><title>t</title>${head}</head><body>${body}</body></html>`;

/** The crawl fixture: every rule of the crawl meets one page. */
async function crawlSite(t: Test) {
  const otherHits: string[] = [];
  const other = http.createServer((req, res) => {
    otherHits.push(req.url!);
    res.end('other');
  });
  const otherPort = await listen(other);
  const hits: string[] = [];
  const hanging: http.ServerResponse[] = [];
  let port = 0;
  const pages: Record<string, () => [number, Record<string, string>, string]> = {
    '/robots.txt': () => [200, { 'content-type': 'text/plain' }, 'User-agent: *\nDisallow: /private/\n\nSitemap: /sitemap-index.xml\n'],
    '/sitemap-index.xml': () => [200, { 'content-type': 'application/xml' }, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://127.0.0.1:${port}/sitemap-pages.xml</loc></sitemap></sitemapindex>`],
    '/sitemap-pages.xml': () => [200, { 'content-type': 'application/xml' }, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://127.0.0.1:${port}/from-sitemap</loc></url><url><loc>http://127.0.0.1:${port}/a/?utm_source=sitemap</loc></url></urlset>`],
    '/': () => [200, { 'content-type': 'text/html; charset=utf-8' }, html(`
      <a href="/a/">a</a> <a href="/a#top">a again</a> <a href="/a?utm_source=x&amp;utm_medium=y">a tracked</a>
      <a href="http://127.0.0.1:${port}/b">b</a> <a href="/b/">b slash</a> <a href="/private/secret">private</a>
      <a href="/noindex">noindex</a> <a href="/file.pdf">pdf</a> <a href="/away">away</a> <a href="/hang">hang</a>
      <a href="mailto:x@example.org">mail</a> <a href="http://localhost:${otherPort}/elsewhere">other host</a>`)],
    '/a/': () => [200, { 'content-type': 'text/html' }, html('<a href="/">home</a>')],
    '/a': () => [301, { location: '/a/' }, ''],
    '/b': () => [200, { 'content-type': 'text/html' }, html('<a href="/e" rel="nofollow">e</a><script>const l = document.createElement("a"); l.href = "/rendered"; document.body.append(l);</script>')],
    '/rendered': () => [200, { 'content-type': 'text/html' }, html('rendered only')],
    '/e': () => [200, { 'content-type': 'text/html' }, html('only behind nofollow')],
    '/private/secret': () => [200, { 'content-type': 'text/html' }, html('private')],
    '/noindex': () => [200, { 'content-type': 'text/html' }, html('<a href="/c">c</a>', '<meta name="robots" content="noindex">')],
    '/c': () => [200, { 'content-type': 'text/html' }, html('reached through a noindex page')],
    '/from-sitemap': () => [200, { 'content-type': 'text/html' }, html('only in the sitemap')],
    '/file.pdf': () => [200, { 'content-type': 'application/pdf' }, '%PDF-1.4'],
    '/away': () => [302, { location: `http://localhost:${otherPort}/landing` }, ''],
  };
  const site = http.createServer((req, res) => {
    const path = req.url!.split('?')[0];
    hits.push(req.url!);
    if (path === '/hang') {
      hanging.push(res);
      return;
    }
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    const [status, headers, body] = page();
    res.writeHead(status, headers);
    res.end(body);
  });
  port = await listen(site);
  t.teardown(() => {
    for (const r of hanging) r.destroy();
    site.closeAllConnections();
    site.close();
    other.close();
  });
  return { origin: `http://127.0.0.1:${port}`, otherPort, hits, otherHits };
}

t.test('normalisation: fragments, trailing slashes, default ports and tracking parameters', async (t) => {
  t.equal(normaliseUrl('HTTP://Example.ORG:80/a?utm_source=x&id=3&fbclid=z#top'), 'http://example.org/a?id=3');
  t.equal(normaliseUrl('https://example.org:443/?gclid=1'), 'https://example.org/');
  t.equal(pageKey(normaliseUrl('https://example.org/a/')!), pageKey(normaliseUrl('https://example.org/a')!));
  t.equal(normaliseUrl('javascript:void(0)'), null);
  t.equal(normaliseUrl('mailto:a@b.c'), null);
  t.equal(normaliseUrl('https://user:pw@example.org/'), null);
});

t.test('the crawl visits exactly the audit-worthy pages of the site, breadth first', async (t) => {
  const site = await crawlSite(t);
  const guard = new TargetGuard([site.origin]);
  const browser = await testBrowserPool().acquire();
  const skipped: [string, SkipReason][] = [];
  const stored: CrawledPage[] = [];
  const result = await crawl({
    start: `${site.origin}/`,
    pages: 20,
    probes: createProbes(guard, { timeoutMs: 3000 }),
    visit: crawlOnlyVisitor(browser, guard),
    onPage: async (p) => { stored.push(p); },
    onSkip: (url, reason) => skipped.push([url.replace(site.origin, ''), reason]),
  });
  const o = site.origin;
  t.same(result.pages.map((p) => [p.url.replace(o, ''), p.status]), [
    ['/', 'done'],
    ['/from-sitemap', 'done'],
    ['/a/', 'done'],
    ['/b', 'done'],
    ['/hang', 'failed'],
    ['/rendered', 'done'],
    ['/c', 'done'],
  ]);
  t.same(stored, result.pages, 'every page was handed over to be stored as it finished');
  t.match(result.pages[4].error, /timed out/i, 'the hanging page is recorded with its error');
  t.same(skipped.sort(), [
    ['/away', 'redirect-out-of-scope'],
    ['/file.pdf', 'not-html'],
    ['/noindex', 'noindex'],
    ['/private/secret', 'robots'],
    [`http://localhost:${site.otherPort}/elsewhere`, 'out-of-scope'],
  ].sort());
  t.same(site.otherHits, [], 'the other host was never contacted');
  t.notOk(site.hits.includes('/e'), 'a rel=nofollow link is not followed');
  t.notOk(site.hits.some((h) => h.startsWith('/private/')), 'robots.txt is honoured');
  t.same(result.sitemaps.slice(0, 1), [`${o}/sitemap-index.xml`], 'robots.txt Sitemap: lines come first');
});

t.test('stops at the number of pages ordered, and a resumed crawl replays stored pages without loading them', async (t) => {
  const site = await crawlSite(t);
  const guard = new TargetGuard([site.origin]);
  const browser = await testBrowserPool().acquire();
  const first = await crawl({ start: `${site.origin}/`, pages: 3, probes: createProbes(guard), visit: crawlOnlyVisitor(browser, guard) });
  t.same(first.pages.map((p) => p.url.replace(site.origin, '')), ['/', '/from-sitemap', '/a/']);
  const visited: string[] = [];
  const plain = crawlOnlyVisitor(browser, guard);
  const resumed = await crawl({
    start: `${site.origin}/`,
    pages: 4,
    probes: createProbes(guard),
    done: first.pages.slice(0, 2),
    visit: async (url) => {
      visited.push(url.replace(site.origin, ''));
      return plain(url);
    },
  });
  t.same(resumed.pages.map((p) => p.url.replace(site.origin, '')), ['/', '/from-sitemap', '/a/', '/b']);
  t.same(visited, ['/a/', '/b'], 'only the pages not stored before were loaded');
});
