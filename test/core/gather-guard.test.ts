/**
 * The target guard inside the gather step, with a real Chromium and Lighthouse, on sites served as
 * real ones are (https on port 443 under their names, answered by the test world's DNS): nothing
 * the page or Lighthouse requests reaches an address that is not allowlisted — subresources, and
 * Lighthouse's own fetches (robots.txt) that page-level interception does not see, redirect hops
 * included.
 */
import t from 'tap';
import { gather } from '../../core/gather/gather.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorld } from '../helpers/world/index.js';

t.test('a page cannot make Chromium or Lighthouse reach a blocked address', async (t) => {
  const world = await startWorld(t);
  const hits: string[] = [];
  // Another host of the world, on a loopback address of its own that the guard does not allow.
  const internal = await world.site('internt.test', {
    handler: (req, res) => {
      hits.push(req.url!);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow:\n');
    },
  });
  const site = await world.site('guarded.test', {
    handler: (req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(302, { location: `${internal.origin}/robots-from-internal` }).end();
        return;
      }
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><title>Guarded</title><main><p>Hello</p>
          <img src="${internal.origin}/pixel.png" alt="x"><script src="${internal.origin}/app.js"></script>
          <script>fetch('${internal.origin}/api').catch(() => {})</script></main></html>`);
        return;
      }
      res.writeHead(404).end();
    },
  });
  t.not(internal.address, site.address, 'two hosts, two addresses');

  // The operator allowlists the one address of the site under test, nothing else on loopback.
  const guard = world.guard([`${site.address}/32`]);
  const artifacts = await gather(site.url, { browser: await testBrowserPool().acquire(), guard });
  t.equal(artifacts.finalUrl, 'https://guarded.test/');
  t.strictSame(
    artifacts.network.filter((r) => r.url === site.url).map((r) => [r.status, r.remoteAddress]),
    [[200, site.address]],
    'the page came over https from the address the world\'s DNS gave its name',
  );
  t.strictSame(hits, [], 'the internal host was never reached');
  const toInternal = artifacts.network.filter((r) => r.url.startsWith(internal.origin));
  t.strictSame(
    toInternal.map((r) => r.url).sort(),
    [`${internal.origin}/api`, `${internal.origin}/app.js`, `${internal.origin}/pixel.png`],
    'the page did try: its image, its script and its fetch',
  );
  t.strictSame(toInternal.map((r) => [r.failed, r.status, r.remoteAddress]), toInternal.map(() => [true, 0, '']), 'and every such request was refused');
  t.equal(artifacts.lighthouse!.audits['robots-txt'].score, 0, 'Lighthouse reports the robots.txt it was not allowed to follow as failed');
});
