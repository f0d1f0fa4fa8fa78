/**
 * The audit crawler in the test world (https on port 443 under names, http on port 80), with a
 * real Chromium (the crawl-only visitor: guarded loads that read the rendered links, no
 * Lighthouse): the exact pages crawled and why every other address was left out; robots.txt per
 * origin as RFC 9309 has it, across a site's twins (https://kommun.test/ answering 301 to
 * https://www.kommun.test/, and both over http); scope and normalisation on the standard ports.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { crawl, type CrawledPage, type SkipReason } from '../../core/audit/crawl.js';
import { inScope, normaliseUrl, pageKey } from '../../core/audit/normalise.js';
import { fetchRobots } from '../../core/audit/robots.js';
import { crawlOnlyVisitor } from '../../core/audit/visit.js';
import { createProbes } from '../../core/net/probes.js';
import { staticHandler } from '../../runners/static-site.js';
import { fixtureRoot, testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorld, type World } from '../helpers/world/index.js';

const html = (body: string, head = '') => `<!doctype html><html lang="en"><head><title>t</title>${head}</head><body>${body}</body></html>`;

type Answer = [number, Record<string, string>, string];

/** A handler answering from a table of paths (404 otherwise), noting every request's path. */
function tableHandler(table: Record<string, () => Answer>, hits: string[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    hits.push(req.url!);
    const answer = table[req.url!.split('?')[0]];
    if (!answer) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const [status, headers, body] = answer();
    res.writeHead(status, headers).end(body);
  };
}

/** The crawl fixture, https://crawl.test/: every rule of the crawl meets one page. */
async function crawlSite(world: World) {
  const otherHits: string[] = [];
  await world.site('other.test', { handler: (req, res) => { otherHits.push(req.url!); res.end('other'); } });
  const hits: string[] = [];
  const o = 'https://crawl.test';
  const pages: Record<string, () => Answer> = {
    '/robots.txt': () => [200, { 'content-type': 'text/plain' }, 'User-agent: *\nDisallow: /private/\n\nSitemap: /sitemap-index.xml\n'],
    '/sitemap-index.xml': () => [200, { 'content-type': 'application/xml' }, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${o}/sitemap-pages.xml</loc></sitemap></sitemapindex>`],
    '/sitemap-pages.xml': () => [200, { 'content-type': 'application/xml' }, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/from-sitemap</loc></url><url><loc>${o}:443/a/?utm_source=sitemap</loc></url></urlset>`],
    '/': () => [200, { 'content-type': 'text/html; charset=utf-8' }, html(`
      <a href="/a/">a</a> <a href="/a#top">a again</a> <a href="/a?utm_source=x&amp;utm_medium=y">a tracked</a>
      <a href="${o}/b">b</a> <a href="/b/">b slash</a> <a href="/private/secret">private</a>
      <a href="/noindex">noindex</a> <a href="/file.pdf">pdf</a> <a href="/away">away</a> <a href="/hang">hang</a>
      <a href="mailto:x@example.org">mail</a> <a href="https://other.test/elsewhere">other host</a>
      <a href="/kontakt">contact</a> <a href="/runt">round</a>`)],
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
    '/away': () => [302, { location: 'https://other.test/landing' }, ''],
    // A redirect to an address that is no page, and redirects that never end.
    '/kontakt': () => [302, { location: 'mailto:kontakt@crawl.test' }, ''],
    '/runt': () => [301, { location: '/runt-igen' }, ''],
    '/runt-igen': () => [301, { location: '/runt' }, ''],
  };
  const table = tableHandler(pages, hits);
  // /hang never answers; the world closes its connection at the end.
  await world.site('crawl.test', { handler: (req, res) => { if (req.url === '/hang') hits.push(req.url); else table(req, res); } });
  return { origin: o, hits, otherHits };
}

/**
 * The municipality: https://kommun.test/ answers 301 to https://www.kommun.test/ (every path),
 * which serves test/fixtures/sites/kommun-www (robots.txt: Disallow: /intern/, a sitemap listing
 * an /intern/ page, a start page linking to /intern/ under the apex name and over http). Both
 * hosts' http on port 80 answers 301 to their https. Every request each host received is noted.
 */
async function kommun(world: World) {
  const apexHits: string[] = [];
  const wwwHits: string[] = [];
  await world.site('kommun.test', {
    handler: (req, res) => {
      apexHits.push(req.url!);
      res.writeHead(301, { location: `https://www.kommun.test${req.url}`, 'content-length': '0' }).end();
    },
  });
  const serve = await staticHandler(fixtureRoot('kommun-www'), () => 'https://www.kommun.test');
  await world.site('www.kommun.test', { handler: (req, res) => { wwwHits.push(req.url!); serve(req, res); } });
  return { apexHits, wwwHits };
}

t.test('normalisation: fragments, trailing slashes, default ports and tracking parameters', async (t) => {
  t.equal(normaliseUrl('HTTP://Example.ORG:80/a?utm_source=x&id=3&fbclid=z#top'), 'http://example.org/a?id=3');
  t.equal(normaliseUrl('https://example.org:443/?gclid=1'), 'https://example.org/');
  t.equal(normaliseUrl('https://kommun.test:443/a'), normaliseUrl('https://kommun.test/a'), 'https on 443 is the same page as https without a port');
  t.equal(normaliseUrl('http://kommun.test:80/a'), 'http://kommun.test/a');
  t.equal(normaliseUrl('https://kommun.test:80/a'), 'https://kommun.test:80/a', 'a port that is not the scheme\'s own is kept');
  t.equal(normaliseUrl('http://kommun.test:443/a'), 'http://kommun.test:443/a');
  t.equal(pageKey(normaliseUrl('https://kommun.test:443/a/')!), pageKey(normaliseUrl('https://kommun.test/a')!));
  t.equal(pageKey(normaliseUrl('https://example.org/a/')!), pageKey(normaliseUrl('https://example.org/a')!));
  t.equal(normaliseUrl('javascript:void(0)'), null);
  t.equal(normaliseUrl('mailto:a@b.c'), null);
  t.equal(normaliseUrl('https://user:pw@example.org/'), null);
});

t.test('scope on the standard ports: the host, its www twin, over http and https', async (t) => {
  const https = new URL('https://kommun.test/');
  const http = new URL('http://kommun.test/');
  for (const start of [https, http, new URL('https://kommun.test:443/'), new URL('http://www.kommun.test:80/')]) {
    for (const url of ['https://kommun.test/a', 'https://kommun.test:443/a', 'http://kommun.test/a', 'http://kommun.test:80/a', 'https://www.kommun.test/a', 'http://www.kommun.test/a']) {
      t.ok(inScope(url, start), `${url} is in the scope of ${start.href}`);
    }
    for (const url of ['https://kommun.test:8443/a', 'http://kommun.test:443/a', 'https://kommun.test:80/a', 'https://region.test/a', 'https://intra.kommun.test/a', 'ftp://kommun.test/a']) {
      t.notOk(inScope(url, start), `${url} is not in the scope of ${start.href}`);
    }
  }
  const high = new URL('https://kommun.test:8443/');
  t.ok(inScope('https://www.kommun.test:8443/a', high), 'on another port: the same scheme and port');
  t.notOk(inScope('https://kommun.test/a', high));
  t.notOk(inScope('http://kommun.test/a', high));
  t.notOk(inScope('http://kommun.test:8443/a', high), 'on another port, http is not the twin of https');
});

t.test('robots.txt as RFC 9309 reads it: 4xx allows all, 5xx and no answer disallow all, redirects followed up to five', async (t) => {
  const world = await startWorld(t);
  const robots = (answer: Answer) => (req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== '/robots.txt') return void res.writeHead(404).end();
    res.writeHead(answer[0], answer[1]).end(answer[2]);
  };
  /** /robots.txt → /r1 → … → /r<n>, which is the file. */
  const chain = (n: number, file: string) => (req: IncomingMessage, res: ServerResponse) => {
    const at = req.url === '/robots.txt' ? 0 : Number(/^\/r(\d+)$/.exec(req.url!)?.[1] ?? -1);
    if (at < 0) return void res.writeHead(404).end();
    if (at < n) return void res.writeHead(301, { location: `/r${at + 1}` }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(file);
  };
  await world.site('missing.test', { handler: robots([404, {}, 'Not found']) });
  await world.site('gone.test', { handler: robots([410, {}, '']) });
  await world.site('busy.test', { handler: robots([429, { 'retry-after': '60' }, '']) });
  await world.site('down.test', { handler: robots([503, { 'retry-after': '60' }, 'Service unavailable']) });
  await world.site('broken.test', { handler: robots([500, {}, '']) });
  await world.site('nowhere.test', { handler: robots([302, {}, '']) });
  await world.site('unreadable.test', { handler: robots([301, { location: 'https://[unreadable' }, '']) });
  await world.site('five.test', { handler: chain(5, 'User-agent: *\nDisallow: /x/\n') });
  await world.site('six.test', { handler: chain(6, 'User-agent: *\nDisallow: /\n') });
  await world.site('moved.test', { handler: robots([301, { location: 'https://elsewhere.test/robots.txt' }, '']) });
  await world.site('elsewhere.test', { handler: robots([200, { 'content-type': 'text/plain' }, 'User-agent: *\nDisallow: /private/\nUser-agent: webperf\nDisallow: /slow/\n\nSitemap: https://elsewhere.test/sitemap.xml\n']) });
  world.record('closed.test', { A: ['127.15.0.1'] }); // nothing listens there
  world.record('intranet.test', { A: ['10.0.0.5'] }); // refused by the guard
  const probes = createProbes(world.guard(), { timeoutMs: 3000 });

  const read = async (origin: string, paths: string[]) => {
    const r = await fetchRobots(probes, origin);
    return { state: r.state, status: r.status, reason: r.reason, chain: r.chain.map((u) => u.replace(origin, '')), allowed: paths.map((p) => r.allowed(`${origin}${p}`)), sitemaps: r.sitemaps };
  };
  t.same(await read('https://missing.test', ['/', '/x/']), { state: 'unavailable', status: 404, reason: 'HTTP 404', chain: ['/robots.txt'], allowed: [true, true], sitemaps: [] }, '404: no file, everything may be crawled');
  t.match(await read('https://gone.test', ['/']), { state: 'unavailable', status: 410, allowed: [true] });
  t.match(await read('https://busy.test', ['/']), { state: 'unavailable', status: 429, allowed: [true] }, '429 is a 4xx for RFC 9309');
  t.same(await read('https://down.test', ['/', '/x/']), { state: 'unreachable', status: 503, reason: 'HTTP 503', chain: ['/robots.txt'], allowed: [false, false], sitemaps: [] }, '503: nothing may be crawled');
  t.match(await read('https://broken.test', ['/']), { state: 'unreachable', status: 500, allowed: [false] });
  t.match(await read('https://nowhere.test', ['/']), { state: 'unreachable', status: 302, reason: 'HTTP 302 without a Location', allowed: [false] });
  t.same(await read('https://unreadable.test', ['/']), { state: 'unreachable', status: 301, reason: 'HTTP 301 to an address that cannot be read: https://[unreadable', chain: ['/robots.txt'], allowed: [false], sitemaps: [] }, 'a Location that is no address: nothing may be crawled');
  t.same(await read('https://five.test', ['/', '/x/a']), { state: 'parsed', status: 200, reason: null, chain: ['/robots.txt', '/r1', '/r2', '/r3', '/r4', '/r5'], allowed: [true, false], sitemaps: [] }, 'five redirects are followed');
  t.same(await read('https://six.test', ['/', '/x/a']), { state: 'unavailable', status: 301, reason: 'More than 5 redirects', chain: ['/robots.txt', '/r1', '/r2', '/r3', '/r4', '/r5'], allowed: [true, true], sitemaps: [] }, 'a sixth is not: the file is unavailable');
  t.same(await read('https://moved.test', ['/', '/private/a', '/slow/a']), {
    state: 'parsed', status: 200, reason: null, chain: ['/robots.txt', 'https://elsewhere.test/robots.txt'], allowed: [true, true, false], sitemaps: ['https://elsewhere.test/sitemap.xml'],
  }, 'a file reached on another host holds for the origin first asked; the group of our own agent token is the one obeyed');
  t.match(await read('https://closed.test', ['/']), { state: 'unreachable', status: 0, reason: /ECONNREFUSED/, allowed: [false] }, 'no answer: nothing may be crawled');
  t.match(await read('https://intranet.test', ['/']), { state: 'unreachable', status: 0, reason: /not allowed as a test target/, allowed: [false] }, 'refused by the target guard: nothing may be crawled');
  const five = await fetchRobots(probes, 'https://five.test');
  t.throws(() => five.allowed('https://six.test/'), /not an address of https:\/\/five\.test/, 'a file never answers for another origin');
});

t.test('the crawl visits exactly the audit-worthy pages of the site, breadth first', async (t) => {
  const world = await startWorld(t);
  const site = await crawlSite(world);
  const guard = world.guard();
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
    ['/kontakt', 'failed'],
    ['/runt', 'failed'],
    ['/rendered', 'done'],
    ['/c', 'done'],
  ]);
  t.same(stored, result.pages, 'every page was handed over to be stored as it finished');
  t.match(result.pages[4].error, /timed out/i, 'the hanging page is recorded with its error');
  t.equal(result.pages[5].error, 'Redirect to an address that is not a page: mailto:kontakt@crawl.test');
  t.equal(result.pages[6].error, 'Too many redirects', 'five hops, then given up');
  t.same(site.hits.filter((h) => h.startsWith('/runt')), ['/runt', '/runt-igen'], 'each address of the loop asked once (the probes keep their answers)');
  t.same(skipped.sort(), [
    ['/away', 'redirect-out-of-scope'],
    ['/file.pdf', 'not-html'],
    ['/noindex', 'noindex'],
    ['/private/secret', 'robots'],
    ['https://other.test/elsewhere', 'out-of-scope'],
  ].sort());
  t.same(site.otherHits, [], 'the other host was never contacted');
  t.notOk(site.hits.includes('/e'), 'a rel=nofollow link is not followed');
  t.notOk(site.hits.some((h) => h.startsWith('/private/')), 'robots.txt is honoured');
  t.same(result.sitemaps.slice(0, 1), [`${o}/sitemap-index.xml`], 'robots.txt Sitemap: lines come first');
  t.same(result.robots.map((r) => [r.origin, r.state]), [[o, 'parsed']], 'one origin, one robots.txt');
  t.equal(site.hits.filter((h) => h === '/robots.txt').length, 1, 'fetched once');
});

t.test('a crawl across kommun.test and www.kommun.test obeys the robots.txt of every origin it meets', async (t) => {
  const world = await startWorld(t);
  const hosts = await kommun(world);
  const guard = world.guard();
  const browser = await testBrowserPool().acquire();
  const skipped: [string, SkipReason][] = [];
  const result = await crawl({
    start: 'https://kommun.test/',
    pages: 20,
    probes: createProbes(guard, { timeoutMs: 5000 }),
    visit: crawlOnlyVisitor(browser, guard),
    onSkip: (url, reason) => skipped.push([url, reason]),
  });
  t.same(result.pages.map((p) => [p.position, p.url, p.status]), [
    [0, 'https://www.kommun.test/', 'done'],
    [1, 'https://www.kommun.test/bygga-bo/', 'done'],
    [2, 'https://www.kommun.test/om-kommunen/', 'done'],
    [3, 'https://www.kommun.test/kontakt/', 'done'],
    [4, 'https://www.kommun.test/nyheter/', 'done'],
  ], 'the pages audited, each under the address that answered');
  t.same(skipped, [
    ['https://kommun.test/', 'duplicate'], // answers 301 to https://www.kommun.test/, which the sitemap lists
    ['https://www.kommun.test/intern/lonelista/', 'robots'], // listed in the sitemap
    ['https://region.test/', 'out-of-scope'],
    ['https://www.kommun.test/intern/', 'robots'],
    ['https://kommun.test/intern/larm/', 'robots'], // the apex's robots.txt is www's, reached by its 301
    ['http://kommun.test/intern/', 'robots'], // http://kommun.test/robots.txt → https://kommun.test/robots.txt → www's
    ['https://www.kommun.test/dokument/budget.pdf', 'not-html'],
    ['https://www.kommun.test/gammal-sida', 'redirect-out-of-scope'],
    ['http://www.kommun.test/', 'duplicate'], // linked from /nyheter/, answers 301 to https://www.kommun.test/
  ], 'every address left out, and why');
  t.same(result.robots.map((r) => [r.origin, r.state, r.chain]), [
    ['https://kommun.test', 'parsed', ['https://kommun.test/robots.txt', 'https://www.kommun.test/robots.txt']],
    ['https://www.kommun.test', 'parsed', ['https://www.kommun.test/robots.txt']],
    ['http://www.kommun.test', 'parsed', ['http://www.kommun.test/robots.txt', 'https://www.kommun.test/robots.txt']],
    ['http://kommun.test', 'parsed', ['http://kommun.test/robots.txt', 'https://kommun.test/robots.txt', 'https://www.kommun.test/robots.txt']],
  ], 'one robots.txt per origin met, each fetched once, redirects followed');
  t.same(result.sitemaps, ['https://www.kommun.test/sitemap.xml', 'https://kommun.test/sitemap.xml', 'https://kommun.test/sitemap_index.xml']);
  t.same([...hosts.wwwHits, ...hosts.apexHits].filter((h) => h.startsWith('/intern/')), [], 'no host was ever asked for a disallowed page');
  t.same(hosts.apexHits.sort(), ['/', '/kontakt/', '/robots.txt', '/sitemap.xml', '/sitemap_index.xml'], 'the apex was asked for its robots.txt once, its sitemaps, and the two pages linked under its name');
});

t.test('a start page whose robots.txt cannot be fetched is not loaded, and the audit says why', async (t) => {
  const world = await startWorld(t);
  const hits: string[] = [];
  await world.site('nere.test', {
    handler: (req, res) => {
      hits.push(req.url!);
      if (req.url === '/robots.txt') return void res.writeHead(503, { 'retry-after': '3600' }).end('Service unavailable');
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('<a href="/a">a</a>'));
    },
  });
  let visits = 0;
  const result = await crawl({ start: 'https://nere.test/', pages: 5, probes: createProbes(world.guard(), { timeoutMs: 3000 }), visit: async () => { visits++; return { links: [], result: {} }; } });
  t.same(result.pages, [{
    position: 0,
    url: 'https://nere.test/',
    status: 'failed',
    error: 'Not loaded: the robots.txt of https://nere.test could not be fetched (HTTP 503), and a crawler must then assume that nothing may be crawled (RFC 9309, 2.3.1.4)',
    links: [],
    result: {},
  }]);
  t.same(result.sitemaps, [], 'no sitemap is read either');
  t.equal(visits, 0);
  t.same(hits, ['/robots.txt'], 'robots.txt was the only request');
});

t.test('stops at the number of pages ordered, and a resumed crawl replays stored pages without loading them', async (t) => {
  const world = await startWorld(t);
  const site = await crawlSite(world);
  const guard = world.guard();
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
