/**
 * Type 24, E-mail (plugins/email), against zones on the test world's own DNS server
 * (test/helpers/world/dns-server.ts) asked through the real probes and record lookup (a UDP query
 * with the EDNS DO bit, core/net/dns-records.ts; an answer too large for UDP again over TCP), and MTA-STS policy hosts served over https on
 * port 443 as mta-sts.<domain>. No browser: the plugin reads the address asked for only.
 *
 * Three fixture domains first: good.test (every check passes), typical.test (what a municipality
 * often has: one MX address, SPF ~all, DMARC p=none, no MTA-STS) and broken.test (every part
 * wrong), then domains for the rules those leave out.
 *
 * Ratings are upstream's family A: each category is the plain mean of the sub-ratings that set it,
 * overall the mean of their overall values, two decimals, half up. Each scenario lists its
 * sub-ratings as overall/infosec/standards (– where a row does not set the category) and works
 * the means out by hand from that list.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { NOT_RATED, type PluginResult, type Probes } from '../../core/plugin-api.js';
import plugin, { mailDomain } from '../../plugins/email/index.js';
import { makeArtifacts } from '../helpers/fixture-artifacts.js';
import { rate, reportLines } from '../helpers/plugin-outcomes.js';
import { startWorld } from '../helpers/world/index.js';

const world = await startWorld(t);

/** A policy host: mta-sts.txt with this body and type at /.well-known/mta-sts.txt, 404 elsewhere. */
const policyHost = (body: string, type = 'text/plain') => (req: IncomingMessage, res: ServerResponse) => {
  if (req.url !== '/.well-known/mta-sts.txt') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
  res.writeHead(200, { 'content-type': type }).end(body);
};
const mx = (...hosts: string[]) => hosts.map((exchange, i) => ({ exchange, priority: 10 * (i + 1) }));

// good.test: two MX hosts with both families, DNSSEC validated, MTA-STS enforced over both, TLS-RPT,
// SPF -all (a record longer than 255 bytes: two character-strings on the wire), DMARC p=reject.
const GOOD_SPF = `v=spf1 ${Array.from({ length: 20 }, (_, i) => `ip4:198.51.100.${i * 8}/29`).join(' ')} ip6:2001:db8::/32 include:_spf.good.test -all`;
// A signed zone's DS (at its parent) and DNSKEY (at its apex), ECDSA P-256 (algorithm 13), SHA-256 digest.
const DS_RECORD = { keyTag: 2371, algorithm: 13, digestType: 2, digest: '1F987CC6583E92DF0890718C42B2F3A5BB1B6FD1A08F7E2CA4A6B3C0E2D8F1A9' };
const DNSKEY_RECORD = { flags: 257, algorithm: 13, key: Buffer.alloc(64, 7).toString('base64') };
world.record('good.test', { MX: mx('mx1.good.test', 'mx2.good.test'), TXT: [[GOOD_SPF], ['google-site-verification=abc']], DS: [DS_RECORD], DNSKEY: [DNSKEY_RECORD], dnssec: 'validated' });
world.record('mx1.good.test', { A: ['192.0.2.1'], AAAA: ['2001:db8::1'] });
world.record('mx2.good.test', { A: ['192.0.2.2'], AAAA: ['2001:db8::2'] });
world.record('_spf.good.test', { TXT: [['v=spf1 ip4:203.0.113.0/24 -all']] });
world.record('_dmarc.good.test', { TXT: [['v=DMARC1; p=reject; adkim=s; aspf=s; rua=mailto:dmarc@good.test; ruf=mailto:dmarc@good.test; fo=1']] });
world.record('_mta-sts.good.test', { TXT: [['v=STSv1; id=20260101000000Z;']] });
world.record('_smtp._tls.good.test', { TXT: [['v=TLSRPTv1; rua=mailto:tlsrpt@good.test']] });

// typical.test: one MX host, one IPv4 address, no IPv6, no DNSSEC, no MTA-STS; SPF mx and a
// provider's include chain ending ~all; DMARC p=none with two defaults written out.
world.record('typical.test', { MX: mx('mail.typical.test'), TXT: [['v=spf1 mx include:spf.mailprovider.test ~all']] });
world.record('mail.typical.test', { A: ['192.0.2.10'] });
world.record('spf.mailprovider.test', { TXT: [['v=spf1 ip4:198.51.100.0/24 include:spf2.mailprovider.test ~all']] });
world.record('spf2.mailprovider.test', { TXT: [['v=spf1 ip4:203.0.113.0/24 -all']] });
world.record('_dmarc.typical.test', { TXT: [['v=DMARC1; p=none; pct=100; aspf=r; rua=mailto:dmarc@typical.test']] });

// broken.test: a null MX beside real ones, two MX names on one address, signatures the resolver
// does not validate, an invalid MTA-STS record and policy (served as HTML), a TLS-RPT name that
// fails (SERVFAIL), an SPF record with every fault, a DMARC record with many.
const BROKEN_SPF = 'v=spf1 ptr  include:nospf.broken.test include:loop.broken.test a:gone1.broken.test a:gone2.broken.test exists:gone3.broken.test bogus:x ip4:300.1.1.1 +all';
world.record('broken.test', { MX: [...mx('mx.broken.test', 'mx2.broken.test'), { exchange: '.', priority: 0 }], TXT: [[BROKEN_SPF]], DS: [DS_RECORD], dnssec: 'unvalidated' });
world.record('mx.broken.test', { A: ['192.0.2.20'] });
world.record('mx2.broken.test', { A: ['192.0.2.20'] });
world.record('nospf.broken.test', { TXT: [['hello']] });
world.record('loop.broken.test', { TXT: [['v=spf1 include:broken.test -all']] });
world.record('_dmarc.broken.test', { TXT: [['v=DMARC1; sp=quarantine; pct=150; adkim=x; fo=1; rf=afrf; ri=86400; p=quarantine;; rua=mailto:nobody']] });
world.record('_mta-sts.broken.test', { TXT: [['v=STSv1; id=this-is-not-valid!']] });
world.record('_smtp._tls.broken.test', { broken: true });

// The rules the three leave out.
world.record('v6only.test', { MX: mx('mx.v6only.test', 'ghost.v6only.test'), TXT: [['v=spf1 -all'], ['v=spf1 mx -all']] });
world.record('mx.v6only.test', { AAAA: ['2001:db8::5'] });
world.record('_dmarc.v6only.test', { TXT: [['v=DMARC1; p=reject'], ['v=DMARC1; p=none']] });
world.record('parked.test', { MX: [{ exchange: '.', priority: 0 }], TXT: [['v=spf1 -all']], dnssec: 'validated' });
world.record('_dmarc.parked.test', { TXT: [['v=DMARC1; p=reject;']] });
world.record('nomail.test', { TXT: [['v=spf1 -all']] });
world.record('implicit.test', { A: ['192.0.2.30'] });
world.record('testing.test', { MX: mx('mx1.testing.test', 'mx2.testing.test'), TXT: [['v=spf1 ip4:192.0.2.0/24']] });
world.record('mx1.testing.test', { A: ['192.0.2.41'] });
world.record('mx2.testing.test', { A: ['192.0.2.42'] });
world.record('_mta-sts.testing.test', { TXT: [['v=STSv1; id=1']] });
world.record('_dmarc.testing.test', { TXT: [['v=DMARC1; sp=none; rua=mailto:d@testing.test']] });
world.record('redirect.test', { MX: mx('mx.redirect.test'), TXT: [['v=spf1 redirect=_spf.redirect.test']] });
world.record('mx.redirect.test', { A: ['192.0.2.50', '192.0.2.51'] });
world.record('_spf.redirect.test', { TXT: [['v=spf1 ip4:192.0.2.0/24 ?all']] });
world.record('_mta-sts.redirect.test', { TXT: [['v=STSv1; id=2']] });
world.record('_smtp._tls.redirect.test', { TXT: [['v=TLSRPTv1; rua=ftp://reports.redirect.test']] });
world.record('_dmarc.redirect.test', { TXT: [['v=DMARC1; p=quarantine; sp=reject; pct=50; rua=mailto:agg@reports.third.test']] });
world.record('lookups.test', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 include:l1.lookups.test -all']] });
world.record('mx.lookups.test', { A: ['192.0.2.60'], AAAA: ['2001:db8::60'] });
for (let i = 1; i <= 10; i++) world.record(`l${i}.lookups.test`, { TXT: [[`v=spf1 include:l${i + 1}.lookups.test -all`]] });
world.record('l11.lookups.test', { TXT: [['v=spf1 -all']] });
world.record('_dmarc.lookups.test', { TXT: [['v=DMARC1; p=reject; sp=quarantine; rua=mailto:agg@dmarc.third.test']] });
world.record('lookups.test._report._dmarc.dmarc.third.test', { TXT: [['v=DMARC1']] });
world.record('servfail.test', { broken: true });
// verified.test: what many organisations' apex holds, a TXT record per service that asked to verify
// the domain beside the SPF record: over 1,232 bytes, more than a UDP answer may carry, so the
// answer comes truncated (TC) and the question is asked again over TCP.
const VERIFICATIONS = [
  ...Array.from({ length: 8 }, (_, i) => `google-site-verification=${String(i).repeat(43)}`),
  ...Array.from({ length: 6 }, (_, i) => `MS=ms${87654320 + i}`),
  ...Array.from({ length: 6 }, (_, i) => `atlassian-domain-verification=${'Ab3'.repeat(21)}${i}`),
];
world.record('verified.test', { MX: mx('mx.verified.test'), TXT: [['v=spf1 mx -all'], ...VERIFICATIONS.map((v) => [v])], dnssec: 'validated' });
world.record('mx.verified.test', { A: ['192.0.2.70'], AAAA: ['2001:db8::70'] });
world.record('_dmarc.verified.test', { TXT: [['v=DMARC1; p=reject']] });

// The limits: exactly 10 SPF lookups and exactly 2 void lookups rate no row (ten.test, voids2.test);
// the 11th and the 3rd do (lookups.test, voids3.test).
world.record('ten.test', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 include:l2.lookups.test -all']] });
world.record('voids2.test', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 a:gone1.voids2.test mx:gone2.voids2.test -all']] });
world.record('voids3.test', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 a:gone1.voids3.test mx:gone2.voids3.test exists:gone3.voids3.test -all']] });
// fan.test: 600 MX hosts, an SPF record of 1,500 a terms, DMARC reports to 1,500 addresses elsewhere.
const FAN_MX = Array.from({ length: 600 }, (_, i) => ({ exchange: `m${i}.fan.test`, priority: 1000 - i }));
world.record('fan.test', { MX: FAN_MX, TXT: [[`v=spf1 ${Array.from({ length: 1500 }, (_, i) => `a:s${i}.fan.test`).join(' ')} -all`]] });
FAN_MX.forEach(({ exchange }, i) => world.record(exchange, { A: [`10.24.${i >> 8}.${i & 255}`] }));
for (let i = 0; i < 1500; i++) world.record(`s${i}.fan.test`, { A: ['192.0.2.99'] });
const FAN_RUA = Array.from({ length: 1500 }, (_, i) => `mailto:r@r${i}.ext.test`).join(',');
world.record('_dmarc.fan.test', { TXT: [[`v=DMARC1; p=reject; rua=${FAN_RUA}; ruf=mailto:f@f0.ext.test,mailto:f@f1.ext.test,mailto:f@f2.ext.test`]] });
// A lone "." MX of priority 10: no null MX (RFC 7505 section 3), an MX entry that leads nowhere.
world.record('badnull.test', { MX: [{ exchange: '.', priority: 10 }], TXT: [['v=spf1 -all']] });
// MTA-STS: an invalid record and no TLS-RPT; a policy file without a record; policies of 64 KiB and
// one byte more; a policy host whose certificate is for another name.
world.record('stsbad.test', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 -all']] });
// The id of stsbad.test's record holds "-", "_" and ":" (only letters and digits may): it serves an
// enforcing policy and a TLS-RPT record, and still rates as a domain without MTA-STS.
world.record('_mta-sts.stsbad.test', { TXT: [['v=STSv1; id=2025-01-01_12:00']] });
world.record('_smtp._tls.stsbad.test', { TXT: [['v=TLSRPTv1; rua=mailto:tlsrpt@stsbad.test']] });
for (const name of ['nosts.test', 'full-policy.test', 'big-policy.test', 'wrongname.test']) world.record(name, { MX: mx('mx.lookups.test'), TXT: [['v=spf1 -all']] });
for (const name of ['full-policy.test', 'big-policy.test', 'wrongname.test']) world.record(`_mta-sts.${name}`, { TXT: [['v=STSv1; id=3']] });
// refused.test's policy host is on a private address the guard does not allow: refused before any connection.
world.record('refused.test', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 -all']] });
world.record('_mta-sts.refused.test', { TXT: [['v=STSv1; id=3']] });
world.record('mta-sts.refused.test', { A: ['10.1.2.3'] });
// DNSSEC whatever the resolver: signed.test's resolver passes signatures on without validating,
// stripped.test's passes none (no AD, no RRSIG); both zones have a DS and a DNSKEY. The zone of
// mail.unknown-zone.test (its organisational domain) cannot be asked.
for (const [name, dnssec] of [['signed.test', 'unvalidated'], ['stripped.test', undefined]] as const) {
  world.record(name, { MX: mx('mx.lookups.test'), TXT: [['v=spf1 -all']], DS: [DS_RECORD], DNSKEY: [DNSKEY_RECORD], ...(dnssec ? { dnssec } : {}) });
}
world.record('mail.unknown-zone.test', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 -all']] });
world.record('unknown-zone.test', { broken: true });
/** A valid policy for mx.lookups.test, an extension line making it `bytes` bytes long. */
const policyOfBytes = (bytes: number) => {
  const head = 'version: STSv1\nmode: enforce\nmx: mx.lookups.test\nmax_age: 86400\nx-pad: ';
  return `${head}${'a'.repeat(bytes - head.length - 1)}\n`;
};
const LOOKUPS_POLICY = policyOfBytes(100);
// DMARC of a parent: org.test's record says p=reject, sp=none; c.org.test's is never asked for a.b.c.org.test.
for (const name of ['org.test', 'shop.org.test', 'a.b.c.org.test']) world.record(name, { MX: mx('mx.lookups.test'), TXT: [['v=spf1 -all']] });
world.record('_dmarc.org.test', { TXT: [['v=DMARC1; p=reject; sp=none; rua=mailto:d@org.test']] });
world.record('_dmarc.c.org.test', { TXT: [['v=DMARC1; p=quarantine; rua=mailto:d@org.test']] });
// Under a private suffix of the public suffix list (github.io), a user's site is its own
// organisational domain: github.io's record never covers it.
world.record('kommun.github.io', { MX: mx('mx.lookups.test'), TXT: [['v=spf1 -all']] });
world.record('_dmarc.github.io', { TXT: [['v=DMARC1; p=reject']] });

const GOOD_POLICY = 'version: STSv1\r\nmode: enforce\r\nmx: mx1.good.test\r\nmx: *.good.test\r\nmax_age: 604800\r\n';
await Promise.all([
  world.site('mta-sts.good.test', { handler: policyHost(GOOD_POLICY) }),
  world.site('mta-sts.broken.test', { handler: policyHost('version: STSv1\nmode: enforcing\nmx: mail.other.test\nmax_age: 99999999999\n', 'text/html') }),
  world.site('mta-sts.testing.test', { handler: policyHost('version: STSv1\nmode: testing\nmx: mx1.testing.test\nmax_age: 86400\n'), https: { cert: 'expired' } }),
  world.site('mta-sts.redirect.test', { handler: (_req, res) => void res.writeHead(301, { location: 'https://mta-sts.redirect.test/elsewhere' }).end() }),
  world.site('mta-sts.nosts.test', { handler: policyHost(LOOKUPS_POLICY) }),
  world.site('mta-sts.stsbad.test', { handler: policyHost(LOOKUPS_POLICY) }),
  world.site('mta-sts.full-policy.test', { handler: policyHost(policyOfBytes(64 * 1024)) }),
  world.site('mta-sts.big-policy.test', { handler: policyHost(policyOfBytes(64 * 1024 + 1)) }),
  world.site('mta-sts.wrongname.test', { handler: policyHost(LOOKUPS_POLICY), https: { cert: 'wrong-name' } }),
]);

/** The plugin through the pipeline on `url`, with probes of its own (a run's memo) on this world. */
async function judge(url: string) {
  return rate(plugin, makeArtifacts(url), createProbes(world.guard()));
}
const row = (rule: string, overall: number, infosec: number | null, webstandard: number | null) => ({ rule, overall, infosec, webstandard });
const rows = (result: PluginResult) => (result.data.sub_ratings as ReturnType<typeof row>[]);
/** Two decimals, half up (the service's round). */
const mean = (...values: number[]) => Math.round(Number(((values.reduce((a, b) => a + b, 0) / values.length) * 100).toPrecision(12))) / 100;
const findingKeys = (result: PluginResult) => result.findings.map((f) => `${f.rule} ${f.category} ${f.severity}`);

t.test('the domain is the host asked for, without a leading www.', async (t) => {
  t.equal(mailDomain('https://www.kommun.test/start'), 'kommun.test');
  t.equal(mailDomain('https://kommun.test/'), 'kommun.test');
  t.equal(mailDomain('https://bibliotek.kommun.test/'), 'bibliotek.kommun.test');
  t.equal(mailDomain('http://WWW.Kommun.TEST./'), 'kommun.test');
  t.equal(mailDomain('https://www2.kommun.test/'), 'www2.kommun.test');
  t.equal(plugin.meta.id, 24);
  t.same(plugin.meta.categories, ['infosec', 'webstandard']);
  t.same(plugin.meta.requiredArtifacts, ['requestedUrl']);
});

t.test('good.test: every check passes', async (t) => {
  const { outcome, result } = await judge('https://www.good.test/');
  t.same(rows(result), [
    row('mx-ipv4-redundant', 5, 5, 5),
    row('mx-ipv6-redundant', 5, 5, 5),
    row('dnssec', 5, 5, 5),
    row('mta-sts-record', 5, 5, 5),
    row('mta-sts-policy', 5, 5, 5),
    row('tls-rpt', 5, 5, 5),
    row('spf', 5, 5, 5),
    row('spf-hardfail', 5, 5, 5),
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-reject', 5, 5, 5),
    row('dmarc-pct', 5, 5, 5),
    row('dmarc-no-errors', 5, null, 5),
    row('dmarc-no-warnings', 5, null, 5),
  ]);
  t.equal(outcome.rating, 5);
  t.same(outcome.ratings, { infosec: 5, webstandard: 5 });
  t.ok(result.findings.every((f) => f.severity === 'resolved'), 'nothing to improve');
  t.same(reportLines(outcome, 'sv', 'sec'), ['Integritet & säkerhet: Betyg: 5.00', '- Inget att förbättra hittades.']);
  t.equal(outcome.reports.sv.overall, 'E-post för good.test: 2 MX-servrar; SPF -all; DMARC p=reject; MTA-STS enforce.\nBetyg: 5.00');
  t.equal(outcome.reports.en.overall, 'E-mail of good.test: 2 MX hosts; SPF -all; DMARC p=reject; MTA-STS enforce.\nRating: 5.00');
  const data = outcome.data as any;
  t.same(data.mx, {
    records: [{ exchange: 'mx1.good.test', priority: 10 }, { exchange: 'mx2.good.test', priority: 20 }],
    implicit: false,
    hosts: [
      { exchange: 'mx1.good.test', priority: 10, ipv4: ['192.0.2.1'], ipv6: ['2001:db8::1'] },
      { exchange: 'mx2.good.test', priority: 20, ipv4: ['192.0.2.2'], ipv6: ['2001:db8::2'] },
    ],
    hosts_asked_max: 10,
    hosts_not_asked: 0,
    ipv4_addresses: ['192.0.2.1', '192.0.2.2'],
    ipv6_addresses: ['2001:db8::1', '2001:db8::2'],
  });
  t.same(data.dnssec, { zone: 'good.test', authenticated: true, validated: true, signed: true, basis: 'validated', ds: ['2371 13 2 1F987CC6583E92DF0890718C42B2F3A5BB1B6FD1A08F7E2CA4A6B3C0E2D8F1A9'], dnskeys: 1 }, 'the resolver set the AD flag');
  t.equal(GOOD_SPF.length > 255, true);
  t.equal(data.spf.record, GOOD_SPF, 'a TXT record of several character-strings is read joined');
  t.same([data.spf.dns_lookups, data.spf.all, data.spf.followed, data.spf.ip4.length], [1, '-', ['_spf.good.test'], 21]);
  t.same(data.mta_sts, {
    record: { status: 'valid', valid: true, records: ['v=STSv1; id=20260101000000Z;'], id: '20260101000000Z', problems: [] },
    policy: {
      url: 'https://mta-sts.good.test/.well-known/mta-sts.txt', status: 200, content_type: 'text/plain', in_use: true, found: true, valid: true,
      version: 'STSv1', mode: 'enforce', max_age: 604800, mx: ['mx1.good.test', '*.good.test'], unmatched_mx: [], certificate_trusted: true, problems: [], error: null,
    },
  });
  t.same(data.tls_rpt, { status: 'valid', records: ['v=TLSRPTv1; rua=mailto:tlsrpt@good.test'], rua: ['mailto:tlsrpt@good.test'], problems: [] });
  t.same([data.dmarc.p, data.dmarc.adkim, data.dmarc.aspf, data.dmarc.fo, data.dmarc.found_at, data.dmarc.rua_verification], ['reject', 's', 's', ['1'], 'good.test', []]);
  // Every question went to the world's DNS server, the service's resolver here.
  for (const q of ['good.test MX', 'mx1.good.test AAAA', '_mta-sts.good.test TXT', '_smtp._tls.good.test TXT', 'good.test TXT', '_spf.good.test TXT', '_dmarc.good.test TXT']) {
    t.ok(world.dns.asked.includes(q), q);
  }
});

t.test('typical.test: one MX address, no MTA-STS, SPF ~all, DMARC p=none', async (t) => {
  const { outcome, result } = await judge('https://www.typical.test/');
  t.same(rows(result), [
    row('mx-ipv4-single', 2.5, 1, 5),
    row('mx-ipv6-missing', 1, null, 1),
    row('dnssec-missing', 1, 1, 1),
    row('mta-sts-record-missing', 1, 1, 1),
    row('mta-sts-policy-missing', 1, 1, 1),
    row('spf', 5, 5, 5),
    row('spf-softfail', 5, 2, 5),
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-none', 3, 1, 5),
    row('dmarc-pct', 5, 5, 5),
    row('dmarc-no-errors', 5, null, 5),
    row('dmarc-pct-default', 3, null, 3),
    row('dmarc-aspf-default', 3, null, 3),
  ]);
  // overall (2.5 + 1 + 1 + 1 + 1 + 5 + 5 + 5 + 3 + 5 + 5 + 3 + 3) / 13 = 40.5 / 13 = 3.115 → 3.12
  // infosec (1 + 1 + 1 + 1 + 5 + 2 + 5 + 1 + 5) / 9 = 22 / 9 = 2.444 → 2.44
  // standards (5 + 1 + 1 + 1 + 1 + 5 + 5 + 5 + 5 + 5 + 5 + 3 + 3) / 13 = 45 / 13 = 3.462 → 3.46
  t.equal(outcome.rating, 3.12);
  t.equal(outcome.rating, mean(2.5, 1, 1, 1, 1, 5, 5, 5, 3, 5, 5, 3, 3));
  t.same(outcome.ratings, { infosec: 2.44, webstandard: 3.46 });
  t.same(reportLines(outcome, 'sv', 'sec'), [
    'Integritet & säkerhet: Betyg: 2.44',
    '- MX DNS IPv4-post saknar redundans: e-posten tas emot på en enda adress (192.0.2.10)',
    '- Domänen är inte DNSSEC-signerad: svaren om vart dess e-post ska skickas kan förfalskas på vägen',
    '- MTA-STS DNS-post hittades inte',
    '- MTA-STS TXT hittades inte: https://mta-sts.typical.test/.well-known/mta-sts.txt gick inte att hämta: namnet finns inte i DNS',
    '- SPF DNS-post använder mjukt misslyckande (~all)',
    "- DMARC DNS-post använder 'none' för policy",
  ]);
  t.same(reportLines(outcome, 'en', 'stand'), [
    'Standards: Rating: 3.46',
    '- MX DNS IPv6 record not found',
    '- The domain is not DNSSEC-signed: the answers saying where its mail goes can be forged on the way',
    '- MTA-STS DNS record not found',
    '- MTA-STS TXT not found: https://mta-sts.typical.test/.well-known/mta-sts.txt could not be fetched: the name does not resolve in DNS',
    '- DMARC DNS record used the default value for PCT, it is redundant',
    '- DMARC DNS record used the default value for ASPF, it is redundant',
  ]);
  t.equal(outcome.reports.sv.overall, 'E-post för typical.test: 1 MX-server; SPF ~all; DMARC p=none; MTA-STS saknas.\nBetyg: 3.12');
  const data = outcome.data as any;
  t.same(data.dnssec, { zone: 'typical.test', authenticated: false, validated: false, signed: false, basis: 'ds-dnskey', ds: [], dnskeys: 0 }, 'no DS at the parent: an unsigned zone');
  // mx 1, include 1, its include 1: 3; the includes' own all (~all, -all) are not the domain's.
  t.same([data.spf.dns_lookups, data.spf.all, data.spf.all_from, data.spf.followed], [3, '~', 'typical.test', ['spf.mailprovider.test', 'spf2.mailprovider.test']]);
  t.equal(data.tls_rpt.status, 'missing');
  t.notOk(rows(result).some((r) => r.rule.startsWith('tls-rpt')), 'TLS-RPT is rated only beside an MTA-STS record');
  t.same([data.mta_sts.policy.status, data.mta_sts.policy.found], [0, false]);
});

t.test('broken.test: every part wrong', async (t) => {
  const { outcome, result } = await judge('https://broken.test/');
  t.same(rows(result), [
    row('mx-null-invalid', 1, null, 1),
    row('mx-ipv4-single', 2.5, 1, 5),
    row('mx-ipv6-missing', 1, null, 1),
    row('dnssec-broken', 1, 1, 1),
    row('mta-sts-record-invalid', 1, 1, 1),
    row('mta-sts-policy-missing', 1, 1, 1),
    row('spf', 5, 5, 5),
    row('spf-invalid-term', 1, null, 1),
    row('spf-include-invalid', 1, null, 1),
    row('spf-too-many-dns-lookups', 1, null, 1),
    row('spf-too-many-void-lookups', 1, null, 1),
    row('spf-ptr', 1, null, 1),
    row('spf-pass-all', 2, 1, 2.5),
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-quarantine', 4, 4, 5),
    row('dmarc-subpolicy-redundant', 3, null, 3),
    row('dmarc-pct-invalid', 1, null, 1),
    row('dmarc-adkim-invalid', 1, null, 1),
    row('dmarc-empty-section', 1, null, 1),
    row('dmarc-rua-invalid', 1, null, 1),
    row('dmarc-fo-without-ruf', 1, null, 1),
    row('dmarc-rf-default', 3, null, 3),
    row('dmarc-ri-default', 3, null, 3),
    row('dmarc-policy-not-second', 3, null, 3),
  ]);
  // overall: 1 + 2.5 + 1 + 1 + 1 + 1 + 5 + 1×5 + 2 + 5 + 4 + 3 + 1×5 + 3×3 = 45.5 over 24 rows = 1.8958 → 1.90
  // infosec: 1 + 1 + 1 + 1 + 5 + 1 + 5 + 4 = 19 over 8 = 2.375 → 2.38
  // standards: 1 + 5 + 1 + 1 + 1 + 1 + 5 + 1×5 + 2.5 + 5 + 5 + 3 + 1×5 + 3×3 = 49.5 over 24 = 2.0625 → 2.06
  t.equal(outcome.rating, 1.9);
  t.same(outcome.ratings, { infosec: 2.38, webstandard: 2.06 });
  const data = outcome.data as any;
  t.same(data.mx.ipv4_addresses, ['192.0.2.20'], 'two MX names on one address are no redundancy');
  t.same(data.dnssec, { zone: 'broken.test', authenticated: null, validated: false, signed: 'broken', basis: 'ds-dnskey', ds: ['2371 13 2 1F987CC6583E92DF0890718C42B2F3A5BB1B6FD1A08F7E2CA4A6B3C0E2D8F1A9'], dnskeys: 0 }, 'signatures without the AD flag, a DS and no DNSKEY: a broken chain');
  t.same(data.mta_sts.record.problems, ['id-invalid']);
  const policy = data.mta_sts.policy;
  t.same([policy.in_use, policy.found, policy.valid, policy.mode, policy.problems, policy.certificate_trusted], [false, true, false, null, [], null], 'the invalid record stopped discovery: the policy served is not judged');
  t.same(data.spf.problems, [
    { domain: 'broken.test', term: 'bogus:x', reason: 'unknown-mechanism' },
    { domain: 'broken.test', term: 'ip4:300.1.1.1', reason: 'syntax' },
    { domain: 'broken.test', term: 'include:nospf.broken.test', reason: 'include-no-record' },
    { domain: 'loop.broken.test', term: 'include:broken.test', reason: 'loop' },
  ]);
  // ptr 1, include 2, include 3 (its include back: 4), a 5, a 6, exists 7; the last three find nothing.
  t.same([data.spf.dns_lookups, data.spf.void_lookups, data.spf.multiple_spaces, data.spf.all], [7, 3, true, '+']);
  t.same(data.dmarc.errors, ['dmarc-pct-invalid', 'dmarc-adkim-invalid', 'dmarc-empty-section', 'dmarc-rua-invalid', 'dmarc-fo-without-ruf']);
  t.same(data.lookup_failures, ['_smtp._tls.broken.test TXT'], 'SERVFAIL: that part is not judged');
  t.same(data.tls_rpt.status, 'error');
  // Notes the rating leaves out.
  t.same(result.findings.filter((f) => f.severity === 'info').map((f) => f.rule), ['dns-lookup-failed']);
  t.ok(findingKeys(result).includes('spf-pass-all infosec error'));
  t.ok(findingKeys(result).includes('spf-pass-all webstandard error'));
  t.ok(findingKeys(result).includes('dmarc-policy-quarantine infosec warning'));
  t.ok(findingKeys(result).includes('dmarc-policy-quarantine webstandard resolved'));
  const stand = reportLines(outcome, 'sv', 'stand');
  t.ok(stand.includes('- SPF DNS-post har otillåtet innehåll: bogus:x, ip4:300.1.1.1'));
  t.ok(stand.includes('- SPF DNS-post orsakar för många DNS-uppslag (7, högst 10 tillåts; posterna hänvisar i en slinga)'));
  t.ok(stand.includes('- SPF DNS-post orsakar för många DNS-uppslag utan svar (3, högst 2 tillåts)'));
  t.ok(stand.includes('- MTA-STS TXT (policyfilen mta-sts.txt) används inte: https://mta-sts.broken.test/.well-known/mta-sts.txt finns, men MTA-STS DNS-post är felaktig, så avsändare hämtar den aldrig'), 'the invalid record stopped discovery: the policy\'s own faults are not listed');
  t.ok(stand.includes('- Null MX (RFC 7505) ska vara domänens enda MX-post och ha prioritet 0'));
});

t.test('v6only.test: IPv6 only, an MX host without address, two SPF and two DMARC records', async (t) => {
  const { outcome, result } = await judge('https://v6only.test/');
  t.same(rows(result), [
    row('mx-ipv4-missing', 1, null, 1),
    row('mx-ipv6-single', 2.5, 1, 5),
    row('dnssec-missing', 1, 1, 1),
    row('mta-sts-record-missing', 1, 1, 1),
    row('mta-sts-policy-missing', 1, 1, 1),
    row('spf-multiple-records', 1, 1, 1),
    row('dmarc-multiple-records', 1, 1, 1),
  ]);
  // overall 8.5 / 7 = 1.214 → 1.21; infosec 6 / 6 = 1; standards 11 / 7 = 1.571 → 1.57
  t.equal(outcome.rating, 1.21);
  t.same(outcome.ratings, { infosec: 1, webstandard: 1.57 });
  const noAddress = result.findings.find((f) => f.rule === 'mx-host-no-address');
  t.same(noAddress && [noAddress.severity, noAddress.text.en], ['info', 'The MX host has neither an IPv4 nor an IPv6 address: ghost.v6only.test']);
  t.same((outcome.data as any).spf.status, 'multiple');
});

t.test('verified.test: an SPF record among TXT records too large for UDP is read from the answer over TCP', async (t) => {
  const before = world.dns.asked.length;
  const { result } = await judge('https://www.verified.test/');
  const asked = world.dns.asked.slice(before);
  t.ok(asked.includes('verified.test TXT'), 'asked over UDP first');
  t.ok(asked.includes('verified.test TXT over TCP'), 'the truncated answer asked again over TCP');
  t.notOk(asked.includes('verified.test MX over TCP'), 'a small answer is not');
  const data = result.data as any;
  t.same([data.spf.status, data.spf.record, data.spf.all, data.spf.dns_lookups], ['found', 'v=spf1 mx -all', '-', 1]);
  t.same(data.dnssec, { zone: 'verified.test', authenticated: true, validated: true, signed: true, basis: 'validated', ds: [], dnskeys: 0 }, 'validated by the resolver: signed, whatever records it shows');
  t.same(rows(result).filter((r) => r.rule.startsWith('spf')), [row('spf', 5, 5, 5), row('spf-hardfail', 5, 5, 5)]);
});

t.test('parked.test: a null MX, SPF -all and DMARC reject: the domain sends and receives no mail', async (t) => {
  const asked = world.dns.asked.length;
  const { outcome, result } = await judge('https://parked.test/');
  t.same(rows(result), [
    row('mx-null', 5, null, 5),
    row('dnssec', 5, 5, 5),
    row('spf', 5, 5, 5),
    row('spf-hardfail', 5, 5, 5),
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-reject', 5, 5, 5),
    row('dmarc-pct', 5, 5, 5),
    row('dmarc-no-errors', 5, null, 5),
    row('dmarc-rua-missing', 3, null, 3),
  ]);
  // overall (8 × 5 + 3) / 9 = 4.778 → 4.78; infosec 5; standards (8 × 5 + 3) / 9 → 4.78
  t.equal(outcome.rating, 4.78);
  t.same(outcome.ratings, { infosec: 5, webstandard: 4.78 });
  t.same((outcome.data as any).mx.records, [{ exchange: '.', priority: 0 }]);
  t.notOk(world.dns.asked.slice(asked).some((q) => q.startsWith('_mta-sts.') || q.startsWith('_smtp._tls.')), 'nothing about receiving is asked');
  t.equal(outcome.reports.en.overall, 'E-mail of parked.test: receives no mail (null MX); SPF -all; DMARC p=reject.\nRating: 4.78');
});

t.test('nomail.test: no MX and no address: does not receive e-mail', async (t) => {
  const { outcome, result } = await judge('https://www.nomail.test/');
  t.same(rows(result), [
    row('no-mail', 3, null, 3),
    row('dnssec-missing', 1, 1, 1),
    row('spf', 5, 5, 5),
    row('spf-hardfail', 5, 5, 5),
    row('dmarc-missing', 1, 1, 1),
  ]);
  // overall 15 / 5 = 3; infosec 12 / 4 = 3; standards 15 / 5 = 3
  t.equal(outcome.rating, 3);
  t.same(outcome.ratings, { infosec: 3, webstandard: 3 });
  t.equal(outcome.reports.sv.overall, 'E-post för nomail.test: tar inte emot e-post; SPF -all; DMARC saknas.\nBetyg: 3.00');
  t.ok(reportLines(outcome, 'sv', 'stand').includes('- Domänen tar inte emot e-post: den har varken MX- eller A/AAAA-post. En null MX (RFC 7505) säger det uttryckligen, så att avsändare slipper försöka.'));
});

t.test('implicit.test: no MX but an address: mail goes to the domain itself, nothing is set up', async (t) => {
  const { outcome, result } = await judge('https://implicit.test/');
  t.same(rows(result), [
    row('mx-ipv4-missing', 1, null, 1),
    row('mx-ipv6-missing', 1, null, 1),
    row('dnssec-missing', 1, 1, 1),
    row('mta-sts-record-missing', 1, 1, 1),
    row('mta-sts-policy-missing', 1, 1, 1),
    row('spf-missing', 1, 1, 1),
    row('dmarc-missing', 1, 1, 1),
  ]);
  t.equal(outcome.rating, 1);
  t.same(outcome.ratings, { infosec: 1, webstandard: 1 });
  t.same(result.findings.filter((f) => f.severity === 'info').map((f) => f.rule), ['mx-implicit']);
  t.equal((outcome.data as any).mx.implicit, true);
});

t.test('testing.test: MTA-STS in testing with an untrusted certificate and an uncovered MX, no TLS-RPT, SPF without all, DMARC without p', async (t) => {
  const { outcome, result } = await judge('https://testing.test/');
  t.same(rows(result), [
    row('mx-ipv4-redundant', 5, 5, 5),
    row('mx-ipv6-missing', 1, null, 1),
    row('dnssec-missing', 1, 1, 1),
    row('mta-sts-record', 5, 5, 5),
    row('mta-sts-policy-certificate', 1, 1, 1),
    row('mta-sts-not-enforced', 3, 1, 5),
    row('mta-sts-mx-mismatch', 2, 1, 1),
    row('tls-rpt-missing', 3, 3, null),
    row('spf', 5, 5, 5),
    row('spf-no-all', 3, 2, 5),
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-missing', 1, 1, 1),
    row('dmarc-subpolicy-none', 3, 1, 5),
    row('dmarc-pct', 5, 5, 5),
    row('dmarc-no-errors', 5, null, 5),
    row('dmarc-no-warnings', 5, null, 5),
  ]);
  // overall 53 / 16 = 3.3125 → 3.31; infosec 36 / 13 = 2.769 → 2.77; standards 55 / 15 = 3.667 → 3.67
  t.equal(outcome.rating, 3.31);
  t.same(outcome.ratings, { infosec: 2.77, webstandard: 3.67 });
  const policy = (outcome.data as any).mta_sts.policy;
  t.same([policy.mode, policy.problems, policy.certificate_trusted, policy.unmatched_mx], ['testing', ['certificate'], false, ['mx2.testing.test']]);
  const sec = reportLines(outcome, 'en', 'sec');
  t.ok(sec.includes('- MTA-STS TXT is not enforced using mode (mode: testing)'));
  t.ok(sec.includes('- MTA-STS TXT does not cover every MX host: mx2.testing.test matches no mx line, so mail to it may be refused'));
  t.ok(sec.includes('- TLS-RPT DNS record (_smtp._tls) not found: failed encryption under MTA-STS is not reported to the domain'));
  t.ok(sec.includes('- The certificate of mta-sts.testing.test is not accepted (CERT_HAS_EXPIRED): senders do not fetch the MTA-STS policy from it (RFC 8461 section 3.3)'), 'a certificate problem, not a format problem');
  t.notOk(sec.some((l) => l.includes('invalid format')));
});

t.test('redirect.test: SPF by redirect (?all), a redirecting policy, an invalid TLS-RPT, DMARC to an unverified third party', async (t) => {
  const { outcome, result } = await judge('https://redirect.test/');
  t.same(rows(result), [
    row('mx-ipv4-redundant', 5, 5, 5),
    row('mx-ipv6-missing', 1, null, 1),
    row('dnssec-missing', 1, 1, 1),
    row('mta-sts-record', 5, 5, 5),
    row('mta-sts-policy-invalid', 2, 1, 1),
    row('tls-rpt-invalid', 2, 2, 1),
    row('spf', 5, 5, 5),
    row('spf-neutral', 3, 2, 5),
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-quarantine', 4, 4, 5),
    row('dmarc-subpolicy-reject', 5, 5, 5),
    row('dmarc-pct-below-100', 3, 1, 5),
    row('dmarc-no-errors', 5, null, 5),
    row('dmarc-report-unverified', 3, null, 3),
  ]);
  // overall 49 / 14 = 3.5; infosec 36 / 11 = 3.273 → 3.27; standards 52 / 14 = 3.714 → 3.71
  t.equal(outcome.rating, 3.5);
  t.same(outcome.ratings, { infosec: 3.27, webstandard: 3.71 });
  const data = outcome.data as any;
  t.same([data.mta_sts.policy.status, data.mta_sts.policy.problems], [301, ['redirect']]);
  t.same([data.spf.dns_lookups, data.spf.all, data.spf.all_from], [1, '?', '_spf.redirect.test']);
  t.same(data.tls_rpt.problems, ['rua-invalid']);
  t.same(data.dmarc.rua_verification, [{ destination: 'reports.third.test', record: 'redirect.test._report._dmarc.reports.third.test', verified: false }]);
  t.ok(reportLines(outcome, 'sv', 'stand').includes(
    '- DMARC-rapporter till reports.third.test skickas inte: reports.third.test godkänner dem inte med en post på redirect.test._report._dmarc.reports.third.test (RFC 7489 avsnitt 7.1)',
  ));
});

t.test('lookups.test: an include chain of 11 lookups; DMARC to a third party that agrees', async (t) => {
  const before = world.dns.asked.length;
  const { outcome, result } = await judge('https://lookups.test/');
  t.ok(world.dns.asked.slice(before).includes('l10.lookups.test TXT'));
  t.notOk(world.dns.asked.slice(before).includes('l11.lookups.test TXT'), 'the 11th lookup is counted, not asked');
  t.same(rows(result), [
    row('mx-ipv4-single', 2.5, 1, 5),
    row('mx-ipv6-single', 2.5, 1, 5),
    row('dnssec-missing', 1, 1, 1),
    row('mta-sts-record-missing', 1, 1, 1),
    row('mta-sts-policy-missing', 1, 1, 1),
    row('spf', 5, 5, 5),
    row('spf-too-many-dns-lookups', 1, null, 1),
    row('spf-hardfail', 5, 5, 5),
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-reject', 5, 5, 5),
    row('dmarc-subpolicy-quarantine', 4, 4, 5),
    row('dmarc-pct', 5, 5, 5),
    row('dmarc-no-errors', 5, null, 5),
    row('dmarc-no-warnings', 5, null, 5),
  ]);
  // overall 48 / 14 = 3.429 → 3.43; infosec 34 / 11 = 3.091 → 3.09; standards 54 / 14 = 3.857 → 3.86
  t.equal(outcome.rating, 3.43);
  t.same(outcome.ratings, { infosec: 3.09, webstandard: 3.86 });
  const data = outcome.data as any;
  t.same([data.spf.dns_lookups, data.spf.stopped], [11, 'dns-lookup-limit']);
  t.same(data.dmarc.rua_verification, [{ destination: 'dmarc.third.test', record: 'lookups.test._report._dmarc.dmarc.third.test', verified: true }]);
  t.ok(reportLines(outcome, 'en', 'stand').includes('- SPF DNS record causes too many DNS lookups (11, at most 10 are allowed)'));
});

t.test('a subdomain without a DMARC record of its own is covered by its parent\'s', async (t) => {
  const { result } = await judge('https://www.bibliotek.typical.test/');
  const data = result.data as any;
  t.equal(data.domain, 'bibliotek.typical.test');
  t.same([data.dmarc.status, data.dmarc.found_at, data.dmarc.p, data.dmarc.policy, data.dmarc.policy_tag], ['found', 'typical.test', 'none', 'none', 'p']);
  t.same(result.findings.find((f) => f.rule === 'dmarc')?.text, {
    sv: 'DMARC DNS-post hittades hos typical.test, som gäller även bibliotek.typical.test',
    en: 'DMARC DNS record found at typical.test, which also covers bibliotek.typical.test',
  });
});

t.test('SPF limits: 10 lookups and 2 void lookups rate no row, 11 and 3 do', async (t) => {
  const spfRows = (result: PluginResult) => rows(result).filter((r) => r.rule.startsWith('spf'));
  const ten = await judge('https://ten.test/');
  t.same([(ten.result.data as any).spf.dns_lookups, (ten.result.data as any).spf.stopped], [10, null]);
  t.same(spfRows(ten.result), [row('spf', 5, 5, 5), row('spf-hardfail', 5, 5, 5)]);
  const lookups = await judge('https://lookups.test/');
  t.same(spfRows(lookups.result), [row('spf', 5, 5, 5), row('spf-too-many-dns-lookups', 1, null, 1), row('spf-hardfail', 5, 5, 5)]);
  const two = await judge('https://voids2.test/');
  t.same([(two.result.data as any).spf.void_lookups, (two.result.data as any).spf.stopped], [2, null]);
  t.same(spfRows(two.result), [row('spf', 5, 5, 5), row('spf-hardfail', 5, 5, 5)]);
  const three = await judge('https://voids3.test/');
  t.same([(three.result.data as any).spf.void_lookups, (three.result.data as any).spf.stopped], [3, 'void-lookup-limit']);
  t.same(spfRows(three.result), [row('spf', 5, 5, 5), row('spf-too-many-void-lookups', 1, null, 1), row('spf-hardfail', 5, 5, 5)]);
});

t.test('fan.test: 600 MX hosts, 1,500 SPF terms and 1,500 report addresses ask a bounded number of questions', async (t) => {
  const before = world.dns.asked.length;
  const { result } = await judge('https://fan.test/');
  const asked = world.dns.asked.slice(before);
  // The 10 MX hosts of lowest priority (the last 10 written), A and AAAA each.
  const lowest = Array.from({ length: 10 }, (_, i) => `m${590 + i}.fan.test`);
  t.same(asked.filter((q) => /^m\d+\.fan\.test /.test(q)).sort(), lowest.flatMap((h) => [`${h} A`, `${h} AAAA`]).sort());
  t.equal(asked.filter((q) => /^s\d+\.fan\.test /.test(q)).length, 20, 'the first 10 a terms, A and AAAA each');
  t.same(asked.filter((q) => q.includes('._report._dmarc.')).sort(), ['r0', 'r1', 'f0', 'f1'].map((d) => `fan.test._report._dmarc.${d}.ext.test TXT`).sort(), 'the first 2 of rua and of ruf');
  t.ok(asked.length <= 60, `${asked.length} questions`);
  const data = result.data as any;
  t.same([data.mx.hosts.length, data.mx.hosts_asked_max, data.mx.hosts_not_asked, data.mx.ipv4_addresses.length], [10, 10, 590, 10]);
  t.same(data.lookup_failures, [], 'every question asked was answered');
  t.same([data.spf.dns_lookups, data.spf.stopped], [1500, 'dns-lookup-limit']);
  t.same([data.dmarc.rua_verification.length, data.dmarc.report_uris_checked_per_tag, data.dmarc.report_uris_not_checked], [4, 2, 1499]);
  t.same(rows(result).filter((r) => r.rule.startsWith('mx-')), [row('mx-ipv4-redundant', 5, 5, 5), row('mx-ipv6-missing', 1, null, 1)]);
});

t.test('once the signal aborts, nothing more is asked', async (t) => {
  const controller = new AbortController();
  const probes = createProbes(world.guard());
  const asked: string[] = [];
  const watched: Probes = {
    ...probes,
    dns: (name, type) => {
      asked.push(`${name} ${type}`);
      if (name === 'l3.lookups.test') controller.abort(new Error('time is up'));
      return probes.dns(name, type);
    },
  };
  await t.rejects(async () => plugin.run(makeArtifacts('https://lookups.test/'), { probes: watched, signal: controller.signal, now: new Date() }), { message: 'time is up' });
  t.equal(asked.at(-1), 'l3.lookups.test TXT', 'the SPF walk stopped at the question under way');
});

t.test('badnull.test: a lone "." MX of priority 10 is no null MX but an invalid MX entry', async (t) => {
  const asked = world.dns.asked.length;
  const { outcome, result } = await judge('https://badnull.test/');
  t.same(rows(result), [
    row('mx-null-invalid', 1, null, 1),
    row('dnssec-missing', 1, 1, 1),
    row('spf', 5, 5, 5),
    row('spf-hardfail', 5, 5, 5),
    row('dmarc-missing', 1, 1, 1),
  ]);
  // overall 13 / 5 = 2.6; infosec 12 / 4 = 3; standards 13 / 5 = 2.6
  t.equal(outcome.rating, 2.6);
  t.same(outcome.ratings, { infosec: 3, webstandard: 2.6 });
  t.equal((outcome.data as any).receives_mail, 'no');
  t.notOk(world.dns.asked.slice(asked).some((q) => q.startsWith('_mta-sts.') || q.startsWith('badnull.test A')), 'neither MTA-STS nor the domain\'s own address is asked');
});

t.test('MTA-STS: an invalid record stops discovery (RFC 8461 section 3.1); a policy file without a record', async (t) => {
  const mtaRows = (result: PluginResult) => rows(result).filter((r) => /^(mta-sts|tls-rpt)/.test(r.rule));
  const invalid = await judge('https://stsbad.test/');
  t.same(mtaRows(invalid.result), [row('mta-sts-record-invalid', 1, 1, 1), row('mta-sts-policy-missing', 1, 1, 1)], 'no TLS-RPT row: MTA-STS is not in use');
  const data = (invalid.result.data as any).mta_sts;
  t.same([data.record.status, data.record.valid, data.record.id, data.record.problems], ['invalid', false, null, ['id-invalid']]);
  t.same([data.policy.status, data.policy.in_use, data.policy.found, data.policy.valid, data.policy.mode], [200, false, true, false, null], 'the enforcing policy it serves is not read as one');
  t.notMatch(invalid.result.summary ?? '', /enforce/, 'the summary does not say enforce');
  t.same(invalid.result.findings.find((f) => f.rule === 'mta-sts-policy-missing')?.text, {
    sv: 'MTA-STS TXT (policyfilen mta-sts.txt) används inte: https://mta-sts.stsbad.test/.well-known/mta-sts.txt finns, men MTA-STS DNS-post är felaktig, så avsändare hämtar den aldrig',
    en: 'MTA-STS TXT (the policy file mta-sts.txt) is not in use: https://mta-sts.stsbad.test/.well-known/mta-sts.txt is there, but the MTA-STS DNS record is invalid, so senders never fetch it',
  });
  const unused = await judge('https://nosts.test/');
  t.same(mtaRows(unused.result), [row('mta-sts-record-missing', 1, 1, 1), row('mta-sts-policy-missing', 1, 1, 1)], 'rated as a domain without MTA-STS');
  t.equal(invalid.outcome.rating, unused.outcome.rating, 'the invalid record rates as no record at all (the domains differ in nothing else)');
  t.same(invalid.outcome.ratings, unused.outcome.ratings);
  const policy = (unused.result.data as any).mta_sts.policy;
  t.same([policy.status, policy.in_use, policy.found, policy.valid], [200, false, true, false]);
  t.same(unused.result.findings.find((f) => f.rule === 'mta-sts-policy-missing')?.text, {
    sv: 'MTA-STS TXT (policyfilen mta-sts.txt) används inte: https://mta-sts.nosts.test/.well-known/mta-sts.txt finns, men MTA-STS DNS-post saknas, så avsändare hämtar den aldrig',
    en: 'MTA-STS TXT (the policy file mta-sts.txt) is not in use: https://mta-sts.nosts.test/.well-known/mta-sts.txt is there, but the MTA-STS DNS record is missing, so senders never fetch it',
  });
});

t.test('MTA-STS: a policy of 64 KiB is read, one byte more is too large; a certificate for another name', async (t) => {
  const policyRows = (result: PluginResult) => rows(result).filter((r) => r.rule.startsWith('mta-sts-policy'));
  const full = await judge('https://full-policy.test/');
  t.same(policyRows(full.result), [row('mta-sts-policy', 5, 5, 5)]);
  t.same((full.result.data as any).mta_sts.policy.problems, []);
  const big = await judge('https://big-policy.test/');
  t.same(policyRows(big.result), [row('mta-sts-policy-invalid', 2, 1, 1)]);
  t.same([(big.result.data as any).mta_sts.policy.found, (big.result.data as any).mta_sts.policy.problems], [true, ['too-large']]);
  t.ok(reportLines(big.outcome, 'en', 'stand').includes('- MTA-STS TXT (the policy file mta-sts.txt) has an invalid format: it is larger than 64 KiB, so senders ignore it (RFC 8461 section 3.3)'));
  const wrong = await judge('https://wrongname.test/');
  t.same(policyRows(wrong.result), [row('mta-sts-policy-certificate', 1, 1, 1)], 'a certificate problem, not an invalid format');
  const policy = (wrong.result.data as any).mta_sts.policy;
  t.same([policy.certificate_trusted, policy.problems], [false, ['certificate']]);
  t.same(wrong.result.findings.find((f) => f.rule === 'mta-sts-policy-certificate')?.text, {
    sv: 'Certifikatet för mta-sts.wrongname.test godtas inte (ERR_TLS_CERT_ALTNAME_INVALID): avsändare hämtar inte MTA-STS-policyn därifrån (RFC 8461 avsnitt 3.3)',
    en: 'The certificate of mta-sts.wrongname.test is not accepted (ERR_TLS_CERT_ALTNAME_INVALID): senders do not fetch the MTA-STS policy from it (RFC 8461 section 3.3)',
  });
});

t.test('MTA-STS: a policy host the target guard refuses is said to be refused, in both languages', async (t) => {
  const refused = await judge('https://refused.test/');
  t.same(rows(refused.result).filter((r) => r.rule.startsWith('mta-sts-policy')), [row('mta-sts-policy-missing', 1, 1, 1)]);
  const policy = (refused.result.data as any).mta_sts.policy;
  t.same([policy.status, policy.in_use, policy.found], [0, true, false]);
  t.match(policy.error, /10\.1\.2\.3, which is not allowed as a test target/);
  t.same(refused.result.findings.find((f) => f.rule === 'mta-sts-policy-missing')?.text, {
    sv: 'MTA-STS TXT hittades inte: https://mta-sts.refused.test/.well-known/mta-sts.txt gick inte att hämta: adressen är inte tillåten som testmål (en privat, lokal eller intern adress)',
    en: 'MTA-STS TXT not found: https://mta-sts.refused.test/.well-known/mta-sts.txt could not be fetched: the address is not allowed as a test target (a private, local or internal address)',
  });
});

t.test('DMARC: a subdomain under its organisational domain\'s record has the policy sp, else p; nothing between is asked', async (t) => {
  const own = await judge('https://org.test/');
  t.same(rows(own.result).filter((r) => r.rule.startsWith('dmarc-policy') || r.rule.startsWith('dmarc-subpolicy')), [row('dmarc-policy-reject', 5, 5, 5), row('dmarc-subpolicy-none', 3, 1, 5)]);
  t.same([(own.result.data as any).dmarc.policy, (own.result.data as any).dmarc.policy_tag], ['reject', 'p']);

  const { outcome, result } = await judge('https://shop.org.test/');
  t.same(rows(result).filter((r) => r.rule.startsWith('dmarc')), [
    row('dmarc', 5, 5, 5),
    row('dmarc-policy-none', 3, 1, 5),
    row('dmarc-pct', 5, 5, 5),
    row('dmarc-no-errors', 5, null, 5),
    row('dmarc-no-warnings', 5, null, 5),
  ]);
  const data = result.data as any;
  t.same([data.dmarc.found_at, data.dmarc.organisational_domain, data.dmarc.p, data.dmarc.sp, data.dmarc.policy, data.dmarc.policy_tag], ['org.test', 'org.test', 'reject', 'none', 'none', 'sp']);
  t.ok(reportLines(outcome, 'sv', 'sec').includes("- DMARC DNS-post hos org.test använder 'none' för underdomäner (sp), vilket gäller shop.org.test"));
  t.match(outcome.reports.en.overall, /; DMARC sp=none; /);

  const before = world.dns.asked.length;
  const deep = await judge('https://a.b.c.org.test/');
  t.same(world.dns.asked.slice(before).filter((q) => q.startsWith('_dmarc.')), ['_dmarc.a.b.c.org.test TXT', '_dmarc.org.test TXT']);
  t.same([(deep.result.data as any).dmarc.found_at, (deep.result.data as any).dmarc.policy], ['org.test', 'none']);

  const pages = world.dns.asked.length;
  const hosted = await judge('https://kommun.github.io/');
  t.same(world.dns.asked.slice(pages).filter((q) => q.startsWith('_dmarc.')), ['_dmarc.kommun.github.io TXT'], 'github.io is a public suffix: nothing above the site is asked');
  t.same([(hosted.result.data as any).dmarc.status, (hosted.result.data as any).dmarc.organisational_domain], ['missing', 'kommun.github.io']);
});

t.test('not rated when the MX lookup fails or the host is no domain', async (t) => {
  const failed = await judge('https://servfail.test/');
  t.equal(failed.outcome.rating, NOT_RATED);
  t.same(failed.outcome.ratings, {});
  t.match(failed.outcome.reports.en.overall, /^The DNS lookup of the MX records of servfail\.test failed \(MX lookup of servfail\.test failed: SERVFAIL\), so the e-mail could not be judged\.\nNot rated$/);
  const ip = await judge('https://192.0.2.1/');
  t.equal(ip.outcome.rating, NOT_RATED);
  t.same(ip.outcome.data, { domain: '192.0.2.1', error: 'not a domain' });
});

t.test('DNSSEC: signed is told from the records whatever the resolver, validated from its AD flag; the result says which', async (t) => {
  const dnssecRows = (result: PluginResult) => rows(result).filter((r) => r.rule.startsWith('dnssec'));
  for (const name of ['signed.test', 'stripped.test']) {
    const { outcome, result } = await judge(`https://${name}/`);
    t.same(dnssecRows(result), [row('dnssec', 5, 5, 5)], `${name}: signed, rated`);
    const data = (outcome.data as any).dnssec;
    t.same([data.validated, data.signed, data.basis, data.dnskeys], [false, true, 'ds-dnskey', 1], `${name}: the rating rests on the DS and DNSKEY`);
    t.equal(data.authenticated, name === 'signed.test' ? null : false);
    t.same(result.findings.find((f) => f.rule === 'dnssec')?.text, {
      sv: `Domänen är DNSSEC-signerad: ${name} har en DS-post hos sin förälder och en DNSKEY; resolvern validerade inte svaren, så signaturerna själva kontrollerades inte`,
      en: `The domain is DNSSEC-signed: ${name} has a DS record at its parent and a DNSKEY; the resolver did not validate the answers, so the signatures themselves were not checked`,
    });
  }
  const broken = await judge('https://broken.test/');
  t.same(broken.result.findings.find((f) => f.rule === 'dnssec-broken')?.text?.en, 'DNSSEC is broken: the parent holds a DS record for broken.test, but the zone has no DNSKEY, so validating resolvers reject its answers and mail to it may not arrive');
  const unknown = await judge('https://mail.unknown-zone.test/');
  t.same(dnssecRows(unknown.result), [], 'no row when the zone cannot be asked');
  t.ok(unknown.result.findings.some((f) => f.rule === 'dnssec-unknown' && f.severity === 'info'));
  t.same((unknown.outcome.data as any).dnssec, { zone: 'unknown-zone.test', authenticated: false, validated: false, signed: null, basis: null, ds: [], dnskeys: 0 });
});
