/**
 * The test world's authoritative DNS: a root of its own and the hierarchy below it, all on
 * loopback, so that a tool that resolves from the root (Zonemaster, given the world's root hints
 * file with `--hints`) finds and tests zones as on the Internet. The root zone (`.`, one server,
 * `a.root.test`) delegates `test.` (one server, `a.nic.test`) and answers NXDOMAIN for every
 * other top-level name (`net.`, `arpa.`: no ASN lookup, no reverse DNS); `test.` (unsigned)
 * delegates each scenario zone with glue, and holds its DS when it is signed; each scenario zone
 * is served by servers of its own (`ns1.<zone>`, `ns2.<zone>`…, each on its own address; see
 * authoritative-server.ts), which may be made to misbehave one by one.
 *
 * A scenario zone holds: SOA (ns1 as MNAME, hostmaster@ the zone, serial 2024010101, refresh
 * 21600, retry 3600, expire 1209600, minimum 3600), NS ns1 and ns2 (with their A records), A at
 * the apex and at `www` and `mail`, MX 10 mail. Signed zones have a KSK (257) and a ZSK (256),
 * both ECDSAP256SHA256, an NSEC chain and RRSIGs valid from an hour before `now` to 20 days after.
 *
 * Every server is closed by `close()`; every question any of them was asked is in `queries`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type dnsPacket from 'dns-packet';
import { startAuthoritativeServer, type AuthoritativeServer, type DnsQueryLog } from './authoritative-server.js';
import { dsOf, generateSigningKey, KSK_FLAGS, ZSK_FLAGS, type Rr, type SigningKey } from './dnssec-sign.js';
import type { ZoneRecords } from './dns-server.js';
import { Zone, normName, parentOf } from './dns-zone.js';

export type { DnsQueryLog } from './authoritative-server.js';

/** One name server of a scenario zone and how it behaves. */
export interface ZoneServerSpec {
  /** It does not serve the zone: REFUSED to every query (a lame delegation). */
  lame?: boolean;
  /** It is an open resolver besides (RA set, NXDOMAIN for names outside its zones). */
  recursor?: boolean;
  /** The SOA serial it serves (default 2024010101). */
  serial?: number;
}

/** A zone below `test.` and how it is served. */
export interface ZoneSpec {
  /** e.g. `good.test`: a child of `test.`. */
  name: string;
  /** DNSSEC-signed (KSK + ZSK, NSEC), its DS in `test.`. */
  signed?: boolean;
  /** Signed, but the DS in `test.` is that of a key the zone never publishes. */
  dsMismatch?: boolean;
  /** Signed with signatures that expired a day before `now` (inception 30 days before). */
  expired?: boolean;
  /** Zone transfers (AXFR over TCP) allowed to anyone. */
  axfr?: boolean;
  /** Its servers `ns1`, `ns2`… in order (default: two that behave). */
  servers?: ZoneServerSpec[];
  /** The address of the apex, `www` and `mail` (default: ns1's). */
  address?: string;
  /** More records of the zone (absolute owner names). */
  records?: Rr[];
}

/** The scenarios the DNS test is tested with: each one zone, started only when asked for. */
export const SCENARIOS = {
  /** Unsigned and healthy. */
  good: { name: 'good.test' },
  /** Signed, DS in the parent, NSEC chain: no DNSSEC error. */
  signed: { name: 'signed.test', signed: true },
  /** ns2 answers REFUSED for the zone. */
  lame: { name: 'lame.test', servers: [{}, { lame: true }] },
  /** ns2 serves an older SOA serial than ns1 (the MNAME): a secondary that lags. */
  serial: { name: 'serial.test', servers: [{ serial: 2024010205 }, { serial: 2024010101 }] },
  /** ns2 is an open resolver too. */
  recursor: { name: 'recursor.test', servers: [{}, { recursor: true }] },
  /** Anyone may transfer the zone. */
  axfr: { name: 'axfr.test', axfr: true },
  /** Signed, but the parent's DS matches none of its keys. */
  dsmismatch: { name: 'dsmismatch.test', signed: true, dsMismatch: true },
  /** Signed, every signature expired. */
  expired: { name: 'expired.test', signed: true, expired: true },
} satisfies Record<string, ZoneSpec>;

export type ScenarioName = keyof typeof SCENARIOS;

export interface NameServerAddress {
  name: string;
  address: string;
}

export interface AuthoritativeDns {
  /** A root hints file (as BIND's named.root, and Zonemaster's `--hints`) naming the world's root server. */
  hintsFile: string;
  /** Its text. */
  hints: string;
  /** The root server, `test.`'s server, then every zone's servers. */
  servers: NameServerAddress[];
  /** The servers a scenario zone is delegated to, in order. */
  zoneNs(zone: string): NameServerAddress[];
  /** The zone's DS as `test.` holds it (none when unsigned). */
  zoneDs(zone: string): dnsPacket.DsData[];
  /**
   * The scenario zones as the world's resolver-like DNS server (dns-server.ts) should answer for
   * them: per zone, NS and the A records of the apex, www and mail (DS, DNSKEY and `dnssec:
   * 'validated'` for a zone that validates; SERVFAIL unless the question sets CD, `dnssec: 'bogus'`, for one whose DNSSEC is bogus, as
   * a validating resolver answers), and the A records of its servers (kept resolvable even when
   * the zone is bogus, so that its servers can be found).
   */
  resolverRecords(): Map<string, ZoneRecords>;
  /** Every question the world's servers were asked, in order. */
  queries: DnsQueryLog[];
  close(): Promise<void>;
}

export interface AuthoritativeDnsOptions {
  zones: ZoneSpec[];
  /** The time signatures are valid around (default: now). */
  now?: Date;
}

const TTL = 3600;
const SERIAL = 2024010101;
const DAY = 86_400;
const ROOT_NS = 'a.root.test';
const TLD = 'test';
const TLD_NS = 'a.nic.test';

const soa = (zone: string, mname: string, serial: number): dnsPacket.SoaAnswer => ({
  name: zone, type: 'SOA', ttl: TTL,
  data: { mname, rname: `hostmaster.${zone === '.' ? 'nic.test' : zone}`, serial, refresh: 21600, retry: 3600, expire: 1209600, minimum: 3600 },
});
const ns = (zone: string, host: string): Rr => ({ name: zone, type: 'NS', ttl: TTL, data: host });
const a = (name: string, address: string): Rr => ({ name, type: 'A', ttl: TTL, data: address });

/** A zone's signing material: its keys, the DS its parent publishes, the signatures' validity. */
interface Keys {
  ksk: SigningKey;
  zsk: SigningKey;
  ds: dnsPacket.DsData[];
  inception: number;
  expiration: number;
}

function keysFor(spec: ZoneSpec, now: number): Keys | undefined {
  if (!spec.signed && !spec.dsMismatch && !spec.expired) return undefined;
  const ksk = generateSigningKey(KSK_FLAGS);
  const zsk = generateSigningKey(ZSK_FLAGS);
  const dsKey = spec.dsMismatch ? generateSigningKey(KSK_FLAGS) : ksk;
  const [inception, expiration] = spec.expired ? [now - 30 * DAY, now - DAY] : [now - 3600, now + 20 * DAY];
  return { ksk, zsk, ds: [dsOf(spec.name, dsKey.dnskey)], inception, expiration };
}

/** Starts the root, `test.` and the given zones, each on servers of its own, and writes the hints file. */
export async function startAuthoritativeDns(options: AuthoritativeDnsOptions): Promise<AuthoritativeDns> {
  const now = Math.floor((options.now?.getTime() ?? Date.now()) / 1000);
  const queries: DnsQueryLog[] = [];
  const started: AuthoritativeServer[] = [];
  const specs = options.zones.map((z) => ({ ...z, name: normName(z.name) }));
  for (const spec of specs) {
    if (parentOf(spec.name) !== TLD) throw new Error(`${spec.name}: the world's zones are children of ${TLD}.`);
  }
  const keys = new Map(specs.map((spec) => [spec.name, keysFor(spec, now)]));
  const hostsOf = (spec: ZoneSpec) => (spec.servers ?? [{}, {}]).map((server, i) => ({ ...server, host: `ns${i + 1}.${spec.name}` }));

  // A server's address is known once it listens; its zone is built from addresses of other
  // servers, so each server takes its zones late, from a getter.
  const zonesOf = new Map<string, Zone[]>();
  const start = async (name: string, extra: { lame?: boolean; recursor?: boolean; axfr?: string[] } = {}) => {
    const zones: Zone[] = [];
    zonesOf.set(name, zones);
    const server = await startAuthoritativeServer({ name, zones, log: queries, lame: extra.lame, recursor: extra.recursor, axfr: new Set(extra.axfr ?? []) });
    started.push(server);
    return server;
  };
  try {
    const root = await start(ROOT_NS);
    const tld = await start(TLD_NS);
    const zoneServers = new Map<string, AuthoritativeServer[]>();
    for (const spec of specs) {
      const servers: AuthoritativeServer[] = [];
      for (const host of hostsOf(spec)) servers.push(await start(host.host, { lame: host.lame, recursor: host.recursor, axfr: spec.axfr ? [spec.name] : [] }));
      zoneServers.set(spec.name, servers);
    }

    // The root: `test.` delegated, with glue for its server and the root's own (a name in `test.`).
    zonesOf.get(ROOT_NS)!.push(new Zone('.', [
      soa('.', ROOT_NS, SERIAL), ns('.', ROOT_NS),
      ns(TLD, TLD_NS), a(TLD_NS, tld.address), a(ROOT_NS, root.address),
    ]));

    // `test.`: every zone delegated with glue, and its DS when signed.
    const tldRecords: Rr[] = [soa(TLD, TLD_NS, SERIAL), ns(TLD, TLD_NS), a(TLD_NS, tld.address), a(ROOT_NS, root.address)];
    for (const spec of specs) {
      hostsOf(spec).forEach((host, i) => {
        tldRecords.push(ns(spec.name, host.host), a(host.host, zoneServers.get(spec.name)![i].address));
      });
      for (const data of keys.get(spec.name)?.ds ?? []) tldRecords.push({ name: spec.name, type: 'DS', ttl: TTL, data });
    }
    zonesOf.get(TLD_NS)!.push(new Zone(TLD, tldRecords));

    // Each zone, once per serial its servers serve.
    for (const spec of specs) {
      const servers = zoneServers.get(spec.name)!;
      const hosts = hostsOf(spec);
      const address = spec.address ?? servers[0].address;
      const built = new Map<number, Zone>();
      hosts.forEach((host, i) => {
        if (host.lame) return;
        const serial = host.serial ?? SERIAL;
        if (!built.has(serial)) {
          const records: Rr[] = [
            soa(spec.name, hosts[0].host, serial),
            ...hosts.map((h) => ns(spec.name, h.host)),
            ...hosts.map((h, j) => a(h.host, servers[j].address)),
            a(spec.name, address), a(`www.${spec.name}`, address), a(`mail.${spec.name}`, address),
            { name: spec.name, type: 'MX', ttl: TTL, data: { preference: 10, exchange: `mail.${spec.name}` } },
            ...(spec.records ?? []),
          ];
          const k = keys.get(spec.name);
          built.set(serial, new Zone(spec.name, records, k && { ksk: k.ksk, zsk: k.zsk, inception: k.inception, expiration: k.expiration }));
        }
        zonesOf.get(host.host)!.push(built.get(serial)!);
      });
    }

    const hints = [
      '; The test world\'s root: one server, whose name is in test.',
      `${'.'.padEnd(24)} 3600000  IN  NS  ${ROOT_NS}.`,
      `${`${ROOT_NS}.`.padEnd(24)} 3600000  IN  A   ${root.address}`,
      '',
    ].join('\n');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-dns-'));
    const hintsFile = path.join(dir, 'root.hints');
    await writeFile(hintsFile, hints);

    const zoneNs = (zone: string): NameServerAddress[] => {
      const name = normName(zone);
      const spec = specs.find((s) => s.name === name);
      if (!spec) throw new Error(`${zone} is not one of this world's zones`);
      return hostsOf(spec).map((h, i) => ({ name: h.host, address: zoneServers.get(name)![i].address }));
    };

    return {
      hintsFile,
      hints,
      servers: started.map((s) => ({ name: s.name, address: s.address })),
      zoneNs,
      zoneDs: (zone) => keys.get(normName(zone))?.ds ?? [],
      resolverRecords: () => {
        const out = new Map<string, ZoneRecords>();
        for (const spec of specs) {
          const nss = zoneNs(spec.name);
          const address = spec.address ?? nss[0].address;
          const k = keys.get(spec.name);
          const bogus = !!(spec.dsMismatch || spec.expired);
          out.set(spec.name, {
            NS: nss.map((n) => n.name),
            A: [address],
            MX: [{ exchange: `mail.${spec.name}`, priority: 10 }],
            ...(k && !bogus ? {
              dnssec: 'validated' as const,
              DS: k.ds.map((d) => ({ keyTag: d.keyTag, algorithm: d.algorithm, digestType: d.digestType, digest: d.digest.toString('hex') })),
              DNSKEY: [k.ksk, k.zsk].map((key) => ({ flags: key.dnskey.flags, algorithm: key.dnskey.algorithm, key: key.dnskey.key.toString('base64') })),
            } : {}),
            ...(bogus ? { dnssec: 'bogus' as const } : {}),
          });
          out.set(`www.${spec.name}`, { A: [address], ...(bogus ? { dnssec: 'bogus' as const } : {}) });
          out.set(`mail.${spec.name}`, { A: [address], ...(bogus ? { dnssec: 'bogus' as const } : {}) });
          for (const n of nss) out.set(n.name, { A: [n.address] });
        }
        return out;
      },
      queries,
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.close()));
    throw err;
  }
}
