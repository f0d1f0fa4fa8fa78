/**
 * DNS record lookups (MX, TXT, NS, CNAME, A, AAAA) for the plugins that judge a domain's
 * records (the e-mail test): asked of the service's DNS servers (WEBPERF_DNS_SERVERS), else of
 * the system's, the same servers every other lookup of the service uses. Answers are names and
 * strings only; nothing here connects to what they name.
 *
 * Each question goes out once, as a hand-built UDP query with the EDNS DO bit (RFC 3225) and the
 * AD bit (RFC 6840 section 5.7) set, so that the answer says whether the resolver validated it
 * (DnsAnswer.authenticated); node's Resolver (c-ares) does not expose the AD flag. An answer too
 * large for UDP (TC), or from a server that does not speak EDNS (FORMERR, NOTIMP), is asked again
 * through node's Resolver, which falls back to TCP.
 */
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { DnsAnswer, DnsRecordType } from '../plugin-api.js';

/** Asks one question; never throws (a failure is an answer with status 'error'). */
export type RecordLookup = (name: string, type: DnsRecordType) => Promise<DnsAnswer>;

/** c-ares codes that mean "no such name" and "the name has no record of this type". */
const NXDOMAIN = new Set<string>([dns.NOTFOUND]);
const NODATA = new Set<string>([dns.NODATA]);

const TYPE_CODE: Record<DnsRecordType, number> = { A: 1, NS: 2, CNAME: 5, MX: 15, TXT: 16, AAAA: 28 };
const RRSIG = 46;
const OPT = 41;
/** The EDNS payload size we offer (the DNS flag day 2020 value). */
const UDP_PAYLOAD = 1232;
const RCODE_NAME: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 4: 'NOTIMP', 5: 'REFUSED' };

const normName = (name: string) => name.toLowerCase().replace(/\.$/, '');
/** An MX exchange as DnsAnswer gives it: lower case, no trailing dot, the root as '.'. */
const normExchange = (name: string) => normName(name) || '.';

/** A lookup asking `servers` (`host`, `host:port`, `[v6]:port`), or the system's servers when none are given. */
export function recordLookup(servers: readonly string[], options: { timeoutMs?: number; tries?: number } = {}): RecordLookup {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const tries = options.tries ?? 2;
  const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries });
  if (servers.length > 0) resolver.setServers(servers as string[]);
  // What the Resolver asks: the configured servers, or the system's as c-ares read them.
  const targets = resolver.getServers().map(parseServer).filter((s): s is Server => s !== null);
  const viaResolver = resolverLookup(resolver);
  return async (rawName, type) => {
    const name = normName(rawName);
    let raw: RawAnswer | { error: string };
    try {
      raw = await askServers(targets, name, type, timeoutMs, tries);
    } catch (err) {
      raw = { error: (err as Error).message };
    }
    if ('error' in raw) return { name, type, status: 'error', records: [], ...(type === 'MX' ? { mx: [] } : {}), authenticated: null, error: `${type} lookup of ${name} failed: ${raw.error}` };
    if (raw.truncated || raw.rcode === 1 || raw.rcode === 4) {
      // Asked again over TCP by c-ares; the AD flag of the truncated answer still stands when set.
      const again = await viaResolver(name, type);
      return { ...again, authenticated: again.status !== 'error' && raw.truncated && raw.ad ? true : null };
    }
    return answerFrom(name, type, raw);
  };
}

/** The same question through node's Resolver (c-ares: TCP when UDP is truncated), without the AD flag. */
function resolverLookup(resolver: dns.promises.Resolver): RecordLookup {
  return async (name, type) => {
    const answer = (status: DnsAnswer['status'], records: string[] = [], extra: Partial<DnsAnswer> = {}): DnsAnswer => ({ name, type, status, records, ...extra });
    try {
      switch (type) {
        case 'A':
          return answer('ok', await resolver.resolve4(name));
        case 'AAAA':
          return answer('ok', await resolver.resolve6(name));
        case 'CNAME':
          return answer('ok', (await resolver.resolveCname(name)).map(normName));
        case 'NS':
          return answer('ok', (await resolver.resolveNs(name)).map(normName));
        case 'TXT':
          return answer('ok', (await resolver.resolveTxt(name)).map((strings) => strings.join('')));
        case 'MX': {
          const mx = sortMx((await resolver.resolveMx(name)).map((r) => ({ exchange: normExchange(r.exchange), priority: r.priority })));
          return answer('ok', mx.map((r) => r.exchange), { mx });
        }
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NXDOMAIN.has(code)) return answer('nxdomain', [], type === 'MX' ? { mx: [] } : {});
      if (NODATA.has(code)) return answer('ok', [], type === 'MX' ? { mx: [] } : {});
      return answer('error', [], { ...(type === 'MX' ? { mx: [] } : {}), error: `${type} lookup of ${name} failed: ${code || (err as Error).message}` });
    }
  };
}

const sortMx = (mx: { exchange: string; priority: number }[]) =>
  mx.sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));

interface Server {
  address: string;
  port: number;
  family: 4 | 6;
}

/** `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53` (as Resolver.getServers gives them). */
function parseServer(entry: string): Server | null {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return net.isIPv6(bracketed[1]) ? { address: bracketed[1], port: Number(bracketed[2] ?? 53), family: 6 } : null;
  if (net.isIPv6(entry)) return { address: entry, port: 53, family: 6 };
  const v4 = /^([0-9.]+)(?::(\d+))?$/.exec(entry);
  if (v4 && net.isIPv4(v4[1])) return { address: v4[1], port: Number(v4[2] ?? 53), family: 4 };
  return null;
}

/** A parsed response: header flags and the answer section's records. */
export interface RawAnswer {
  rcode: number;
  truncated: boolean;
  ad: boolean;
  answers: { name: string; type: number; data: Buffer; message: Buffer; offset: number }[];
}

/** The query: RD and AD set, one question, an OPT record with DO (RFC 6891, RFC 3225). */
export function encodeQuery(id: number, name: string, type: DnsRecordType): Buffer {
  const labels = name.split('.').filter(Boolean).map((label) => Buffer.from(label, 'utf8'));
  if (labels.some((l) => l.length > 63)) throw new Error(`a label of ${name} is longer than 63 octets`);
  const qname = Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), l]), Buffer.from([0])]);
  if (qname.length > 255) throw new Error(`${name} is longer than 255 octets`);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100 | 0x0020, 2); // RD, AD
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(1, 10); // ARCOUNT: the OPT record
  const question = Buffer.alloc(4);
  question.writeUInt16BE(TYPE_CODE[type], 0);
  question.writeUInt16BE(1, 2); // IN
  const opt = Buffer.alloc(11);
  opt.writeUInt8(0, 0); // root name
  opt.writeUInt16BE(OPT, 1);
  opt.writeUInt16BE(UDP_PAYLOAD, 3);
  opt.writeUInt32BE(0x00008000, 5); // extended RCODE 0, version 0, DO
  opt.writeUInt16BE(0, 9); // RDLENGTH
  return Buffer.concat([header, qname, question, opt]);
}

/** A name at `offset` of `message`, compression pointers followed (RFC 1035 section 4.1.4). */
function readName(message: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let offset = start;
  let end = -1;
  for (let jumps = 0; jumps < 64; jumps++) {
    if (offset >= message.length) throw new Error('a name runs past the end of the answer');
    const len = message[offset];
    if ((len & 0xc0) === 0xc0) {
      if (offset + 1 >= message.length) throw new Error('a name runs past the end of the answer');
      if (end < 0) end = offset + 2;
      offset = ((len & 0x3f) << 8) | message[offset + 1];
      continue;
    }
    if (len & 0xc0) throw new Error('a label has a reserved length type');
    if (len === 0) return { name: labels.join('.'), end: end < 0 ? offset + 1 : end };
    if (offset + 1 + len > message.length) throw new Error('a label runs past the end of the answer');
    labels.push(message.toString('latin1', offset + 1, offset + 1 + len));
    offset += 1 + len;
  }
  throw new Error('a name has too many compression pointers');
}

/** Parses a response to the query `id` for `name`/`type`; null when it is not that response. */
export function parseResponse(message: Buffer, id: number, name: string, type: DnsRecordType): RawAnswer | null {
  if (message.length < 12 || message.readUInt16BE(0) !== id) return null;
  const flags = message.readUInt16BE(2);
  if (!(flags & 0x8000)) return null; // not a response
  const qdcount = message.readUInt16BE(4);
  const ancount = message.readUInt16BE(6);
  let offset = 12;
  for (let i = 0; i < qdcount; i++) {
    const q = readName(message, offset);
    if (q.end + 4 > message.length) return null;
    if (i === 0 && (normName(q.name) !== name || message.readUInt16BE(q.end) !== TYPE_CODE[type])) return null;
    offset = q.end + 4;
  }
  const truncated = !!(flags & 0x0200);
  const answers: RawAnswer['answers'] = [];
  for (let i = 0; i < ancount && !truncated; i++) {
    const owner = readName(message, offset);
    if (owner.end + 10 > message.length) throw new Error('a record runs past the end of the answer');
    const rrType = message.readUInt16BE(owner.end);
    const rdlength = message.readUInt16BE(owner.end + 8);
    const dataStart = owner.end + 10;
    if (dataStart + rdlength > message.length) throw new Error('a record runs past the end of the answer');
    answers.push({ name: normName(owner.name), type: rrType, data: message.subarray(dataStart, dataStart + rdlength), message, offset: dataStart });
    offset = dataStart + rdlength;
  }
  return { rcode: flags & 0x000f, truncated, ad: !!(flags & 0x0020), answers };
}

/** The DnsAnswer of a parsed response (not truncated). */
export function answerFrom(name: string, type: DnsRecordType, raw: RawAnswer): DnsAnswer {
  const signed = raw.answers.some((a) => a.type === RRSIG);
  const authenticated = raw.ad ? true : signed ? null : false;
  const base = { name, type, authenticated, ...(type === 'MX' ? { mx: [] as { exchange: string; priority: number }[] } : {}) };
  if (raw.rcode === 3) return { ...base, status: 'nxdomain', records: [] };
  if (raw.rcode !== 0) {
    return { ...base, status: 'error', records: [], authenticated: null, error: `${type} lookup of ${name} failed: ${RCODE_NAME[raw.rcode] ?? `RCODE ${raw.rcode}`}` };
  }
  const records: string[] = [];
  const mx: { exchange: string; priority: number }[] = [];
  // Records of the type asked, whoever owns them: a CNAME chain's target answers for the name.
  for (const a of raw.answers.filter((r) => r.type === TYPE_CODE[type])) {
    switch (type) {
      case 'A':
        if (a.data.length === 4) records.push([...a.data].join('.'));
        break;
      case 'AAAA':
        if (a.data.length === 16) records.push(ipaddr.fromByteArray([...a.data]).toString());
        break;
      case 'CNAME':
      case 'NS':
        records.push(normName(readName(a.message, a.offset).name));
        break;
      case 'MX':
        if (a.data.length >= 3) mx.push({ priority: a.data.readUInt16BE(0), exchange: normExchange(readName(a.message, a.offset + 2).name) });
        break;
      case 'TXT': {
        // One record's character-strings, joined (RFC 7208 section 3.3).
        const parts: Buffer[] = [];
        for (let i = 0; i < a.data.length; i += 1 + a.data[i]) parts.push(a.data.subarray(i + 1, i + 1 + a.data[i]));
        records.push(Buffer.concat(parts).toString('utf8'));
        break;
      }
    }
  }
  if (type === 'MX') {
    sortMx(mx);
    return { ...base, status: 'ok', records: mx.map((r) => r.exchange), mx };
  }
  return { ...base, status: 'ok', records };
}

/** One query to one server: the parsed response, or null when none came in time. */
function askOnce(server: Server, name: string, type: DnsRecordType, timeoutMs: number): Promise<RawAnswer | null> {
  return new Promise((resolve, reject) => {
    const id = randomInt(0, 0x10000);
    const query = encodeQuery(id, name, type);
    const socket = dgram.createSocket(server.family === 6 ? 'udp6' : 'udp4');
    let settled = false;
    const finish = (value: RawAnswer | null, err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.on('message', (message, from) => {
      // Only the server asked answers (an off-path guess would also need the id and the port).
      if (from.port !== server.port || normAddress(from.address) !== normAddress(server.address)) return;
      try {
        const parsed = parseResponse(message, id, name, type);
        if (parsed) finish(parsed);
      } catch (err) {
        finish(null, err as Error);
      }
    });
    socket.on('error', (err) => finish(null, err));
    socket.send(query, server.port, server.address, (err) => {
      if (err) finish(null, err);
    });
  });
}

const normAddress = (address: string) => (net.isIPv6(address) ? ipaddr.parse(address).toString() : address);

/** The servers in order, each `tries` times, until one answers (SERVFAIL and REFUSED: the next server). */
async function askServers(servers: readonly Server[], name: string, type: DnsRecordType, timeoutMs: number, tries: number): Promise<RawAnswer | { error: string }> {
  if (servers.length === 0) return { error: 'no DNS servers' };
  let last: RawAnswer | null = null;
  let lastError = 'timed out';
  for (let attempt = 0; attempt < tries; attempt++) {
    for (const server of servers) {
      try {
        const answer = await askOnce(server, name, type, timeoutMs);
        if (!answer) continue;
        if (answer.rcode === 2 || answer.rcode === 5) {
          last = answer;
          continue;
        }
        return answer;
      } catch (err) {
        lastError = (err as Error).message;
      }
    }
    if (last) return last;
  }
  return { error: lastError };
}

/**
 * For a guard built without a record lookup (a test's own guard, a library caller): every
 * question is answered 'error', and no DNS server is asked, the system's included.
 */
export const noRecordLookup: RecordLookup = async (name, type) => ({
  name,
  type,
  status: 'error',
  records: [],
  authenticated: null,
  error: 'no DNS servers are configured for record lookups',
});
