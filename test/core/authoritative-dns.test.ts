/**
 * The test world's authoritative DNS (test/helpers/world/authoritative-dns.ts): a root, `test.`
 * and the scenario zones on name servers of their own on loopback port 53. First their answers,
 * asked with dns-packet as a resolver asks them (referrals with glue, AA, NXDOMAIN and NODATA
 * with the SOA, EDNS, DNSSEC only with DO and signatures that verify, TC, AXFR, the misbehaving
 * servers); then the real zonemaster-cli, given the world's root hints, on every scenario: the
 * exact tags at WARNING and above each one yields, the one that tells it apart, and that every
 * query Zonemaster made reached the world's servers.
 */
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import t from 'tap';
import { SCENARIOS, startAuthoritativeDns, type ScenarioName } from '../helpers/world/authoritative-dns.js';
import { compareNames, dsOf, verifyRrsig, type Rr } from '../helpers/world/dnssec-sign.js';
import { pool } from '../helpers/pool.js';

const execFileP = promisify(execFile);
// Asked before any subtest starts: tap ends the file's tests once those it was given are done.
const zonemaster = await execFileP('zonemaster-cli', ['--version']).then(() => true, () => false);

const now = new Date();
const world = await startAuthoritativeDns({ zones: Object.values(SCENARIOS), now });
t.teardown(() => world.close());

const [root, tld] = world.servers;
const ns1 = (scenario: ScenarioName) => world.zoneNs(SCENARIOS[scenario].name)[0].address;
const ns2 = (scenario: ScenarioName) => world.zoneNs(SCENARIOS[scenario].name)[1].address;

/** A decoded message (dns-packet decodes the RCODE, its types leave it out). */
type Message = dnsPacket.DecodedPacket & { rcode: string };

interface Ask {
  /** The DO bit. */
  dnssec?: boolean;
  /** No OPT at all. */
  noEdns?: boolean;
  /** The payload size the query offers (default 1232). */
  size?: number;
  version?: number;
  options?: { code: number; data: Buffer }[];
  tcp?: boolean;
}

function query(name: string, type: string, o: Ask = {}): Buffer {
  const opt = { name: '.', type: 'OPT', udpPayloadSize: o.size ?? 1232, ednsVersion: o.version ?? 0, flags: o.dnssec ? dnsPacket.DNSSEC_OK : 0, options: o.options ?? [] };
  return dnsPacket.encode({
    type: 'query', id: randomId(), flags: 0,
    questions: [{ name, type: type as dnsPacket.RecordType }],
    additionals: o.noEdns ? [] : [opt as unknown as dnsPacket.Answer],
  });
}
const randomId = () => Math.floor(Math.random() * 65536);

/** One question over UDP; rejects after 2 s (no server of the world should ever be silent). */
function udp(address: string, msg: Buffer): Promise<{ packet: Message; size: number }> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no answer from ${address} over UDP`));
    }, 2000);
    socket.on('message', (answer) => {
      clearTimeout(timer);
      socket.close();
      resolve({ packet: dnsPacket.decode(answer) as Message, size: answer.length });
    });
    socket.send(msg, 53, address);
  });
}

/** One question over TCP; every message that answers it (a transfer's several), until the server is done. */
function tcp(address: string, msg: Buffer, transfer = false): Promise<Message[]> {
  return new Promise((resolve, reject) => {
    const out: Message[] = [];
    let soas = 0;
    const socket = net.connect(53, address, () => socket.write(Buffer.concat([Buffer.from([msg.length >> 8, msg.length & 0xff]), msg])));
    socket.setTimeout(2000, () => {
      socket.destroy();
      reject(new Error(`no (whole) answer from ${address} over TCP`));
    });
    socket.on('error', reject);
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const packet = dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))) as Message;
        buf = buf.subarray(2 + buf.readUInt16BE(0));
        out.push(packet);
        soas += (packet.answers ?? []).filter((a) => a.type === 'SOA').length;
        // A transfer ends with its second SOA (RFC 5936 section 2.2), or at once when refused.
        if (!transfer || packet.rcode !== 'NOERROR' || soas >= 2) {
          socket.destroy();
          resolve(out);
        }
      }
    });
  });
}

async function ask(address: string, name: string, type: string, o: Ask = {}): Promise<Message> {
  const msg = query(name, type, o);
  return o.tcp ? (await tcp(address, msg))[0] : (await udp(address, msg)).packet;
}

const opt = (p: dnsPacket.DecodedPacket) => (p.additionals ?? []).find((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
const records = (section: dnsPacket.Answer[] | undefined, type?: string) => (section ?? []).filter((a): a is Rr => a.type !== 'OPT' && (!type || a.type === type));
const brief = (section: dnsPacket.Answer[] | undefined) => records(section).map((a) => `${a.name} ${a.type} ${typeof a.data === 'string' ? a.data : a.type === 'SOA' ? a.data.mname : a.type === 'NS' ? a.data : ''}`.trim());

t.test('the root refers test. to its server with glue, and knows no other top-level name', async (t) => {
  const referral = await ask(root.address, 'www.good.test', 'A');
  t.equal(referral.rcode, 'NOERROR');
  t.notOk(referral.flag_aa, 'a referral is not authoritative');
  t.same(brief(referral.answers), []);
  t.same(brief(referral.authorities), ['test NS a.nic.test']);
  t.same(records(referral.additionals).map((a) => [a.name, a.type, a.data]), [['a.nic.test', 'A', tld.address]]);

  for (const name of ['asnlookup.zonemaster.net', '1.0.0.127.in-addr.arpa', 'example.org']) {
    const nx = await ask(root.address, name, name.endsWith('arpa') ? 'PTR' : 'TXT');
    t.equal(nx.rcode, 'NXDOMAIN', name);
    t.ok(nx.flag_aa, `${name}: authoritative`);
    t.same(brief(nx.authorities), ['. SOA a.root.test'], `${name}: the root's SOA`);
  }
  const hints = await readFile(world.hintsFile, 'utf8');
  t.equal(hints, world.hints);
  t.match(hints, new RegExp(`^\\.\\s+\\d+\\s+IN\\s+NS\\s+a\\.root\\.test\\.$`, 'm'));
  t.match(hints, new RegExp(`^a\\.root\\.test\\.\\s+\\d+\\s+IN\\s+A\\s+${root.address.replaceAll('.', '\\.')}$`, 'm'));
});

t.test('test. refers each zone to its own servers, with glue and without AA', async (t) => {
  const referral = await ask(tld.address, 'www.good.test', 'A');
  t.notOk(referral.flag_aa);
  t.same(brief(referral.authorities), ['good.test NS ns1.good.test', 'good.test NS ns2.good.test']);
  t.same(records(referral.additionals).map((a) => [a.name, a.data]), world.zoneNs('good.test').map((n) => [n.name, n.address]));
  t.not(ns1('good'), ns2('good'), 'each server on an address of its own');
  t.equal(new Set(world.servers.map((s) => s.address)).size, world.servers.length);
  t.ok(world.servers.every((s) => s.address.startsWith('127.53.')));
});

t.test('a zone\'s server: AA, the question as asked, NXDOMAIN and NODATA with the SOA, REFUSED outside its zone', async (t) => {
  const a = await ask(ns1('good'), 'WwW.GoOd.TeSt', 'A');
  t.ok(a.flag_aa);
  t.notOk(a.flag_ra, 'no recursion offered');
  t.equal(a.questions![0].name, 'WwW.GoOd.TeSt', 'the question echoed with its case (0x20)');
  t.same(records(a.answers).map((r) => [r.name, r.type, r.data]), [['www.good.test', 'A', ns1('good')]]);

  const ns = await ask(ns2('good'), 'good.test', 'NS');
  t.same(brief(ns.answers), ['good.test NS ns1.good.test', 'good.test NS ns2.good.test']);
  t.same(records(ns.additionals).map((r) => r.name), ['ns1.good.test', 'ns2.good.test'], 'the servers\' addresses in additional');

  const nx = await ask(ns1('good'), 'nothing.good.test', 'A');
  t.equal(nx.rcode, 'NXDOMAIN');
  t.ok(nx.flag_aa);
  t.same(brief(nx.authorities), ['good.test SOA ns1.good.test']);

  const nodata = await ask(ns1('good'), 'www.good.test', 'AAAA');
  t.equal(nodata.rcode, 'NOERROR');
  t.same(nodata.answers, []);
  t.same(brief(nodata.authorities), ['good.test SOA ns1.good.test']);

  for (const name of ['xn--nameservertest.iis.se', 'test', 'signed.test']) {
    const refused = await ask(ns1('good'), name, 'A');
    t.equal(refused.rcode, 'REFUSED', `${name}: not its zone`);
    t.notOk(refused.flag_aa);
  }
});

t.test('EDNS: the OPT echoed with version 0, DO and the server\'s size; BADVERS for version 1; none without', async (t) => {
  const withOpt = await ask(ns1('good'), 'good.test', 'SOA', { dnssec: true, options: [{ code: 137, data: Buffer.alloc(0) }] });
  t.match(opt(withOpt), { ednsVersion: 0, extendedRcode: 0, udpPayloadSize: 1232, flag_do: true, options: [] }, 'no option of the query echoed');
  const badvers = await ask(ns1('good'), 'good.test', 'SOA', { version: 1 });
  t.equal(badvers.rcode, 'NOERROR', 'the header\'s part of BADVERS (16) is 0');
  t.match(opt(badvers), { extendedRcode: 1, ednsVersion: 0 });
  t.same(badvers.answers, []);
  const plain = await ask(ns1('good'), 'good.test', 'SOA', { noEdns: true });
  t.equal(opt(plain), undefined);
  t.equal(records(plain.answers, 'SOA').length, 1);
});

t.test('DNSSEC: signatures and NSEC only with DO; they verify against the zone\'s keys; the DS in test. is the KSK\'s', async (t) => {
  const keys = records((await ask(ns1('signed'), 'signed.test', 'DNSKEY', { dnssec: true })).answers);
  const dnskeys = keys.filter((r): r is dnsPacket.DnskeyAnswer => r.type === 'DNSKEY');
  t.same(dnskeys.map((k) => k.data.flags).sort(), [256, 257], 'a KSK and a ZSK');
  const ksk = dnskeys.find((k) => k.data.flags === 257)!.data;
  const zsk = dnskeys.find((k) => k.data.flags === 256)!.data;
  const keySig = keys.find((r): r is dnsPacket.RrsigAnswer => r.type === 'RRSIG')!;
  t.ok(verifyRrsig(dnskeys, keySig.data, ksk), 'the DNSKEY RRset is signed by the KSK');

  const unsigned = await ask(ns1('signed'), 'signed.test', 'SOA');
  t.same(records(unsigned.answers).map((r) => r.type), ['SOA'], 'no RRSIG without DO');
  const signed = await ask(ns1('signed'), 'signed.test', 'SOA', { dnssec: true });
  const [soa, sig] = records(signed.answers) as [dnsPacket.SoaAnswer, dnsPacket.RrsigAnswer];
  t.equal(sig.type, 'RRSIG');
  t.ok(verifyRrsig([soa], sig.data, zsk), 'the SOA is signed by the ZSK');
  t.notOk(verifyRrsig([{ ...soa, data: { ...soa.data, serial: soa.data.serial! + 1 } }], sig.data, zsk), 'and the signature is of that SOA');
  const seconds = Math.floor(now.getTime() / 1000);
  t.same([sig.data.inception, sig.data.expiration], [seconds - 3600, seconds + 20 * 86400], 'valid from an hour before now to 20 days after');

  const ds = records((await ask(tld.address, 'signed.test', 'DS')).answers, 'DS') as dnsPacket.DSAnswer[];
  t.same(ds.map((d) => d.data), [dsOf('signed.test', ksk)], 'the parent\'s DS: SHA-256 of the KSK');
  t.same(world.zoneDs('signed.test'), [dsOf('signed.test', ksk)]);

  const nxPlain = await ask(ns1('signed'), 'nothing.signed.test', 'A');
  t.same(records(nxPlain.authorities).map((r) => r.type), ['SOA'], 'no NSEC without DO');
  const nx = await ask(ns1('signed'), 'nothing.signed.test', 'A', { dnssec: true });
  t.equal(nx.rcode, 'NXDOMAIN');
  const nsecs = records(nx.authorities, 'NSEC') as dnsPacket.NsecAnswer[];
  t.ok(nsecs.length >= 1);
  const covering = nsecs.find((n) => compareNames(n.name, 'nothing.signed.test') < 0 && (compareNames('nothing.signed.test', n.data.nextDomain) < 0 || n.data.nextDomain === 'signed.test'));
  t.ok(covering, 'an NSEC covers the name');
  const nsecSig = records(nx.authorities, 'RRSIG').find((r) => r.name === covering!.name && (r as dnsPacket.RrsigAnswer).data.typeCovered === 'NSEC') as dnsPacket.RrsigAnswer;
  t.ok(verifyRrsig([covering!], nsecSig.data, zsk), 'and its signature verifies');

  const nodata = await ask(ns1('signed'), 'www.signed.test', 'AAAA', { dnssec: true });
  const [own] = records(nodata.authorities, 'NSEC') as dnsPacket.NsecAnswer[];
  t.equal(own.name, 'www.signed.test', 'NODATA: the name\'s own NSEC');
  t.same([...own.data.rrtypes].sort(), ['A', 'NSEC', 'RRSIG']);

  const mismatch = await ask(tld.address, 'dsmismatch.test', 'DS');
  const mismatchKeys = records((await ask(ns1('dsmismatch'), 'dsmismatch.test', 'DNSKEY')).answers) as dnsPacket.DnskeyAnswer[];
  const [mismatchDs] = records(mismatch.answers, 'DS') as dnsPacket.DSAnswer[];
  t.notOk(mismatchKeys.some((k) => dsOf('dsmismatch.test', k.data).digest.equals(mismatchDs.data.digest)), 'dsmismatch.test: the DS is of no key the zone has');
  const expired = records((await ask(ns1('expired'), 'expired.test', 'SOA', { dnssec: true })).answers, 'RRSIG') as dnsPacket.RrsigAnswer[];
  t.ok(expired[0].data.expiration < seconds, 'expired.test: the signatures expired');
});

t.test('over UDP an answer larger than the query offers is truncated (OPT kept); over TCP it comes whole', async (t) => {
  const big = await udp(ns1('signed'), query('signed.test', 'ANY', { dnssec: true, size: 512 }));
  t.ok(big.packet.flag_tc, 'TC');
  t.ok(big.size <= 512);
  t.same(big.packet.answers, []);
  t.ok(opt(big.packet), 'the OPT stays in a truncated answer');
  const whole = await ask(ns1('signed'), 'signed.test', 'ANY', { dnssec: true, size: 512, tcp: true });
  t.notOk(whole.flag_tc);
  t.ok(records(whole.answers, 'RRSIG').length >= 5, 'every RRset with its signature');
  const roomy = await udp(ns1('signed'), query('signed.test', 'ANY', { dnssec: true, size: 4096 }));
  t.notOk(roomy.packet.flag_tc, 'it fits in the 1232 bytes the server offers');
});

t.test('AXFR: over TCP for a zone that allows it; REFUSED otherwise and over UDP', async (t) => {
  const transfer = await tcp(ns2('axfr'), query('axfr.test', 'AXFR', { noEdns: true }), true);
  const all = transfer.flatMap((p) => records(p.answers));
  t.equal(all[0].type, 'SOA');
  t.equal(all.at(-1)!.type, 'SOA');
  t.ok(all.every((r) => r.name === 'axfr.test' || r.name.endsWith('.axfr.test')));
  t.same(all.filter((r) => r.type === 'A').map((r) => r.name).sort(), ['axfr.test', 'mail.axfr.test', 'ns1.axfr.test', 'ns2.axfr.test', 'www.axfr.test']);
  t.ok(transfer.every((p) => p.flag_aa && p.rcode === 'NOERROR'));

  const refused = await tcp(ns1('good'), query('good.test', 'AXFR', { noEdns: true }), true);
  t.same(refused.map((p) => [p.rcode, p.answers!.length]), [['REFUSED', 0]]);
  const overUdp = await ask(ns1('axfr'), 'axfr.test', 'AXFR', { noEdns: true });
  t.equal(overUdp.rcode, 'REFUSED');
});

t.test('misbehaving servers: a lame one refuses at once; a recursor offers recursion', async (t) => {
  const lame = await ask(ns2('lame'), 'lame.test', 'SOA');
  t.equal(lame.rcode, 'REFUSED');
  t.notOk(lame.flag_aa);
  t.equal((await ask(ns1('lame'), 'lame.test', 'SOA')).rcode, 'NOERROR', 'its peer serves the zone');

  const recursive = await ask(ns2('recursor'), 'xn--nameservertest.iis.se', 'A');
  t.ok(recursive.flag_ra);
  t.equal(recursive.rcode, 'NXDOMAIN');
  const own = await ask(ns2('recursor'), 'recursor.test', 'SOA');
  t.ok(own.flag_aa && own.flag_ra, 'its own zone: authoritative, RA set all the same');

  const serials = await Promise.all([ns1('serial'), ns2('serial')].map(async (address) => (records((await ask(address, 'serial.test', 'SOA')).answers)[0] as dnsPacket.SoaAnswer).data.serial));
  t.same(serials, [2024010205, 2024010101]);
});

t.test('the records a resolver would give for the zones', async (t) => {
  const rr = world.resolverRecords();
  t.same(rr.get('good.test'), { NS: ['ns1.good.test', 'ns2.good.test'], A: [ns1('good')], MX: [{ exchange: 'mail.good.test', priority: 10 }] });
  t.same(rr.get('ns2.good.test'), { A: [ns2('good')] });
  t.match(rr.get('signed.test'), { dnssec: 'validated', DS: [{ digestType: 2 }] });
  t.match(rr.get('expired.test'), { dnssec: 'bogus' });
});

// zonemaster-cli, as the DNS test runs it.


interface ZonemasterEntry { level: string; module: string; testcase: string; tag: string; args?: Record<string, unknown> }

async function runZonemaster(zone: string, level = 'INFO'): Promise<{ entries: ZonemasterEntry[]; ms: number }> {
  const started = performance.now();
  const { stdout } = await execFileP('zonemaster-cli', ['--json', '--raw', `--level=${level}`, '--show-testcase', '--no-ipv6', '--hints', world.hintsFile, zone], { maxBuffer: 16 << 20 });
  return { entries: JSON.parse(stdout) as ZonemasterEntry[], ms: performance.now() - started };
}


/** What loopback addresses cannot help: private (127/8) addresses, no reverse DNS (the world's root has no arpa.). */
const LOOPBACK = ['ERROR ADDRESS ADDRESS01 NAMESERVER_IP_PRIVATE_NETWORK', 'WARNING ADDRESS ADDRESS02 NAMESERVER_IP_WITHOUT_REVERSE'];
const LAME = [
  'ERROR BASIC BASIC02 NS_FAILED',
  'WARNING CONNECTIVITY CONNECTIVITY01 CN01_UNEXPECTED_RCODE_NS_QUERY_UDP',
  'WARNING CONNECTIVITY CONNECTIVITY01 CN01_UNEXPECTED_RCODE_SOA_QUERY_UDP',
  'WARNING CONNECTIVITY CONNECTIVITY02 CN02_UNEXPECTED_RCODE_NS_QUERY_TCP',
  'WARNING CONNECTIVITY CONNECTIVITY02 CN02_UNEXPECTED_RCODE_SOA_QUERY_TCP',
  'WARNING DELEGATION DELEGATION04 IS_NOT_AUTHORITATIVE',
  'WARNING DELEGATION DELEGATION05 UNEXPECTED_RCODE',
  'WARNING NAMESERVER NAMESERVER02 NS_ERROR',
  'WARNING NAMESERVER NAMESERVER05 A_UNEXPECTED_RCODE',
  'WARNING NAMESERVER NAMESERVER12 NS_ERROR',
  'WARNING NAMESERVER NAMESERVER13 NS_ERROR',
];
const EXPIRED = [
  'WARNING DNSSEC DNSSEC02 DS02_NO_MATCHING_DNSKEY_RRSIG',
  'ERROR DNSSEC DNSSEC02 DS02_RRSIG_NOT_VALID_BY_DNSKEY',
  'ERROR DNSSEC DNSSEC02 DS02_DNSKEY_NOT_SIGNED_BY_ANY_DS',
  'ERROR DNSSEC DNSSEC04 RRSIG_EXPIRED',
  'ERROR DNSSEC DNSSEC08 DS08_DNSKEY_RRSIG_EXPIRED',
  'ERROR DNSSEC DNSSEC09 DS09_SOA_RRSIG_EXPIRED',
  'ERROR DNSSEC DNSSEC10 DS10_NSEC_RRSIG_VERIFY_ERROR',
];

/** Per scenario: every tag at WARNING and above (level, module, test case, tag), and the tag that tells it apart (at any level). */
const EXPECTED: Record<ScenarioName, { warnings: string[]; telling?: string }> = {
  good: { warnings: LOOPBACK },
  signed: { warnings: LOOPBACK },
  lame: { warnings: [...LOOPBACK, ...LAME], telling: 'WARNING DELEGATION DELEGATION04 IS_NOT_AUTHORITATIVE' },
  serial: { warnings: [...LOOPBACK, 'WARNING CONSISTENCY CONSISTENCY01 MULTIPLE_SOA_SERIALS'], telling: 'WARNING CONSISTENCY CONSISTENCY01 MULTIPLE_SOA_SERIALS' },
  recursor: { warnings: [...LOOPBACK, 'ERROR NAMESERVER NAMESERVER01 IS_A_RECURSOR'], telling: 'ERROR NAMESERVER NAMESERVER01 IS_A_RECURSOR' },
  axfr: { warnings: LOOPBACK, telling: 'NOTICE NAMESERVER NAMESERVER03 AXFR_AVAILABLE' },
  dsmismatch: {
    warnings: [...LOOPBACK, 'WARNING DNSSEC DNSSEC02 DS02_NO_DNSKEY_FOR_DS', 'ERROR DNSSEC DNSSEC02 DS02_NO_VALID_DNSKEY_FOR_ANY_DS'],
    telling: 'ERROR DNSSEC DNSSEC02 DS02_NO_VALID_DNSKEY_FOR_ANY_DS',
  },
  expired: { warnings: [...LOOPBACK, ...EXPIRED], telling: 'ERROR DNSSEC DNSSEC04 RRSIG_EXPIRED' },
};

const key = (e: ZonemasterEntry) => `${e.level} ${e.module} ${e.testcase} ${e.tag}`;
const SEVERE = new Set(['CRITICAL', 'ERROR', 'WARNING']);

t.test('zonemaster-cli on every scenario, from the world\'s root hints', { skip: !zonemaster && 'zonemaster-cli is not installed (Debian: apt-get install zonemaster-cli)' }, async (t) => {
  const scenarios = Object.keys(SCENARIOS) as ScenarioName[];
  // And once more at DEBUG, whose log names every server Zonemaster asked.
  const runs = await pool([...scenarios.map((s) => [s, 'INFO'] as const), ['signed', 'DEBUG'] as const], 3, ([s, level]) => runZonemaster(SCENARIOS[s].name, level));
  const byScenario = new Map(scenarios.map((s, i) => [s, runs[i]]));
  t.comment(`zonemaster-cli run times: ${[...byScenario].map(([s, r]) => `${s} ${(r.ms / 1000).toFixed(2)} s`).join(', ')}; signed at DEBUG ${(runs.at(-1)!.ms / 1000).toFixed(2)} s`);

  for (const [scenario, { entries, ms }] of byScenario) {
    const keys = new Set(entries.map(key));
    t.same([...new Set(entries.filter((e) => SEVERE.has(e.level)).map(key))].sort(), [...EXPECTED[scenario].warnings].sort(), `${scenario}: the tags at WARNING and above`);
    const telling = EXPECTED[scenario].telling;
    if (telling) {
      t.ok(keys.has(telling), `${scenario}: ${telling}`);
      for (const healthy of ['good', 'signed'] as const) t.notOk(byScenario.get(healthy)!.entries.some((e) => key(e) === telling), `… and not for ${healthy}`);
    }
    // A query left unanswered costs Zonemaster 5 s or more (its resolver's timeout); a run takes under 1 s alone, 3 s beside 8 others on 2 cores.
    t.ok(ms < 15_000, `${scenario}: no query waited for a timeout (${Math.round(ms)} ms)`);
  }
  t.ok(byScenario.get('signed')!.entries.some((e) => e.tag === 'DS10_HAS_NSEC'), 'signed: Zonemaster found the NSEC chain');

  // Every query Zonemaster made went to a server of the world, and was answered there.
  const debug = runs.at(-1)!.entries.filter((e) => e.tag === 'EXTERNAL_QUERY').map((e) => e.args as { ip: string; name: string; type: string });
  t.ok(debug.length > 50, `Zonemaster's log lists its queries (${debug.length})`);
  const addresses = new Set(world.servers.map((s) => s.address));
  t.same(debug.filter((q) => !addresses.has(q.ip)), [], 'none to an address outside the world');
  const norm = (name: string) => name.toLowerCase().replace(/\.$/, '') || '.';
  const seen = new Set(world.queries.map((q) => `${q.address} ${norm(q.qname)} ${q.qtype}`));
  t.same(debug.filter((q) => !seen.has(`${q.ip} ${norm(q.name)} ${q.type}`)), [], 'each one in the servers\' log');
});
