/**
 * The test world's DNS server (dns2, on UDP and TCP on one port of 127.0.0.1): answers for the zone
 * it is given (A, AAAA, CNAME chains, MX, TXT, NS), NXDOMAIN for every other name, and counts what
 * it was asked, so that a test can show a lookup reached it. As a real server does, it answers over
 * UDP within the size the query offers (its EDNS payload size, else 512 bytes) and sets TC with no
 * records when the answer is larger (dns2 does that), and answers the same question whole over TCP,
 * where a client then asks it (RFC 7766); a question asked over TCP is counted as `… over TCP`. The service is pointed at it with
 * WEBPERF_DNS_SERVERS, the one resolver setting every lookup of the service goes through.
 *
 * It stands for the recursive resolver the service asks, so a name can also be marked as that
 * resolver would see it: `dnssec: 'validated'` (the AD flag set for a query with the DO or AD bit,
 * as a validating resolver answers a signed zone), `dnssec: 'unvalidated'` (a signature passed on
 * without the AD flag, as a resolver that does not validate answers a signed zone), `broken`
 * (SERVFAIL, as for a zone whose servers fail or whose signatures do not validate). A signed zone's
 * DS (as its parent holds it) and DNSKEY records are given as records of the name. A null MX
 * (RFC 7505) is `MX: [{ exchange: '.', priority: 0 }]`; a TXT string longer than 255 bytes goes out
 * as several character-strings of at most 255 bytes, as zone files write long SPF records.
 */
import type { Socket } from 'node:net';
import dns2 from 'dns2';
import { onOnePort } from './one-port.js';

const { Packet } = dns2;
type DnsRequest = InstanceType<typeof Packet>;

export interface ZoneRecords {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  MX?: { exchange: string; priority: number }[];
  /** Each record's strings (one TXT record may hold several). */
  TXT?: string[][];
  NS?: string[];
  /** The DS records the parent holds for the name (RFC 4034 section 5): a signed delegation. */
  DS?: { keyTag: number; algorithm: number; digestType: number; digest: string }[];
  /** The zone's keys at its apex (RFC 4034 section 2); `key` in base64. */
  DNSKEY?: { flags: number; algorithm: number; key: string }[];
  /**
   * How the resolver sees the name's zone signed (see above); unsigned when absent. 'bogus': signed
   * with signatures that fail, so a validating resolver answers SERVFAIL, save to a question with
   * the CD (checking disabled) bit, which it answers without the AD flag (RFC 4035 section 3.2.2).
   */
  dnssec?: 'validated' | 'unvalidated' | 'bogus';
  /** Every question about the name is answered SERVFAIL. */
  broken?: boolean;
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, as WEBPERF_DNS_SERVERS takes it. */
  address: string;
  /** The names and types asked, in order (`kommun.test A`; `kommun.test TXT over TCP`). */
  asked: string[];
  close(): Promise<void>;
}

const TTL = 60;
const norm = (name: string) => name.toLowerCase().replace(/\.$/, '');
const RRSIG = 46;
const DS = 43;
const DNSKEY = 48;

/** A string as character-strings of at most 255 bytes (RFC 1035 section 3.3). */
function characterStrings(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255));
  return out.length ? out : [Buffer.alloc(0)];
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};

/** An RRSIG's RDATA (RFC 4034 section 3.1) covering `type`; the signature bytes are filler, nothing checks them. */
function rrsigData(type: number, name: string): Buffer {
  const fixed = Buffer.alloc(18);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt8(13, 2); // ECDSAP256SHA256
  fixed.writeUInt8(name.split('.').filter(Boolean).length, 3);
  fixed.writeUInt32BE(TTL, 4);
  fixed.writeUInt32BE(0xffffffff, 8); // expiration
  fixed.writeUInt32BE(0, 12); // inception
  fixed.writeUInt16BE(12345, 16); // key tag
  return Buffer.concat([fixed, Buffer.from([0]), Buffer.alloc(64, 0xab)]);
}

export async function startDnsServer(zone: Map<string, ZoneRecords>): Promise<DnsServer> {
  const asked: string[] = [];
  const handle = (overTcp: boolean) => (request: DnsRequest, send: (response: DnsRequest) => void) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    if (!question) return send(response);
    const type = question.type;
    asked.push(`${norm(question.name)} ${Packet.TYPE_NAME[type] ?? type}${overTcp ? ' over TCP' : ''}`);
    let name = norm(question.name);
    let records = zone.get(name);
    const checkingDisabled = !!(request.header as unknown as { cd?: number }).cd;
    if (records?.broken || (records?.dnssec === 'bogus' && !checkingDisabled)) {
      response.header.rcode = 2; // SERVFAIL
      return send(response);
    }
    if (!records) {
      response.header.rcode = 3; // NXDOMAIN
      return send(response);
    }
    // What a validating resolver tells a client that asks for DNSSEC (DO or AD, RFC 6840 5.7).
    const opt = (request.additionals ?? []).find((r: any) => r?.type === Packet.TYPE.EDNS) as { doFlag?: boolean } | undefined;
    const wantsDnssec = !!opt?.doFlag || !!(request.header as unknown as { ad?: number }).ad;
    const dnssec = records.dnssec;
    if (wantsDnssec && dnssec === 'validated') (response.header as unknown as { ad?: number }).ad = 1; // dns2's types lack the flag
    // A CNAME stands for the whole name: answer it, then the target's records (a recursive
    // resolver's answer), at most a few hops.
    for (let hop = 0; records?.CNAME && type !== Packet.TYPE.CNAME && hop < 8; hop++) {
      response.answers.push({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: TTL, domain: records.CNAME } as any);
      name = norm(records.CNAME);
      records = zone.get(name);
    }
    if (!records) return send(response);
    const add = (record: Record<string, unknown>) => response.answers.push({ name, class: Packet.CLASS.IN, ttl: TTL, ...record } as any);
    if (type === Packet.TYPE.A) for (const address of records.A ?? []) add({ type, address });
    else if (type === Packet.TYPE.AAAA) for (const address of records.AAAA ?? []) add({ type, address });
    else if (type === Packet.TYPE.CNAME && records.CNAME) add({ type, domain: records.CNAME });
    else if (type === Packet.TYPE.MX) for (const mx of records.MX ?? []) add({ type, exchange: mx.exchange, priority: mx.priority });
    else if (type === Packet.TYPE.TXT) for (const data of records.TXT ?? []) add({ type, data: data.flatMap(characterStrings) });
    else if (type === Packet.TYPE.NS) for (const ns of records.NS ?? []) add({ type, ns });
    // DS as its RDATA (dns2 writes the bytes of a type it has no encoder for); DNSKEY dns2 encodes.
    else if (type === DS) for (const ds of records.DS ?? []) add({ type, data: Buffer.concat([u16(ds.keyTag), Buffer.from([ds.algorithm, ds.digestType]), Buffer.from(ds.digest, 'hex')]) });
    else if (type === DNSKEY) for (const key of records.DNSKEY ?? []) add({ type, flags: key.flags, protocol: 3, algorithm: key.algorithm, key: key.key });
    // Signatures travel with the answer for a client that set DO (RFC 4035 section 3.2.1).
    if (opt?.doFlag && dnssec && response.answers.some((a: any) => a.name === name && a.type === type)) {
      add({ type: RRSIG, data: rrsigData(type, name) });
    }
    return send(response);
  };
  // One port for both transports, as port 53.
  const { udp, tcp, port } = await onOnePort(
    () => {
      const udp = dns2.createUDPServer(handle(false) as any);
      // An answer that cannot be sent (a client gone) is no failure of the test.
      udp.on('error', () => {});
      return udp;
    },
    () => dns2.createTCPServer(handle(true) as any),
    5,
  );
  tcp.on('error', () => {});
  const sockets = new Set<Socket>();
  tcp.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    address: `127.0.0.1:${port}`,
    asked,
    close: async () => {
      udp.close();
      await new Promise<void>((resolve) => {
        tcp.close(() => resolve());
        // Connections a client keeps open (RFC 7766) do not hold the close up.
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
