/**
 * The target guard judges the addresses names resolve to, with names answered as the service
 * meets them (the world's DNS server, WEBPERF_DNS_SERVERS): a fixture name that resolves to a
 * private address is refused before any connection, in a probe and in a page load, unless the
 * operator allowlists it; and the address the guard proxy connects is the one it checked, the one
 * the name resolved to at connect time, so a name that answers otherwise between the check and the
 * connection (DNS rebinding) gets no connection.
 */
import http from 'node:http';
import net from 'node:net';
import t from 'tap';
import { gather } from '../../core/gather/gather.js';
import { openGuardedContext } from '../../core/gather/guarded-context.js';
import { startGuardProxy } from '../../core/net/guard-proxy.js';
import { createProbes } from '../../core/net/probes.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import type { Resolver } from '../../core/net/resolver.js';
import { LIGHT_LOAD, testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorld, type World, type WorldSite } from '../helpers/world/index.js';

const INTRANET = 'intranet.kommun.test';
const REFUSAL = `The address ${INTRANET} resolves to 10.0.0.5, which is not allowed as a test target`;

/** kommun.test: a start page with an iframe and an image from the intranet name. */
async function kommun(world: World): Promise<WorldSite> {
  world.record(INTRANET, { A: ['10.0.0.5'] });
  return world.site('kommun.test', {
    aliases: ['www.kommun.test'],
    handler: (req, res) => {
      if (req.url !== '/') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="sv"><head><title>Kommunen</title></head><body><main>
        <h1>Kommunen</h1><img src="https://${INTRANET}/logo.png" alt="Logotyp">
        <iframe title="Intranätet" src="https://${INTRANET}/"></iframe></main></body></html>`);
    },
  });
}

/** What a CONNECT through the proxy is answered (its status line), as Chromium would send it. */
function connectThrough(proxyUrl: string, authority: string): Promise<string> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'CONNECT', path: authority, agent: false });
    req.once('connect', (res, socket) => {
      socket.destroy();
      resolve(`${res.statusCode}`);
    });
    req.once('error', reject);
    req.end();
  });
}

t.test('a fixture name resolving to a private address is refused before any connection, unless allowlisted', async (t) => {
  const world = await startWorld(t);
  await kommun(world);
  const guard = world.guard();

  await t.rejects(guard.assertUrl(`https://${INTRANET}/`), { code: 'TARGET_BLOCKED', message: REFUSAL }, 'the guard\'s check');
  // The connect-time lookup refuses as well: a socket given it never gets an address to connect to.
  const connectError = await new Promise<NodeJS.ErrnoException>((resolve) => {
    const socket = net.connect({ host: INTRANET, port: 443, lookup: guard.lookup as any });
    socket.once('connect', () => resolve(Object.assign(new Error('connected'), { code: 'CONNECTED' })));
    socket.once('error', resolve);
  });
  t.strictSame([connectError.code, connectError.message], ['TARGET_BLOCKED', `${INTRANET} resolves to 10.0.0.5, which is not allowed as a test target`], 'the connect-time lookup');

  const probes = createProbes(guard);
  const page = await probes.fetch(`https://${INTRANET}/`);
  t.strictSame({ status: page.status, error: page.error, chain: page.chain }, { status: 0, error: REFUSAL, chain: [`https://${INTRANET}/`] }, 'a fetch probe');
  const tls = await probes.tls(INTRANET, 443);
  t.strictSame(tls, { versions: [], certificate: null, alpn: null, error: REFUSAL }, 'a TLS probe');
  t.ok(world.dns.asked.includes(`${INTRANET} A`), 'the name was looked up in the world\'s DNS, as the service would look it up');

  // Allowlisted by the operator (WEBPERF_ALLOW_TARGETS), by address or by name: let through. Only
  // judged here, never connected: 10.0.0.5 is not on this machine's loopback.
  for (const allow of ['10.0.0.5', '10.0.0.0/8', INTRANET]) {
    const allowing = world.guard(['127.0.0.0/8', allow]);
    t.equal((await allowing.assertUrl(`https://${INTRANET}/`)).hostname, INTRANET, `allowlisted as ${allow}: the check lets it through`);
    const looked = await new Promise<unknown[]>((resolve) => allowing.lookup(INTRANET, {}, (...args: unknown[]) => resolve(args)));
    t.strictSame(looked, [null, '10.0.0.5', 4], `allowlisted as ${allow}: the connect-time lookup gives its address`);
  }
});

t.test('in a page load: an https page\'s iframe and image pointing at the private name are refused, nothing connects to it', async (t) => {
  const world = await startWorld(t);
  const site = await kommun(world);
  const guard = world.guard();
  const browser = await testBrowserPool().acquire();

  // The gather step, as a runner loads the page.
  const artifacts = await gather(site.url, { browser, guard, needs: LIGHT_LOAD });
  t.equal(artifacts.mainDocument.status, 200, 'the page itself loads');
  const toIntranet = artifacts.network.filter((r) => new URL(r.url).hostname === INTRANET);
  t.strictSame(toIntranet.map((r) => r.url).sort(), [`https://${INTRANET}/`, `https://${INTRANET}/logo.png`], 'the page asked for its iframe and its image');
  t.strictSame(toIntranet.map((r) => [r.failed, r.status, r.remoteAddress]), [[true, 0, ''], [true, 0, '']], 'both refused, no address connected');

  // The guard proxy alone (no request interception in front): Chromium's tunnels to the name are
  // refused with 403 before the proxy opens any connection; the page's own host was connected.
  const guarded = await openGuardedContext(browser, guard);
  t.teardown(() => guarded.close());
  const tab = await guarded.context.newPage();
  const answer = await tab.goto(site.url, { waitUntil: 'load' });
  t.equal(answer?.status(), 200);
  t.strictSame([...new Set(guarded.proxy.refused)], [`${INTRANET}:443`], 'the one target refused: the private name on port 443');
  t.equal(guarded.proxy.connectedAddress(INTRANET, 443), undefined, 'no connection was made to it');
  t.equal(guarded.proxy.connectedAddress('kommun.test', 443), site.address, 'the page\'s host was connected at the address the world gave it');
  t.equal(await connectThrough(guarded.proxy.url, `${INTRANET}:443`), '403', 'a CONNECT to it is answered 403');
});

t.test('the address the guard proxy connects is the address its name resolved to when it was checked, and a name that changes its answer gets no connection', async (t) => {
  const world = await startWorld(t);
  const site = await kommun(world);
  const guard = world.guard();
  const browser = await testBrowserPool().acquire();

  // Through Chromium: every host the page loaded from, at the address the world's DNS answered.
  const guarded = await openGuardedContext(browser, guard);
  t.teardown(() => guarded.close());
  const tab = await guarded.context.newPage();
  t.equal((await tab.goto('https://www.kommun.test/', { waitUntil: 'load' }))?.status(), 200, 'the www twin loads');
  t.equal(guarded.proxy.connectedAddress('www.kommun.test', 443), site.address, 'www.kommun.test: connected at its address');
  const artifacts = await gather(site.url, { browser, guard, needs: LIGHT_LOAD });
  t.strictSame(artifacts.network.filter((r) => r.url === site.url).map((r) => r.remoteAddress), [site.address], 'the gather\'s record of the page: the address connected, as the proxy saw it');

  // DNS rebinding: rebind.test answers the site's loopback address (allowlisted), then, once
  // the guard's check has asked, 10.0.0.5: the world's DNS server itself changes its answer
  // between the check and the connection.
  world.record('rebind.test', { A: [site.address] });
  let flip = false;
  let asked = 0;
  const flipping: Resolver = async (hostname) => {
    const found = await world.resolver(hostname);
    if (hostname === 'rebind.test' && flip && ++asked === 1) world.record('rebind.test', { A: ['10.0.0.5'] });
    return found;
  };
  const proxy = await startGuardProxy(new TargetGuard(['127.0.0.0/8'], { resolver: flipping, trust: world.trust }));
  t.teardown(() => proxy.close());
  t.equal(await connectThrough(proxy.url, 'rebind.test:443'), '200', 'while it answers a loopback address, the tunnel opens');
  t.equal(proxy.connectedAddress('rebind.test', 443), site.address, 'to that address');

  const rebinding = await startGuardProxy(new TargetGuard(['127.0.0.0/8'], { resolver: flipping, trust: world.trust }));
  t.teardown(() => rebinding.close());
  const questions = () => world.dns.asked.filter((q) => q === 'rebind.test A').length;
  const before = questions();
  flip = true;
  t.equal(await connectThrough(rebinding.url, 'rebind.test:443'), '502', 'checked at its first answer, refused at the connect-time lookup: no tunnel');
  t.equal(asked, 2, 'looked up twice: the check, then the connection');
  t.equal(questions() - before, 2, 'both answers came from the world\'s DNS server');
  t.equal(rebinding.connectedAddress('rebind.test', 443), undefined, 'nothing was connected for the name');
  t.strictSame(rebinding.refused, [], 'the check itself had let it through: the refusal was the connection\'s own lookup');
});
