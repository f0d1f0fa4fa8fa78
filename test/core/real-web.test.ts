/**
 * The service on the real web's terms, in the test world (test/helpers/world): https on port 443
 * under names, one resolver setting for every lookup, one extra-CA setting for Node and Chromium,
 * and every place that reads a port from a URL or a `host:port` on the standard ports.
 */
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import t from 'tap';
import { loadConfig } from '../../core/config.js';
import { gather } from '../../core/gather/gather.js';
import { remoteAddressesFromProxy } from '../../core/gather/guarded-context.js';
import { guardFromConfig } from '../../core/net/egress.js';
import { parseAuthority, startGuardProxy } from '../../core/net/guard-proxy.js';
import { createProbes } from '../../core/net/probes.js';
import { dnsServersResolver, parseDnsServers } from '../../core/net/resolver.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import { NO_EXTRA_TRUST, loadTrust, spkiHash } from '../../core/net/trust.js';
import { checkWebhookAddress } from '../../core/webhooks/address.js';
import { sendWebhook } from '../../core/webhooks/send.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { findChromium } from '../../core/config.js';
import type { NetworkRecord } from '../../core/plugin-api.js';
import { startWorld } from '../helpers/world/index.js';

const world = await startWorld(t);
const site = await world.site('kommun.test', { root: 'good', aliases: ['www.kommun.test'] });
const hooks: { path: string; body: string }[] = [];
const receiver = await world.site('hooks.mottagare.test', {
  handler: (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ path: req.url ?? '', body });
      res.writeHead(204).end();
    });
  },
});
world.record('intranet.kommun.test', { A: ['10.0.0.5'] });
world.record('cdn.kommun.test', { CNAME: 'kommun.test' });

t.test('parseAuthority reads a CONNECT target with its port, the standard ones included', async (t) => {
  t.same(parseAuthority('kommun.test:443'), { host: 'kommun.test', port: 443 });
  t.same(parseAuthority('KOMMUN.test:80'), { host: 'kommun.test', port: 80 });
  t.same(parseAuthority('127.16.0.9:8443'), { host: '127.16.0.9', port: 8443 });
  t.same(parseAuthority('[::1]:443'), { host: '::1', port: 443 });
  for (const bad of ['kommun.test', 'kommun.test:', 'kommun.test:0', 'kommun.test:65536', 'kommun.test:4x3', '[nope]:443', 'a b:443', 'user@kommun.test:443', '/:443', '']) {
    t.equal(parseAuthority(bad), null, `refused: ${JSON.stringify(bad)}`);
  }
});

t.test('WEBPERF_DNS_SERVERS is parsed and checked at start', async (t) => {
  t.same(parseDnsServers('127.0.0.1:5353, [::1]:53,10.1.2.3'), ['127.0.0.1:5353', '[::1]:53', '10.1.2.3']);
  t.same(parseDnsServers(undefined), []);
  t.throws(() => parseDnsServers('dns.example:53'), /WEBPERF_DNS_SERVERS must be IP addresses/);
  t.throws(() => parseDnsServers('127.0.0.1:70000'), /WEBPERF_DNS_SERVERS/);
  t.throws(() => loadConfig({ WEBPERF_DNS_SERVERS: 'nonsense' }), /WEBPERF_DNS_SERVERS/);
  t.same(loadConfig({ WEBPERF_DNS_SERVERS: world.dns.address }).dnsServers, [world.dns.address]);
});

t.test('the configured resolver answers names, CNAMEs and NXDOMAIN from the DNS server only', async (t) => {
  const resolve = dnsServersResolver([world.dns.address]);
  t.same(await resolve('www.kommun.test'), [{ address: site.address, family: 4 }]);
  t.same(await resolve('cdn.kommun.test'), [{ address: site.address, family: 4 }], 'CNAME followed');
  t.same(await resolve('127.0.0.1'), [{ address: '127.0.0.1', family: 4 }], 'a literal is not asked');
  await t.rejects(resolve('nowhere.test'), { code: 'ENOTFOUND' });
  // localhost is in /etc/hosts, which only the system resolver reads: the setting leaves it unknown.
  await t.rejects(resolve('localhost'), { code: 'ENOTFOUND' }, '/etc/hosts is not read with the setting');
});

t.test('with the setting, no lookup of the service reaches the system resolver', async (t) => {
  let systemLookups = 0;
  const original = dns.lookup;
  const originalPromise = dns.promises.lookup;
  // A literal address (a server listening on 127.0.0.1) is no lookup: it never reaches a resolver.
  (dns as any).lookup = (...args: any[]) => {
    if (net.isIP(args[0]) === 0) systemLookups++;
    return (original as any)(...args);
  };
  (dns.promises as any).lookup = (...args: any[]) => {
    if (net.isIP(args[0]) === 0) systemLookups++;
    return (originalPromise as any)(...args);
  };
  t.teardown(() => {
    (dns as any).lookup = original;
    (dns.promises as any).lookup = originalPromise;
  });
  // The guard as the service builds it from its configuration.
  const guard = guardFromConfig(loadConfig({ ...world.env() }));
  const asked = world.dns.asked.length;
  const probes = createProbes(guard);
  const page = await probes.fetch('http://kommun.test/');
  t.same(page.chain, ['http://kommun.test/', 'https://kommun.test/'], 'http on 80 redirects to https on 443');
  t.equal(page.status, 200);
  const tlsProbe = await probes.tls('www.kommun.test', 443);
  t.same(tlsProbe.versions, ['TLSv1.2', 'TLSv1.3']);
  t.equal(tlsProbe.alpn, 'h2');
  t.equal(tlsProbe.certificate?.trusted, true, 'the suite CA is trusted through WEBPERF_EXTRA_CA_CERTS');
  const outcome = await sendWebhook(guard, `${receiver.url}hook`, { eventId: 'msg_1', payload: '{"a":1}', secrets: ['whsec_' + Buffer.alloc(24, 1).toString('base64')] });
  t.equal(outcome.status, 204, 'webhook delivered over https on 443');
  t.same(hooks.at(-1), { path: '/hook', body: '{"a":1}' });
  await t.rejects(guard.assertUrl('https://intranet.kommun.test/'), { code: 'TARGET_BLOCKED' }, 'a name resolving to a private address is refused');
  // The share's Chromium: it trusts the suite's CA as this guard does.
  const pool = testBrowserPool();
  const artifacts = await gather('http://www.kommun.test/', { browser: await pool.acquire(), guard, probes, needs: { lighthouse: false, axe: false } });
  t.equal(artifacts.finalUrl, 'https://www.kommun.test/', 'Chromium followed http on 80 to https on 443 through the guard');
  const doc = artifacts.network.find((r) => r.url === 'https://www.kommun.test/');
  t.equal(doc?.protocol, 'h2');
  t.equal(doc?.remoteAddress, site.address, 'the address the proxy connected to');
  t.equal(systemLookups, 0, 'the system resolver was never asked');
  const names = new Set(world.dns.asked.slice(asked).map((q) => q.split(' ')[0]));
  t.same([...names].sort(), ['hooks.mottagare.test', 'intranet.kommun.test', 'kommun.test', 'www.kommun.test']);
});

t.test('the extra CA: trusted with the setting, untrusted without it, for Node and Chromium', async (t) => {
  t.equal(loadTrust(null), NO_EXTRA_TRUST);
  t.throws(() => loadTrust('/nonexistent/ca.pem'), /WEBPERF_EXTRA_CA_CERTS: \/nonexistent\/ca.pem cannot be read \(ENOENT\)/);
  const trust = loadTrust(world.ca.certFile);
  t.same(trust.chromiumArgs, [`--ignore-certificate-errors-spki-list=${spkiHash(world.ca.certPem)}`]);
  t.equal(trust.secureContext(), trust.secureContext(), 'one context, made once');
  t.not(trust.secureContext({ minVersion: 'TLSv1', maxVersion: 'TLSv1' }), trust.secureContext(), 'a context per protocol setting');
  // Node's own roots are kept beside the CA: a public root verifies through the same context.
  const publicRoot = tls.rootCertificates[0];
  t.ok(trust.certificates.length === 1 && !trust.certificates.includes(publicRoot));

  const untrusting = new TargetGuard(['127.0.0.0/8'], { resolver: world.resolver });
  const probe = await createProbes(untrusting).tls('kommun.test', 443);
  t.equal(probe.certificate?.trusted, false);
  t.equal(probe.certificate?.verifyError, 'SELF_SIGNED_CERT_IN_CHAIN', 'the chain ends in a CA Node does not know');
  const outcome = await sendWebhook(untrusting, `${receiver.url}hook`, { eventId: 'msg_2', payload: '{}', secrets: ['whsec_' + Buffer.alloc(24, 2).toString('base64')] });
  t.equal(outcome.status, null);
  t.equal(outcome.error, 'self-signed certificate in certificate chain', 'a webhook to an untrusted receiver is not delivered');

  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH));
  t.teardown(() => pool.close());
  await t.rejects(gather(site.url, { browser: await pool.acquire(), guard: untrusting }), { code: 'TARGET_CERTIFICATE', message: /ERR_CERT_AUTHORITY_INVALID/ },
    'Chromium without the CA does not load the page');
});

/** Sends a CONNECT to the proxy and reads its status line. */
function connect(proxyUrl: string, target: string): Promise<{ status: number; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(proxyUrl);
    const req = http.request({ host: '127.0.0.1', port: Number(port), method: 'CONNECT', path: target });
    req.on('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.on('response', (res) => resolve({ status: res.statusCode ?? 0, socket: res.socket }));
    req.on('error', reject);
    req.end();
  });
}

t.test('the guard proxy tunnels CONNECT name:443 and keeps what it connected to', async (t) => {
  const proxy = await startGuardProxy(world.guard());
  t.teardown(() => proxy.close());
  const { status, socket } = await connect(proxy.url, 'www.kommun.test:443');
  t.equal(status, 200, 'a tunnel to port 443 is opened (it was a 400 before)');
  const secure = tls.connect({ socket, servername: 'www.kommun.test', ca: world.ca.certPem, ALPNProtocols: ['http/1.1'] });
  await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
  t.equal(secure.authorized, true, 'TLS through the tunnel with the site certificate');
  secure.destroy();
  t.equal(proxy.connectedAddress('www.kommun.test', 443), site.address);

  const refused = await connect(proxy.url, 'intranet.kommun.test:443');
  t.equal(refused.status, 403, 'a name resolving to a private address is refused before connecting');
  refused.socket.destroy();
  t.same(proxy.refused, ['intranet.kommun.test:443']);
  const bad = await connect(proxy.url, 'kommun.test');
  t.equal(bad.status, 400, 'a CONNECT without a port');
  bad.socket.destroy();

  // The records Chromium reports with the proxy as remote address get the connected one.
  const records = [{ url: 'https://www.kommun.test/', remoteAddress: '127.0.0.1' }, { url: 'https://www.kommun.test:443/a', remoteAddress: '127.0.0.1' }] as NetworkRecord[];
  remoteAddressesFromProxy(records, proxy);
  t.same(records.map((r) => r.remoteAddress), [site.address, site.address]);
});

t.test('an origin allowlisted on a standard port: the proxy, the guard and webhook addresses', async (t) => {
  // Only the origin is allowlisted (as the demo site is): loopback as such stays refused.
  const guard = new TargetGuard(['https://kommun.test'], { resolver: world.resolver, trust: world.trust });
  for (const url of ['https://kommun.test/', 'https://kommun.test:443/a', 'https://KOMMUN.test./'.replace('./', '/')]) {
    t.ok(guard.isAllowedOrigin(url), `allowed: ${url}`);
    await t.resolves(guard.assertUrl(url));
  }
  t.notOk(guard.isAllowedOrigin('https://kommun.test:8443/'));
  t.notOk(guard.isAllowedOrigin('http://kommun.test/'));
  await t.rejects(guard.assertUrl('https://www.kommun.test/'), { code: 'TARGET_BLOCKED' }, 'the twin is not the allowlisted origin');
  const proxy = await startGuardProxy(guard);
  t.teardown(() => proxy.close());
  const ok = await connect(proxy.url, 'kommun.test:443');
  t.equal(ok.status, 200, 'the allowlisted origin tunnels on 443');
  ok.socket.destroy();
  const no = await connect(proxy.url, 'www.kommun.test:443');
  t.equal(no.status, 403);
  no.socket.destroy();
  const fromEnv = loadConfig({ WEBPERF_ALLOW_TARGETS: 'https://kommun.test:443,http://kommun.test:80' }).allowTargets;
  const envGuard = new TargetGuard(fromEnv, { resolver: world.resolver });
  t.ok(envGuard.isAllowedOrigin('https://kommun.test/') && envGuard.isAllowedOrigin('http://kommun.test/'), 'WEBPERF_ALLOW_TARGETS origins with explicit default ports');

  const hookGuard = world.guard();
  t.equal(await checkWebhookAddress(hookGuard, 'https://hooks.mottagare.test:443/in'), 'https://hooks.mottagare.test/in', 'a webhook address on 443 is stored without the default port');
  await t.rejects(checkWebhookAddress(hookGuard, 'https://intranet.kommun.test/in'), { code: 'TARGET_BLOCKED' });
});
