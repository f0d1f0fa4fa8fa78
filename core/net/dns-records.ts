/**
 * DNS record lookups (MX, TXT, NS, CNAME, A, AAAA) for the plugins that judge a domain's
 * records (the e-mail test): asked of the service's DNS servers (WEBPERF_DNS_SERVERS), else of
 * the system's, the same servers every other lookup of the service uses. Answers are names and
 * strings only; nothing here connects to what they name.
 *
 * Each question goes out once, as a UDP query (node:dgram) with the EDNS DO bit (RFC 3225) and the
 * AD bit (RFC 6840 section 5.7) set, so that the answer says whether the resolver validated it
 * (DnsAnswer.authenticated); node's Resolver (c-ares) does not expose the AD flag. dns-packet
 * encodes the query and decodes the answer; this file checks that the answer is the one to the
 * query and reads it. An answer too large for UDP (TC), or from a server that does not speak EDNS
 * (FORMERR, NOTIMP), is asked again through node's Resolver, which falls back to TCP.
 *
 * A lookup function has at most 8 questions out at once (`concurrency`); the others wait their
 * turn, so that no caller can open hundreds of sockets (and run the process out of descriptors).
 */
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import ipaddr from 'ipaddr.js';
import type { DnsAnswer, DnsRecordType } from '../plugin-api.js';

/** How a question is asked. */
export interface LookupOptions {
  /**
   * Set the CD (checking disabled) bit (RFC 4035 section 3.2.2): a validating resolver answers
   * even for a zone whose signatures fail (it would answer SERVFAIL), without the AD flag. For a
   * caller that needs the data whatever its DNSSEC (the DNS test's look at a zone's name servers).
   */
  checkingDisabled?: boolean;
}

/** Asks one question; never throws (a failure is an answer with status 'error'). */
export type RecordLookup = (name: string, type: DnsRecordType, options?: LookupOptions) => Promise<DnsAnswer>;

/** c-ares codes that mean "no such name" and "the name has no record of this type". */
const NXDOMAIN = new Set<string>([dns.NOTFOUND]);
const NODATA = new Set<string>([dns.NODATA]);

/** The EDNS payload size we offer (the DNS flag day 2020 value). */
const UDP_PAYLOAD = 1232;

const normName = (name: string) => name.toLowerCase().replace(/\.$/, '');
/** An MX exchange as DnsAnswer gives it: lower case, no trailing dot, the root as '.'. */
const normExchange = (name: string) => normName(name) || '.';

/** Questions a lookup function has out at once, unless told otherwise. */
const CONCURRENCY = 8;

/** Runs at most `max` of the work it is given at once, the rest in the order they came. */
function limiter(max: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    // A slot is handed straight to the next waiter on release, so `active` counts slots in use.
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** A lookup asking `servers` (`host`, `host:port`, `[v6]:port`), or the system's servers when none are given. */
export function recordLookup(servers: readonly string[], options: { timeoutMs?: number; tries?: number; concurrency?: number } = {}): RecordLookup {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const tries = options.tries ?? 2;
  const inTurn = limiter(options.concurrency ?? CONCURRENCY);
  const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries });
  if (servers.length > 0) resolver.setServers(servers as string[]);
  // What the Resolver asks: the configured servers, or the system's as c-ares read them.
  const targets = resolver.getServers().map(parseServer).filter((s): s is Server => s !== null);
  const viaResolver = resolverLookup(resolver);
  return (rawName, type, lookup = {}) => inTurn(async () => {
    const name = normName(rawName);
    let raw: Response | { error: string };
    try {
      raw = await askServers(targets, name, type, timeoutMs, tries, lookup.checkingDisabled === true);
    } catch (err) {
      raw = { error: (err as Error).message };
    }
    if ('error' in raw) return { name, type, status: 'error', records: [], ...(type === 'MX' ? { mx: [] } : {}), authenticated: null, error: `${type} lookup of ${name} failed: ${raw.error}` };
    if (raw.truncated || raw.rcode === 'FORMERR' || raw.rcode === 'NOTIMP') {
      // Asked again over TCP by c-ares; the AD flag of the truncated answer still stands when set.
      const again = await viaResolver(name, type);
      return { ...again, authenticated: again.status !== 'error' && raw.truncated && raw.ad ? true : null };
    }
    return answerFrom(name, type, raw);
  });
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
        default:
          // c-ares asks no DS or DNSKEY: an answer of those that UDP could not carry is not asked again.
          return answer('error', [], { error: `${type} lookup of ${name} failed: no whole answer over UDP, and ${type} is not asked over TCP` });
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

/** What a lookup reads of a response: its RCODE and flags, its answer and authority sections (none when truncated). */
interface Response {
  rcode: string;
  truncated: boolean;
  ad: boolean;
  answers: dnsPacket.Answer[];
  /** Where a signed zone's denial of a name or type (NXDOMAIN, NODATA) carries its RRSIGs; null when it could not be read. */
  authorities: dnsPacket.Answer[] | null;
}

/** The query: RD and AD set (and CD when asked), one question, an OPT record with DO (RFC 6891, RFC 3225). */
function encodeQuery(id: number, name: string, type: DnsRecordType, checkingDisabled: boolean): Buffer {
  // dns-packet writes what it is given; a label or name too long would make a malformed query.
  const labels = name.split('.').filter(Boolean);
  if (labels.some((l) => Buffer.byteLength(l) > 63)) throw new Error(`a label of ${name} is longer than 63 octets`);
  if (labels.reduce((length, l) => length + 1 + Buffer.byteLength(l), 1) > 255) throw new Error(`${name} is longer than 255 octets`);
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA | (checkingDisabled ? dnsPacket.CHECKING_DISABLED : 0),
    questions: [{ type, name: labels.join('.') || '.' }],
    // @types/dns-packet types OPT as decoded (extendedRcode, options...); encode defaults them.
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: UDP_PAYLOAD, flags: dnsPacket.DNSSEC_OK } as dnsPacket.OptAnswer],
  });
}

/**
 * The response to the query `id` for `name`/`type`, decoded by dns-packet; null when the datagram
 * is not that response (another id, not a response, another question); throws when it is malformed.
 * Only the sections a lookup reads are decoded: the header, the question and, unless the answer is
 * truncated (it may end inside a record), the answer and authority sections (the authority for
 * the RRSIGs of a signed denial); the additional section is left out by zeroing its count in a
 * copy. An authority section dns-packet cannot read is left out too: it only ever tells
 * `authenticated`, which is then null rather than false when the rest shows no signature.
 */
function parseResponse(message: Buffer, id: number, name: string, type: DnsRecordType): Response | null {
  let packet: dnsPacket.DecodedPacket & { rcode?: string };
  let authorityRead = true;
  const decode = (from: number) => {
    const read = Buffer.from(message);
    if (read.length >= 12) read.fill(0, from, 12);
    return dnsPacket.decode(read);
  };
  try {
    const truncated = message.length >= 12 && (message.readUInt16BE(2) & dnsPacket.TRUNCATED_RESPONSE) !== 0;
    try {
      packet = decode(truncated ? 6 : 10);
    } catch (err) {
      if (truncated || message.length < 12 || message.readUInt16BE(8) === 0) throw err;
      packet = decode(8);
      authorityRead = false;
    }
  } catch (err) {
    // A stray datagram is ignored; a malformed answer to this query fails it.
    if (message.length < 12 || message.readUInt16BE(0) !== id) return null;
    throw new Error(`the answer is malformed (${(err as Error).message})`);
  }
  if (packet.id !== id || !packet.flag_qr) return null;
  const [question] = packet.questions ?? [];
  if (question && (normName(question.name) !== name || question.type !== type)) return null;
  const authorities = authorityRead ? packet.authorities ?? [] : null;
  return { rcode: packet.rcode ?? 'NOERROR', truncated: packet.flag_tc, ad: packet.flag_ad, answers: packet.answers ?? [], authorities };
}

/** The DnsAnswer of a decoded response (not truncated). */
function answerFrom(name: string, type: DnsRecordType, raw: Response): DnsAnswer {
  // Signatures without the AD flag: a signed zone the resolver did not validate (or could not tell).
  const signed = [...raw.answers, ...(raw.authorities ?? [])].some((a) => a.type === 'RRSIG');
  const authenticated = raw.ad ? true : signed || raw.authorities === null ? null : false;
  const base = { name, type, authenticated, ...(type === 'MX' ? { mx: [] as { exchange: string; priority: number }[] } : {}) };
  if (raw.rcode === 'NXDOMAIN') return { ...base, status: 'nxdomain', records: [] };
  if (raw.rcode !== 'NOERROR') return { ...base, status: 'error', records: [], authenticated: null, error: `${type} lookup of ${name} failed: ${raw.rcode}` };
  const records: string[] = [];
  const mx: { exchange: string; priority: number }[] = [];
  // Records of the type asked, whoever owns them: a CNAME chain's target answers for the name.
  for (const a of raw.answers) {
    if (a.type !== type) continue;
    switch (a.type) {
      case 'A':
        records.push(a.data);
        break;
      case 'AAAA':
        records.push(ipaddr.parse(a.data).toString()); // RFC 5952 form
        break;
      case 'CNAME':
      case 'NS':
        records.push(normName(a.data));
        break;
      case 'MX':
        mx.push({ priority: a.data.preference ?? 0, exchange: normExchange(a.data.exchange) });
        break;
      case 'DS':
        records.push(`${a.data.keyTag} ${a.data.algorithm} ${a.data.digestType} ${Buffer.from(a.data.digest).toString('hex').toUpperCase()}`);
        break;
      case 'DNSKEY':
        records.push(`${a.data.flags} 3 ${a.data.algorithm} ${Buffer.from(a.data.key).toString('base64')}`);
        break;
      case 'TXT':
        // One record's character-strings, joined (RFC 7208 section 3.3).
        records.push(Buffer.concat([a.data].flat().map((s) => (typeof s === 'string' ? Buffer.from(s) : s))).toString('utf8'));
        break;
    }
  }
  if (type === 'MX') {
    sortMx(mx);
    return { ...base, status: 'ok', records: mx.map((r) => r.exchange), mx };
  }
  return { ...base, status: 'ok', records };
}

/** One query to one server: the parsed response, or null when none came in time. */
function askOnce(server: Server, name: string, type: DnsRecordType, timeoutMs: number, checkingDisabled: boolean): Promise<Response | null> {
  return new Promise((resolve, reject) => {
    const id = randomInt(0, 0x10000);
    const query = encodeQuery(id, name, type, checkingDisabled);
    const socket = dgram.createSocket(server.family === 6 ? 'udp6' : 'udp4');
    let settled = false;
    const finish = (value: Response | null, err?: Error) => {
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
async function askServers(servers: readonly Server[], name: string, type: DnsRecordType, timeoutMs: number, tries: number, checkingDisabled: boolean): Promise<Response | { error: string }> {
  if (servers.length === 0) return { error: 'no DNS servers' };
  let last: Response | null = null;
  let lastError = 'timed out';
  for (let attempt = 0; attempt < tries; attempt++) {
    for (const server of servers) {
      try {
        const answer = await askOnce(server, name, type, timeoutMs, checkingDisabled);
        if (!answer) continue;
        if (answer.rcode === 'SERVFAIL' || answer.rcode === 'REFUSED') {
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
