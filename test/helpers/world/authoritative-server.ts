/**
 * One authoritative name server of the test world: UDP and TCP on port 53 of a loopback address
 * of its own (127.53.0.0/16, chosen at random and retried when taken, so that test files running
 * at once never meet), serving the zones it is given as a real one does: AA for its zones,
 * referrals for their delegations, REFUSED for names outside them (never NXDOMAIN, which would
 * make it look like a resolver), EDNS(0) (RFC 6891: the OPT echoed with version 0 and the DO bit,
 * no option of the query's echoed, Z cleared, BADVERS for a version above 0, FORMERR for two
 * OPTs), the query's name echoed as asked (case and all, as DNS 0x20 relies on), TC over UDP
 * when an answer exceeds the size the query offers (512 without EDNS; it offers 1232 itself, the
 * 2020 DNS flag day's size), TCP with the 2-byte length prefix (RFC 7766, several queries per
 * connection), AXFR over TCP only and only for a zone that allows it (else REFUSED), NOTIMP for
 * other opcodes. It logs every question it is asked.
 *
 * Behaviours of broken servers: `lame` (it has no zone: REFUSED to everything, at once, so that
 * no client waits for a timeout), `recursor` (an open resolver besides: RA set, names outside its
 * zones answered NXDOMAIN as a resolver would answer the names Zonemaster tries).
 */
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { normName, parentOf, type Zone } from './dns-zone.js';
import type { Rr } from './dnssec-sign.js';

/** One question as a server saw it. */
export interface DnsQueryLog {
  /** The server's name (`ns1.good.test`) and address. */
  server: string;
  address: string;
  transport: 'udp' | 'tcp';
  /** As asked (case kept). */
  qname: string;
  qtype: string;
  /** The query's DO bit. */
  dnssecOk: boolean;
  rcode: string;
}

export interface ServerOptions {
  /** The server's host name, for the log. */
  name: string;
  zones: Zone[];
  /** Apexes of zones that may be transferred (AXFR). */
  axfr?: ReadonlySet<string>;
  /** REFUSED to every query: a lame server. */
  lame?: boolean;
  /** An open resolver besides: RA on every answer, NXDOMAIN for names outside its zones. */
  recursor?: boolean;
  /** Where its questions are logged. */
  log: DnsQueryLog[];
}

export interface AuthoritativeServer {
  name: string;
  address: string;
  close(): Promise<void>;
}

/** Where the world's name servers live: 127.53.0.0/16 (the web hosts are in 127.16.0.0/12). */
const SERVER_RANGE = () => `127.53.${randomInt(0, 256)}.${randomInt(1, 255)}`;
/** The UDP payload size the servers offer (RFC 6891 section 6.2.5; the 2020 DNS flag day's value). */
const UDP_PAYLOAD = 1232;
/** About this much per message of a zone transfer. */
const AXFR_CHUNK = 16_000;

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
type Rcode = keyof typeof RCODE;
/** BADVERS (16): 1 in the OPT's extended RCODE, 0 in the header (RFC 6891 section 6.1.3). */
const BADVERS_EXTENDED = 1;

const LOW_PORT_HINT = 'The test world\'s name servers listen on port 53 of loopback addresses, which needs root or CAP_NET_BIND_SERVICE ' +
  '(run as root, in `unshare -rn`, or with net.ipv4.ip_unprivileged_port_start=53).';

interface Reply {
  rcode: Rcode;
  extendedRcode?: number;
  aa?: boolean;
  answers?: Rr[];
  authorities?: Rr[];
  additionals?: Rr[];
}

/** Builds the messages that answer one query message; none for what deserves no answer. */
function answerer(options: ServerOptions) {
  const { zones, lame = false, recursor = false, axfr = new Set<string>() } = options;

  /** The zone that holds `qname`: the deepest, but the parent for a DS at a child's apex it also holds. */
  function zoneFor(qname: string, qtype: string): Zone | undefined {
    const zone = deepest(qname);
    if (zone && qtype === 'DS' && zone.apex === qname && qname !== '.') return deepest(parentOf(qname)) ?? zone;
    return zone;
  }
  function deepest(qname: string): Zone | undefined {
    for (let name = qname; ; name = parentOf(name)) {
      // The zones are few, and may be handed over after the server starts.
      const zone = zones.find((z) => z.apex === name);
      if (zone) return zone;
      if (name === '.') return undefined;
    }
  }

  type Answered = { messages: Buffer[]; log?: Omit<DnsQueryLog, 'server' | 'address' | 'transport'> };
  return (msg: Buffer, transport: 'udp' | 'tcp'): Answered => {
    if (msg.length < 12) return { messages: [] };
    try {
      return answer(msg, transport);
    } catch {
      // A question the encoder cannot write back: SERVFAIL rather than a server gone.
      return { messages: [encode(msg.readUInt16BE(0), msg.readUInt16BE(2), [], null, { rcode: 'SERVFAIL' })] };
    }
  };

  function answer(msg: Buffer, transport: 'udp' | 'tcp'): Answered {
    const flags = msg.readUInt16BE(2);
    if (flags & 0x8000) return { messages: [] }; // a response: never answered
    const opcode = (flags >> 11) & 0xf;
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return { messages: [encode(msg.readUInt16BE(0), flags, [], null, { rcode: 'FORMERR' })] };
    }
    const opts = (query.additionals ?? []).filter((r): r is dnsPacket.OptAnswer => r.type === 'OPT');
    const opt = opts.length === 1 ? opts[0] : null;
    const questions = query.questions ?? [];
    const dnssecOk = !!opt?.flag_do;
    const reply = (r: Reply) => [encode(query.id ?? 0, flags, questions, opt, { ...r, ra: recursor }, transport === 'udp' ? udpLimit(opt) : 65535)];
    if (opcode !== 0) return { messages: reply({ rcode: 'NOTIMP' }) };
    if (questions.length !== 1 || opts.length > 1) return { messages: reply({ rcode: 'FORMERR' }) };
    const [question] = questions;
    const log = (rcode: string) => ({ qname: question.name, qtype: question.type, dnssecOk, rcode });
    if (opt && opt.ednsVersion > 0) return { messages: reply({ rcode: 'NOERROR', extendedRcode: BADVERS_EXTENDED }), log: log('BADVERS') };
    const qname = normName(question.name);
    const qtype = question.type;
    const zone = question.class === 'IN' && !lame ? zoneFor(qname, qtype) : undefined;
    if (!zone) {
      // An open resolver answers every name; for the names Zonemaster asks that is NXDOMAIN.
      const rcode: Rcode = recursor && !lame && question.class === 'IN' ? 'NXDOMAIN' : 'REFUSED';
      return { messages: reply({ rcode }), log: log(rcode) };
    }
    if (qtype === 'AXFR' || qtype === 'IXFR') {
      if (qtype === 'IXFR' || transport !== 'tcp' || qname !== zone.apex || !axfr.has(zone.apex)) return { messages: reply({ rcode: 'REFUSED' }), log: log('REFUSED') };
      return { messages: transfer(query.id ?? 0, flags, questions, opt, zone.transfer()), log: log('NOERROR') };
    }
    const found = zone.lookup(qname, qtype, dnssecOk);
    return { messages: reply(found), log: log(found.rcode) };
  }
}

/** The most a UDP answer may hold: what the query offers (at least 512), at most what this server offers. */
function udpLimit(opt: dnsPacket.OptAnswer | null): number {
  return opt ? Math.min(Math.max(opt.udpPayloadSize, 512), UDP_PAYLOAD) : 512;
}

/** One response message; truncated (TC, the question and OPT only) when larger than `limit`. */
function encode(
  id: number,
  queryFlags: number,
  questions: dnsPacket.Question[],
  opt: dnsPacket.OptAnswer | null,
  reply: Reply & { ra?: boolean },
  limit = 65535,
): Buffer {
  // Opcode, RD and CD are the query's (RFC 1035 section 4.1.1, RFC 4035 section 3.1.6).
  const copied = queryFlags & (0x7800 | dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED);
  const base = copied | (reply.aa ? dnsPacket.AUTHORITATIVE_ANSWER : 0) | (reply.ra ? dnsPacket.RECURSION_AVAILABLE : 0) | RCODE[reply.rcode];
  const additionals: dnsPacket.Answer[] = [...(reply.additionals ?? [])];
  const optOut = (): dnsPacket.Answer[] => opt
    ? [{ name: '.', type: 'OPT', udpPayloadSize: UDP_PAYLOAD, extendedRcode: reply.extendedRcode ?? 0, ednsVersion: 0, flags: opt.flag_do ? dnsPacket.DNSSEC_OK : 0, flag_do: opt.flag_do, options: [] }]
    : [];
  const full = dnsPacket.encode({
    type: 'response', id, flags: base, questions,
    answers: reply.answers ?? [], authorities: reply.authorities ?? [], additionals: [...additionals, ...optOut()],
  });
  if (full.length <= limit) return full;
  return dnsPacket.encode({ type: 'response', id, flags: base | dnsPacket.TRUNCATED_RESPONSE, questions, additionals: optOut() });
}

/** A zone transfer's messages (RFC 5936 section 2.2): the records in order, several per message. */
function transfer(id: number, queryFlags: number, questions: dnsPacket.Question[], opt: dnsPacket.OptAnswer | null, records: Rr[]): Buffer[] {
  const messages: Buffer[] = [];
  let batch: Rr[] = [];
  let size = 0;
  const flush = () => {
    messages.push(encode(id, queryFlags, messages.length ? [] : questions, opt, { rcode: 'NOERROR', aa: true, answers: batch }));
    batch = [];
    size = 0;
  };
  for (const rr of records) {
    const length = dnsPacket.encodingLength({ answers: [rr] }) - 12;
    if (size + length > AXFR_CHUNK && batch.length) flush();
    batch.push(rr);
    size += length;
  }
  if (batch.length) flush();
  return messages;
}

/** Starts a server on a free address of 127.53.0.0/16, port 53, UDP and TCP. */
export async function startAuthoritativeServer(options: ServerOptions): Promise<AuthoritativeServer> {
  const answer = answerer(options);
  const record = (address: string, transport: 'udp' | 'tcp', log?: Omit<DnsQueryLog, 'server' | 'address' | 'transport'>) => {
    if (log) options.log.push({ server: options.name, address, transport, ...log });
  };
  const sockets = new Set<net.Socket>();

  for (let attempt = 0; ; attempt++) {
    const address = SERVER_RANGE();
    const udp = dgram.createSocket('udp4');
    udp.on('message', (msg, from) => {
      const { messages, log } = answer(msg, 'udp');
      record(address, 'udp', log);
      for (const out of messages) udp.send(out, from.port, from.address);
    });
    const tcp = net.createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      // A client that keeps a connection idle is let go (RFC 7766 section 6.2.3).
      socket.setTimeout(10_000, () => socket.destroy());
      let buf = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
          buf = buf.subarray(2 + msg.length);
          const { messages, log } = answer(msg, 'tcp');
          record(address, 'tcp', log);
          for (const out of messages) socket.write(Buffer.concat([Buffer.from([out.length >> 8, out.length & 0xff]), out]));
        }
      });
    });
    try {
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind({ address, port: 53, exclusive: true }, () => {
          udp.off('error', reject);
          resolve();
        });
      });
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(53, address, () => {
          tcp.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      try {
        udp.close();
      } catch { /* never bound */ }
      tcp.close();
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && attempt < 20) continue;
      if (code === 'EACCES') throw new Error(`Cannot listen on ${address}:53: ${LOW_PORT_HINT}`);
      throw err;
    }
    // An answer to a client gone is no failure of the test.
    udp.on('error', () => {});
    tcp.on('error', () => {});
    return {
      name: options.name,
      address,
      close: () => new Promise<void>((resolve) => {
        udp.close();
        tcp.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    };
  }
}
