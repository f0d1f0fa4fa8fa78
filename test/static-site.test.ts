/**
 * The static file server of the demo and the fixture sites. Its own behaviour is tested on plain
 * http on a port of 127.0.0.1 (startStaticSite, as the demo serves); last, the same handler as the
 * test world serves it: https on port 443 under a name and its www twin, `{{origin}}` the name asked.
 */
import t from 'tap';
import { request as httpRequest, Agent, type IncomingHttpHeaders } from 'node:http';
import http2 from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../core/config.js';
import { startStaticSite, type StaticSite } from '../runners/static-site.js';
import { startWorld, type World } from './helpers/world/index.js';

const GOOD = path.join(PROJECT_ROOT, 'test', 'fixtures', 'sites', 'good') + path.sep;
const FLAWED = path.join(PROJECT_ROOT, 'test', 'fixtures', 'sites', 'flawed') + path.sep;
const DEMO = path.join(PROJECT_ROOT, 'runners', 'demo-site') + path.sep;

const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const SECURITY_HEADERS = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains; preload',
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'permissions-policy': 'geolocation=()',
  'x-frame-options': 'DENY',
};
const TRAVERSALS = [
  '/../package.json',
  '/%2e%2e/package.json',
  '/%2E%2E/%2e%2e/package.json',
  '/images/..%2f..%2fpackage.json',
  '/..%5cpackage.json',
  '/../flawed/index.html',
];

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw request: node:http sends the path as written, so `..` reaches the server unnormalised. */
function get(site: StaticSite, path: string, method = 'GET', agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: site.port, path, method, agent: agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

const file = (root: string, name: string) => readFileSync(root + name, 'utf8');

t.test('good site', async (t) => {
  const site = await startStaticSite(GOOD);
  t.teardown(() => site.close());
  const origin = `http://127.0.0.1:${site.port}`;

  t.equal(site.url, `${origin}/`);
  t.not(site.port, 0);

  const start = await get(site, '/');
  t.equal(start.status, 200);
  t.equal(start.headers['content-type'], HTML);
  t.equal(start.body, file(GOOD, 'index.html'));
  t.equal(start.headers['content-length'], String(Buffer.byteLength(start.body)));
  t.match(start.headers, SECURITY_HEADERS, 'every configured security header on the start page');
  t.equal(start.headers['set-cookie'], undefined);

  t.equal((await get(site, '/index.html?utm=1')).body, file(GOOD, 'index.html'), 'query string ignored');

  const types: [string, string][] = [
    ['/style.css', 'text/css; charset=utf-8'],
    ['/images/logo.svg', 'image/svg+xml'],
    ['/feed.xml', 'application/xml; charset=utf-8'],
    ['/sitemap.xml', 'application/xml; charset=utf-8'],
    ['/robots.txt', TEXT],
    ['/.well-known/security.txt', TEXT],
  ];
  for (const [path, type] of types) {
    const answer = await get(site, path);
    t.equal(answer.status, 200, path);
    t.equal(answer.headers['content-type'], type, path);
    t.match(answer.headers, SECURITY_HEADERS, `${path} carries the security headers`);
  }

  t.equal((await get(site, '/robots.txt')).body, `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`, '{{origin}} filled in');
  t.equal(
    (await get(site, '/.well-known/security.txt')).body,
    `Contact: mailto:security@harbour-library.example\nExpires: 2030-01-01T00:00:00Z\nPreferred-Languages: en\n` +
      `Canonical: ${origin}/.well-known/security.txt\n`,
  );

  const missing = await get(site, '/no-such-page');
  t.equal(missing.status, 404);
  t.equal(missing.headers['content-type'], HTML);
  t.equal(missing.body, file(GOOD, '404.html'));
  t.match(missing.headers, SECURITY_HEADERS, 'the 404 answer carries the security headers');

  const emptyDir = await get(site, '/images/');
  t.equal(emptyDir.status, 404, 'a directory without index.html is unknown');
  t.equal(emptyDir.body, file(GOOD, '404.html'));

  const moved = await get(site, '/old-page');
  t.equal(moved.status, 301);
  t.equal(moved.headers.location, '/');
  t.equal(moved.body, '');
  t.equal(moved.headers['x-frame-options'], 'DENY');

  for (const path of ['/_site.json', '//_site.json', '/%5fsite.json', ...TRAVERSALS]) {
    const refused = await get(site, path);
    t.equal(refused.status, 404, `${path} refused`);
    t.equal(refused.headers['content-type'], TEXT, path);
    t.equal(refused.body, 'Not found', path);
  }

  const bad = await get(site, '/%E0%A4%A');
  t.equal(bad.status, 400, 'malformed percent-encoding');
  t.equal(bad.body, 'Bad request');

  const head = await get(site, '/', 'HEAD');
  t.equal(head.status, 200);
  t.equal(head.headers['content-type'], HTML);
  t.equal(head.headers['content-length'], start.headers['content-length']);
  t.equal(head.body, '');
  t.equal(head.headers['strict-transport-security'], SECURITY_HEADERS['strict-transport-security']);

  const headMissing = await get(site, '/no-such-page', 'HEAD');
  t.equal(headMissing.status, 404);
  t.equal(headMissing.body, '');

  const post = await get(site, '/', 'POST');
  t.equal(post.status, 405);
  t.equal(post.headers.allow, 'GET, HEAD');
});

t.test('flawed site', async (t) => {
  const site = await startStaticSite(FLAWED);
  t.teardown(() => site.close());

  const start = await get(site, '/');
  t.equal(start.status, 200);
  t.equal(start.headers['content-type'], HTML);
  t.equal(start.body, file(FLAWED, 'index.html'));
  t.same(start.headers['set-cookie'], ['_ga=GA1.1.123.456; Max-Age=63072000; Path=/', 'session=abc; Path=/']);
  for (const name of Object.keys(SECURITY_HEADERS)) t.equal(start.headers[name], undefined, `no ${name}`);

  for (const path of ['/no-such-page', '/robots.txt', '/sitemap.xml', '/.well-known/security.txt', '/feed.xml']) {
    const soft = await get(site, path);
    t.equal(soft.status, 200, `${path} answers 200 with the start page`);
    t.equal(soft.headers['content-type'], HTML, path);
    t.equal(soft.body, file(FLAWED, 'index.html'), path);
  }

  t.equal((await get(site, '/style.css')).headers['content-type'], 'text/css; charset=utf-8');
  t.equal((await get(site, '/images/lake.png')).headers['content-type'], 'image/png');

  for (const path of ['/_site.json', ...TRAVERSALS]) {
    const refused = await get(site, path);
    t.equal(refused.status, 404, `${path} refused despite notFound 200`);
    t.equal(refused.body, 'Not found', path);
  }
});

t.test('demo site', async (t) => {
  const site = await startStaticSite(DEMO);
  t.teardown(() => site.close());

  const start = await get(site, '/');
  t.equal(start.status, 200);
  t.equal(start.headers['x-content-type-options'], 'nosniff');
  t.equal(start.headers['set-cookie']?.join('\n'), 'exempelby_besok=1; Path=/; Max-Age=86400');
  for (const name of Object.keys(SECURITY_HEADERS).filter((n) => n !== 'x-content-type-options')) {
    t.equal(start.headers[name], undefined, `no ${name}`);
  }
  t.match(start.body, '<html lang="sv">');

  t.equal((await get(site, '/rss.xml')).headers['content-type'], 'application/xml; charset=utf-8');
  t.equal((await get(site, '/bilder/sjon.png')).headers['content-type'], 'image/png');
  t.match((await get(site, '/.well-known/security.txt')).body, 'Expires: 2030-01-01T00:00:00Z');
  t.match((await get(site, '/robots.txt')).body, `Sitemap: http://127.0.0.1:${site.port}/sitemap.xml`);

  const missing = await get(site, '/saknas');
  t.equal(missing.status, 404);
  t.equal(missing.body, file(DEMO, '404.html'));
  t.equal((await get(site, '/_site.json')).status, 404);
});

t.test('notFound redirect, redirects and content types from a scratch site', async (t) => {
  const root = t.testdir({
    '_site.json': JSON.stringify({
      headers: [
        { match: '/', headers: { 'X-All': 'yes' } },
        { match: '/docs/', headers: { 'X-Docs': 'yes', 'X-All': 'overridden' } },
        { match: '/exact.json', headers: { 'X-Exact': 'yes' } },
      ],
      notFound: { status: 302, location: '/start' },
      redirects: { '/old': '/new' },
    }),
    'exact.json': '{}',
    'news.rss': '<rss/>',
    'news.atom': '<feed/>',
    'photo.jpg': 'x',
    'photo.webp': 'x',
    'favicon.ico': 'x',
    'app.js': '',
    'data.bin': 'x',
    docs: { 'index.html': '<p>docs</p>' },
  });
  const site = await startStaticSite(root);
  t.teardown(() => site.close());

  const types: [string, string][] = [
    ['/exact.json', 'application/json; charset=utf-8'],
    ['/news.rss', 'application/rss+xml; charset=utf-8'],
    ['/news.atom', 'application/atom+xml; charset=utf-8'],
    ['/photo.jpg', 'image/jpeg'],
    ['/photo.webp', 'image/webp'],
    ['/favicon.ico', 'image/x-icon'],
    ['/app.js', 'text/javascript; charset=utf-8'],
    ['/data.bin', 'application/octet-stream'],
  ];
  for (const [path, type] of types) t.equal((await get(site, path)).headers['content-type'], type, path);

  const empty = await get(site, '/app.js');
  t.equal(empty.headers['content-length'], '0');

  const unknown = await get(site, '/nowhere');
  t.equal(unknown.status, 302);
  t.equal(unknown.headers.location, '/start');
  t.equal(unknown.headers['x-all'], 'yes');

  const moved = await get(site, '/old');
  t.equal(moved.status, 301);
  t.equal(moved.headers.location, '/new');

  const docs = await get(site, '/docs/');
  t.equal(docs.status, 200);
  t.equal(docs.body, '<p>docs</p>');
  t.equal(docs.headers['x-docs'], 'yes');
  t.equal(docs.headers['x-all'], 'overridden', 'later rules override earlier ones');

  t.equal((await get(site, '/docs')).body, '<p>docs</p>', 'directory without trailing slash serves its index');
  t.equal((await get(site, '/exact.json')).headers['x-exact'], 'yes');
  t.equal((await get(site, '/exact.json/')).headers['x-exact'], undefined, 'exact match only');
  t.equal((await get(site, '/')).status, 302, 'no index.html at the root: notFound applies');
});

t.test('a site without _site.json answers unknown paths with a plain 404', async (t) => {
  const site = await startStaticSite(t.testdir({ 'index.html': 'hi' }));
  t.teardown(() => site.close());
  t.equal((await get(site, '/')).body, 'hi');
  const missing = await get(site, '/missing');
  t.equal(missing.status, 404);
  t.equal(missing.headers['content-type'], TEXT);
  t.equal(missing.body, 'Not found');
});

t.test('close() ends the server even with a kept-alive connection', async (t) => {
  const site = await startStaticSite(GOOD);
  const agent = new Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  t.equal((await get(site, '/', 'GET', agent)).status, 200);
  await site.close();
  await t.rejects(get(site, '/'), { code: 'ECONNREFUSED' });
});

/** A lookup that asks the world's DNS server, as the service does with WEBPERF_DNS_SERVERS. */
function worldLookup(world: World) {
  return (hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
    world.resolver(hostname).then(
      (list) => (options.all ? callback(null, list) : callback(null, list[0].address, list[0].family)),
      (err: unknown) => callback(err),
    );
  };
}

/** GET over HTTP/1.1, on https (the suite's CA trusted) or http. */
function getByName(world: World, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { lookup: worldLookup(world) as any, ca: world.ca.certPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * GET over HTTP/2 (ALPN h2), the suite's CA trusted. :authority as browsers send it, without the
 * default port (Node's client would add `:443`).
 */
function getH2(world: World, origin: string, path: string): Promise<Answer & { alpn: string | false | undefined }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(origin, { lookup: worldLookup(world) as any, ca: world.ca.certPem });
    session.on('error', reject);
    const stream = session.request({ ':path': path, ':authority': new URL(origin).host });
    const chunks: Buffer[] = [];
    let headers: IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h as IncomingHttpHeaders));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const alpn = session.alpnProtocol;
      session.close();
      resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks).toString('utf8'), alpn });
    });
    stream.on('error', reject);
    stream.end();
  });
}

t.test('served by the test world: https on port 443 under each of its names, {{origin}} the name asked, http on port 80 redirecting', async (t) => {
  const world = await startWorld(t);
  const site = await world.site('kommun.test', { root: GOOD, aliases: ['www.kommun.test'] });
  t.strictSame([site.url, site.names], ['https://kommun.test/', ['kommun.test', 'www.kommun.test']]);

  const robots = await getByName(world, 'https://kommun.test/robots.txt');
  t.equal(robots.status, 200);
  t.equal(robots.headers['content-type'], TEXT);
  t.equal(robots.body, 'User-agent: *\nAllow: /\n\nSitemap: https://kommun.test/sitemap.xml\n', '{{origin}}: the https origin asked, no port');
  t.match(robots.headers, SECURITY_HEADERS, 'the configured headers over https too');

  const twin = await getH2(world, 'https://www.kommun.test', '/robots.txt');
  t.equal(twin.alpn, 'h2', 'HTTP/2 by ALPN');
  t.equal(twin.status, 200);
  t.equal(twin.body, 'User-agent: *\nAllow: /\n\nSitemap: https://www.kommun.test/sitemap.xml\n', '{{origin}}: the www twin when asked as the www twin');
  t.equal(twin.headers['strict-transport-security'], SECURITY_HEADERS['strict-transport-security']);

  const start = await getH2(world, 'https://kommun.test', '/');
  t.equal(start.body, file(GOOD, 'index.html'), 'the start page over HTTP/2');
  t.equal(start.headers['content-length'], String(Buffer.byteLength(start.body)));
  const missing = await getH2(world, 'https://kommun.test', '/no-such-page');
  t.strictSame([missing.status, missing.body], [404, file(GOOD, '404.html')]);

  const plain = await getByName(world, 'http://www.kommun.test/robots.txt?x=1');
  t.strictSame([plain.status, plain.headers.location], [301, 'https://www.kommun.test/robots.txt?x=1'], 'http on port 80: to the same host and path on https');
});
