import http from 'node:http';
import t from 'tap';
import { TargetGuard } from '../../core/net/target-guard.js';
import { createProbes } from '../../core/net/probes.js';

t.test('addresses: private, loopback, link-local, metadata and reserved ranges are refused', async (t) => {
  const guard = new TargetGuard();
  for (const blocked of ['127.0.0.1', '127.1.2.3', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00::1', 'fc00::2', '::ffff:127.0.0.1', '::ffff:10.1.2.3', 'not-an-ip']) {
    t.equal(guard.isAllowedAddress(blocked), false, blocked);
  }
  // IPv6 that carries a blocked IPv4 (6to4, Teredo server or client, compatible, NAT64), and site-local.
  for (const carried of ['2002:a00:1::1', '2002:7f00:1::', '2001:0:a9fe:a9fe::1', '2001:0:5db8:d822:8000:63bf:80ff:fffe', '::a00:1', '64:ff9b::7f00:1', 'fec0::1', '::ffff:7f00:1']) {
    t.equal(guard.isAllowedAddress(carried), false, carried);
  }
  for (const allowed of ['93.184.216.34', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:5db8:d822::1', '64:ff9b::5db8:d822']) {
    t.equal(guard.isAllowedAddress(allowed), true, allowed);
  }
});

t.test('URLs: scheme, credentials and resolved addresses', async (t) => {
  const guard = new TargetGuard();
  await t.rejects(guard.assertUrl('http://127.0.0.1/'), { code: 'TARGET_BLOCKED', message: 'The address 127.0.0.1 resolves to 127.0.0.1, which is not allowed as a test target' });
  await t.rejects(guard.assertUrl('http://localhost:8080/'), { code: 'TARGET_BLOCKED' });
  await t.rejects(guard.assertUrl('http://[::1]/'), { code: 'TARGET_BLOCKED' });
  await t.rejects(guard.assertUrl('http://169.254.169.254/latest/meta-data/'), { code: 'TARGET_BLOCKED' });
  await t.rejects(guard.assertUrl('http://2130706433/'), { code: 'TARGET_BLOCKED' }, 'a decimal IPv4 is 127.0.0.1 too');
  await t.rejects(guard.assertUrl('file:///etc/passwd'), { code: 'TARGET_BLOCKED', message: /Only http and https/ });
  await t.rejects(guard.assertUrl('ftp://example.org/'), { code: 'TARGET_BLOCKED' });
  await t.rejects(guard.assertUrl('http://user:pw@example.org/'), { code: 'TARGET_BLOCKED', message: /credentials/ });
  await t.rejects(guard.assertUrl('not a url'), { code: 'TARGET_BLOCKED', message: /Not a valid URL/ });
  await t.rejects(guard.assertUrl('http://no-such-host.invalid/'), { code: 'TARGET_UNREACHABLE' });
});

t.test('allowlists: CIDRs, hosts and single origins', async (t) => {
  const cidr = new TargetGuard(['127.0.0.0/8']);
  t.equal((await cidr.assertUrl('http://127.0.0.1:5/')).port, '5');
  const origin = new TargetGuard(['http://127.0.0.1:4000']);
  t.ok(await origin.assertUrl('http://127.0.0.1:4000/page'));
  await t.rejects(origin.assertUrl('http://127.0.0.1:5432/'), { code: 'TARGET_BLOCKED' }, 'another port on the same host stays blocked');
  await t.rejects(origin.assertUrl('https://127.0.0.1:4000/'), { code: 'TARGET_BLOCKED' }, 'another scheme stays blocked');
  t.equal(origin.isAllowedConnection('http://127.0.0.1:4000/x', '127.0.0.1'), true);
  t.equal(origin.isAllowedConnection('http://127.0.0.1:4001/x', '127.0.0.1'), false);
  const host = new TargetGuard(['intranet.local']);
  t.equal(host.isAllowedHost('INTRANET.local'), true);
});

t.test('probes check every redirect hop at connect time', async (t) => {
  // An allowlisted origin that redirects to a loopback port nobody allowlisted.
  const target = http.createServer((_req, res) => res.end('secret'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  const targetPort = (target.address() as { port: number }).port;
  const redirector = http.createServer((_req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${targetPort}/admin` });
    res.end();
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    target.close();
    redirector.close();
  });
  const origin = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`;
  const probes = createProbes(new TargetGuard([origin]));
  const res = await probes.fetch(`${origin}/`);
  t.equal(res.status, 0);
  t.equal(res.body, '');
  t.same(res.chain, [`${origin}/`, `http://127.0.0.1:${targetPort}/admin`]);
  t.match(res.error, /not allowed as a test target/);
  const manual = await probes.fetch(`${origin}/`, { followRedirects: false });
  t.equal(manual.status, 302);
  t.equal(manual.headers.location, `http://127.0.0.1:${targetPort}/admin`);
  t.equal(await probes.fetch(`${origin}/`), res, 'memoised per run');
});

t.test('internal names: refused whatever they resolve to, unless every address is in the operator allowlist', async (t) => {
  const resolver = async (host: string) => [{ address: host === 'localhost' ? '127.0.0.1' : '10.0.0.7', family: 4 }];
  const none = new TargetGuard([], { resolver });
  for (const name of ['localhost', 'LOCALHOST.', 'app.localhost', 'metadata.google.internal', 'ip-10-0-0-7.ec2.internal', 'intranet', 'printer.home.arpa']) {
    await t.rejects(none.assertUrl(`http://${name}/`), { code: 'TARGET_BLOCKED', message: /is an internal name/ }, name);
  }
  const loopback = new TargetGuard(['127.0.0.0/8'], { resolver });
  t.equal((await loopback.assertUrl('http://localhost:8080/')).hostname, 'localhost', 'localhost is let through by an allowlisted 127.0.0.0/8');
  await t.rejects(loopback.assertUrl('http://intranet/'), { code: 'TARGET_BLOCKED', message: /is an internal name/ }, 'but not a name outside it');
});
