/**
 * The target guard inside the gather step, with a real Chromium and Lighthouse: nothing the page or
 * Lighthouse requests reaches an address that is not allowlisted — subresources, and Lighthouse's own
 * fetches (robots.txt) that page-level interception does not see, redirect hops included.
 */
import http from 'node:http';
import t from 'tap';
import { gather } from '../../core/gather/gather.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

t.test('a page cannot make Chromium or Lighthouse reach a blocked address', async (t) => {
  const hits: string[] = [];
  const internal = http.createServer((req, res) => {
    hits.push(req.url!);
    res.end('User-agent: *\nDisallow:\n');
  });
  const internalOrigin = await listen(internal);
  const site = http.createServer((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(302, { location: `${internalOrigin}/robots-from-internal` });
      return res.end();
    }
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<!doctype html><html lang="en"><title>Guarded</title><main><p>Hello</p>
        <img src="${internalOrigin}/pixel.png" alt="x"><script src="${internalOrigin}/app.js"></script>
        <script>fetch('${internalOrigin}/api').catch(() => {})</script></main></html>`);
    }
    res.writeHead(404);
    res.end();
  });
  const origin = await listen(site);
  t.teardown(() => {
    internal.close();
    site.close();
  });

  const artifacts = await gather(`${origin}/`, { browser: await testBrowserPool().acquire(), guard: new TargetGuard([origin]) });
  t.same(hits, [], 'the internal server was never reached');
  const toInternal = artifacts.network.filter((r) => r.url.startsWith(internalOrigin));
  t.ok(toInternal.length >= 2, 'the page did try');
  t.ok(toInternal.every((r) => r.failed && r.status === 0), 'and every such request was refused');
  t.equal(artifacts.lighthouse!.audits['robots-txt'].score, 0, 'Lighthouse reports the robots.txt it was not allowed to follow as failed');
});
