/**
 * The record lookup (core/net/dns-records.ts) against a scripted DNS server on 127.0.0.1 (UDP, and
 * TCP on the same port for the Resolver's fallback): what the world's DNS server never sends —
 * compression pointers, a truncated answer cut inside a record (the world's server truncates
 * cleanly, with no records: test/plugins/email.test.ts, verified.test), FORMERR without a question, a stray
 * datagram before the answer, a malformed answer.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import t from 'tap';
import { recordLookup } from '../../core/net/dns-records.js';
import { onOnePort } from '../helpers/world/one-port.js';

type Query = dnsPacket.DecodedPacket;
/** The datagrams (UDP) or the message (TCP) that answer `query`, at once or later. */
type Script = (query: Query, transport: 'udp' | 'tcp') => Buffer[] | Promise<Buffer[]>;

const withDo = (q: Query) => (q.additionals ?? []).some((a) => a.type === 'OPT' && (a as dnsPacket.OptAnswer).flag_do);

function response(q: Query, extra: Partial<dnsPacket.Packet> & { rcode?: number } = {}): Buffer {
  const { rcode = 0, flags = 0, ...rest } = extra;
  return dnsPacket.encode({ type: 'response', id: q.id, flags: flags | dnsPacket.RECURSION_DESIRED | rcode, questions: q.questions, ...rest });
}

async function server(script: Script) {
  const onUdp = (udp: dgram.Socket) => async (msg: Buffer, from: dgram.RemoteInfo) => {
    for (const out of await script(dnsPacket.decode(msg), 'udp')) udp.send(out, from.port, from.address);
  };
  const tcpServer = () =>
    net.createServer((socket) => {
      let buf = Buffer.alloc(0);
      socket.on('data', async (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
          buf = buf.subarray(2 + msg.length);
          for (const out of await script(dnsPacket.decode(msg), 'tcp')) socket.write(Buffer.concat([Buffer.from([out.length >> 8, out.length & 0xff]), out]));
        }
      });
      socket.on('error', () => {});
    });
  // UDP and TCP on one port number, as a DNS server has them.
  const { udp, tcp, port } = await onOnePort(() => {
    const udp = dgram.createSocket('udp4');
    udp.on('message', onUdp(udp));
    return udp;
  }, tcpServer);
  t.teardown(() => {
    udp.close();
    tcp.close();
  });
  return recordLookup([`127.0.0.1:${port}`], { timeoutMs: 500, tries: 1 });
}

/** An RRSIG record over `typeCovered` (the signature bytes are filler). */
const rrsig = (name: string, typeCovered: string): dnsPacket.Answer =>
  ({ type: 'RRSIG', name, data: { typeCovered, algorithm: 13, labels: name.split('.').length, originalTTL: 60, expiration: 1, inception: 0, keyTag: 1, signersName: 'example.test', signature: Buffer.alloc(8) } });
const soa = (name: string): dnsPacket.Answer =>
  ({ type: 'SOA', name, data: { mname: 'ns.example.test', rname: 'hostmaster.example.test', serial: 1, refresh: 60, retry: 60, expire: 60, minimum: 60 } });

t.test('MX with compression pointers, a null MX and upper case; the AD flag', async (t) => {
  const lookup = await server((q) => {
    // Header and question from dns-packet, then two MX records written by hand: owner and
    // exchange are pointers to the question's name (offset 12).
    const head = Buffer.from(response(q, { flags: dnsPacket.AUTHENTIC_DATA }));
    head.writeUInt16BE(3, 6);
    const mx = (pref: number, exchange: Buffer) => {
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0);
      fixed.writeUInt16BE(15, 2);
      fixed.writeUInt16BE(1, 4);
      fixed.writeUInt32BE(60, 6);
      fixed.writeUInt16BE(2 + exchange.length, 10);
      return Buffer.concat([fixed, Buffer.from([pref >> 8, pref & 0xff]), exchange]);
    };
    return [Buffer.concat([head, mx(20, Buffer.from([3, ...Buffer.from('MX2'), 0xc0, 0x0c])), mx(10, Buffer.from([3, ...Buffer.from('mx1'), 0xc0, 0x0c])), mx(30, Buffer.from([0]))])];
  });
  t.same(await lookup('Example.TEST.', 'MX'), {
    name: 'example.test',
    type: 'MX',
    authenticated: true,
    status: 'ok',
    records: ['mx1.example.test', 'mx2.example.test', '.'],
    mx: [
      { priority: 10, exchange: 'mx1.example.test' },
      { priority: 20, exchange: 'mx2.example.test' },
      { priority: 30, exchange: '.' },
    ],
  });
});

t.test('TXT strings joined; AAAA in RFC 5952 form; RRSIG without AD: null; neither: false', async (t) => {
  const lookup = await server((q) => {
    const name = q.questions![0].name;
    if (q.questions![0].type === 'TXT') {
      return [response(q, { answers: [
        { type: 'TXT', name, data: [Buffer.from('v=spf1 '), Buffer.from('-all')] },
        { type: 'RRSIG', name, data: { typeCovered: 'TXT', algorithm: 13, labels: 2, originalTTL: 60, expiration: 1, inception: 0, keyTag: 1, signersName: name, signature: Buffer.alloc(8) } },
      ] })];
    }
    return [response(q, { answers: [{ type: 'AAAA', name, data: '2001:db8:0:0:1:0:0:1' }] })];
  });
  const txt = await lookup('example.test', 'TXT');
  t.same([txt.status, txt.records, txt.authenticated], ['ok', ['v=spf1 -all'], null]);
  const aaaa = await lookup('example.test', 'AAAA');
  t.same([aaaa.status, aaaa.records, aaaa.authenticated], ['ok', ['2001:db8::1:0:0:1'], false]);
});

t.test('a stray datagram (other id, other question) is passed over; NXDOMAIN, NODATA, SERVFAIL', async (t) => {
  const lookup = await server((q) => {
    const name = q.questions![0].name;
    const real = name.startsWith('gone') ? response(q, { rcode: 3 }) : name.startsWith('broken') ? response(q, { rcode: 2 }) : response(q);
    return [
      Buffer.from([0, 1, 2]),
      dnsPacket.encode({ type: 'response', id: (q.id! + 1) & 0xffff, questions: q.questions }),
      dnsPacket.encode({ type: 'response', id: q.id, questions: [{ type: 'A', name: 'other.test' }] }),
      real,
    ];
  });
  t.same(await lookup('gone.test', 'A'), { name: 'gone.test', type: 'A', authenticated: false, status: 'nxdomain', records: [] });
  t.same(await lookup('empty.test', 'A'), { name: 'empty.test', type: 'A', authenticated: false, status: 'ok', records: [] });
  t.same(await lookup('broken.test', 'A'), { name: 'broken.test', type: 'A', authenticated: null, status: 'error', records: [], error: 'A lookup of broken.test failed: SERVFAIL' });
});

t.test('a truncated answer cut inside a record is asked again over TCP, its AD flag kept', async (t) => {
  const lookup = await server((q, transport) => {
    const name = q.questions![0].name;
    const full = response(q, { flags: dnsPacket.AUTHENTIC_DATA, answers: [{ type: 'A', name, data: '192.0.2.1' }, { type: 'A', name, data: '192.0.2.2' }] });
    if (transport === 'tcp') return [full];
    // c-ares (no DO bit) rejects a cut datagram: it gets a truncated answer with no records.
    if (!withDo(q)) return [response(q, { flags: dnsPacket.TRUNCATED_RESPONSE })];
    const cut = Buffer.from(full.subarray(0, full.length - 6));
    cut.writeUInt16BE(cut.readUInt16BE(2) | dnsPacket.TRUNCATED_RESPONSE, 2);
    return [cut];
  });
  t.same(await lookup('big.test', 'A'), { name: 'big.test', type: 'A', status: 'ok', records: ['192.0.2.1', '192.0.2.2'], authenticated: true });
});

t.test('FORMERR without a question (no EDNS) is asked again through the Resolver; a malformed answer is an error', async (t) => {
  const lookup = await server((q) => {
    const name = q.questions![0].name;
    if (name === 'old.test') {
      if (withDo(q)) return [dnsPacket.encode({ type: 'response', id: q.id, flags: 1 })];
      return [response(q, { answers: [{ type: 'A', name, data: '192.0.2.9' }] })];
    }
    const full = response(q, { answers: [{ type: 'MX', name, data: { preference: 1, exchange: 'mx.test' } }] });
    return [full.subarray(0, full.length - 3)];
  });
  t.same(await lookup('old.test', 'A'), { name: 'old.test', type: 'A', status: 'ok', records: ['192.0.2.9'], authenticated: null });
  const bad = await lookup('bad.test', 'MX');
  t.same([bad.status, bad.authenticated, bad.mx], ['error', null, []]);
  t.match(bad.error, /^MX lookup of bad\.test failed: the answer is malformed/);
});

t.test('a denial signed in the authority section without AD: could not tell (null), not unsigned', async (t) => {
  const lookup = await server((q) => {
    const name = q.questions![0].name;
    // NODATA (RFC 2308): NOERROR, no answer, the zone's SOA in the authority section, here with
    // the RRSIGs a signed zone sends beside it (RFC 4035 section 3.1.3) and no AD flag.
    if (name === 'signed.example.test') return [response(q, { authorities: [soa('example.test'), rrsig('example.test', 'SOA'), { type: 'NSEC', name, data: { nextDomain: 'z.example.test', rrtypes: ['A', 'RRSIG', 'NSEC'] } }, rrsig(name, 'NSEC')] })];
    if (name === 'gone.example.test') return [response(q, { rcode: 3, authorities: [soa('example.test'), rrsig('example.test', 'SOA')] })];
    if (name === 'valid.example.test') return [response(q, { flags: dnsPacket.AUTHENTIC_DATA, authorities: [soa('example.test'), rrsig('example.test', 'SOA')] })];
    return [response(q, { authorities: [soa('example.test')] })];
  });
  t.same(await lookup('signed.example.test', 'MX'), { name: 'signed.example.test', type: 'MX', authenticated: null, status: 'ok', records: [], mx: [] });
  t.same(await lookup('gone.example.test', 'MX'), { name: 'gone.example.test', type: 'MX', authenticated: null, status: 'nxdomain', records: [], mx: [] });
  t.same(await lookup('valid.example.test', 'MX'), { name: 'valid.example.test', type: 'MX', authenticated: true, status: 'ok', records: [], mx: [] });
  t.same(await lookup('unsigned.example.test', 'MX'), { name: 'unsigned.example.test', type: 'MX', authenticated: false, status: 'ok', records: [], mx: [] }, 'an SOA without signatures: unsigned');
});

t.test('at most 8 questions of one lookup function are out at once; the rest wait their turn', async (t) => {
  let out = 0;
  let most = 0;
  const lookup = await server(async (q) => {
    out++;
    most = Math.max(most, out);
    await new Promise((resolve) => setTimeout(resolve, 20));
    out--;
    return [response(q, { answers: [{ type: 'A', name: q.questions![0].name, data: '192.0.2.1' }] })];
  });
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => lookup(`h${i}.example.test`, 'A')));
  t.same(answers.map((a) => a.status), Array(40).fill('ok'), 'every question answered');
  t.equal(most, 8);
});
