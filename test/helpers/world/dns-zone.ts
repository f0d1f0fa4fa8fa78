/**
 * One zone as an authoritative server holds it (RFC 1034 section 4.3.2, RFC 4035 section 3.1):
 * its records, the delegations it makes (NS at a child's name, with the child's glue and DS), and,
 * when signed, its DNSKEYs (a KSK that signs the DNSKEY RRset, a ZSK that signs the rest), an NSEC
 * chain over its authoritative names (RFC 4034 section 4) and an RRSIG over every authoritative
 * RRset (never over a delegation's NS or over glue). `lookup` answers one question the way an
 * authoritative server does: the answer with AA, a referral (NS in authority, glue in additional,
 * no AA), NODATA or NXDOMAIN with the SOA in authority; signatures and NSEC records only for a
 * query with the DO bit. Wildcards and NSEC3 are not served.
 *
 * Names are lower case, without the trailing dot, `.` for the root.
 */
import type dnsPacket from 'dns-packet';
import { compareNames, signRrset, labelsOf, type Rr, type SigningKey } from './dnssec-sign.js';

/** Lower case, no trailing dot, `.` for the root. */
export const normName = (name: string): string => name.toLowerCase().replace(/\.$/, '') || '.';

/** Whether `name` is `zone` or below it. */
export const isAtOrBelow = (name: string, zone: string): boolean => zone === '.' || name === zone || name.endsWith(`.${zone}`);

/** The name one label up (`.` above a top-level name). */
export const parentOf = (name: string): string => (name.includes('.') ? name.slice(name.indexOf('.') + 1) : '.');

/** An RR with its owner and the names in its RDATA in the form the zone keeps (lower case). */
function normRr(rr: Rr): Rr {
  const name = normName(rr.name);
  const ttl = rr.ttl ?? 3600;
  switch (rr.type) {
    case 'NS': case 'CNAME': case 'PTR': case 'DNAME':
      return { ...rr, name, ttl, class: 'IN', data: normName(rr.data) };
    case 'MX':
      return { ...rr, name, ttl, class: 'IN', data: { ...rr.data, exchange: normName(rr.data.exchange) } };
    case 'SOA':
      return { ...rr, name, ttl, class: 'IN', data: { ...rr.data, mname: normName(rr.data.mname), rname: normName(rr.data.rname) } };
    default:
      return { ...rr, name, ttl, class: 'IN' } as Rr;
  }
}

/** How a zone is signed. */
export interface ZoneSigning {
  ksk: SigningKey;
  zsk: SigningKey;
  /** The signatures' validity, seconds since the epoch. */
  inception: number;
  expiration: number;
}

/** What one question gets from a zone. */
export interface ZoneAnswer {
  rcode: 'NOERROR' | 'NXDOMAIN';
  /** Authoritative (false for a referral). */
  aa: boolean;
  answers: Rr[];
  authorities: Rr[];
  additionals: Rr[];
}

export class Zone {
  readonly apex: string;
  readonly signed: boolean;
  /** owner -> type -> RRset. */
  private readonly nodes = new Map<string, Map<string, Rr[]>>();
  /** owner -> covered type -> RRSIGs. */
  private readonly sigs = new Map<string, Map<string, Rr[]>>();
  /** Names that exist only because a name below them does (empty non-terminals). */
  private readonly ents = new Set<string>();
  /** The delegation points: names below the apex with NS. */
  private readonly cuts = new Set<string>();
  /** The NSEC chain's owners in canonical order. */
  private readonly chain: string[] = [];

  constructor(apex: string, records: readonly Rr[], signing?: ZoneSigning) {
    this.apex = normName(apex);
    this.signed = !!signing;
    const all = records.map(normRr);
    if (signing) {
      const ttl = all.find((r) => r.type === 'SOA')?.ttl ?? 3600;
      for (const key of [signing.ksk, signing.zsk]) all.push({ name: this.apex, type: 'DNSKEY', class: 'IN', ttl, data: key.dnskey });
    }
    for (const rr of all) {
      if (!isAtOrBelow(rr.name, this.apex)) throw new Error(`${rr.name} is outside the zone ${this.apex}`);
      this.rrsetsAt(this.nodes, rr.name, rr.type).push(rr);
      if (rr.type === 'NS' && rr.name !== this.apex) this.cuts.add(rr.name);
    }
    if (!this.nodes.get(this.apex)?.has('SOA')) throw new Error(`The zone ${this.apex} has no SOA`);
    for (const name of this.nodes.keys()) {
      if (name === this.apex) continue;
      for (let up = parentOf(name); up !== this.apex; up = parentOf(up)) if (!this.nodes.has(up)) this.ents.add(up);
    }
    for (const name of this.nodes.keys()) if (!this.isOccluded(name)) this.chain.push(name);
    this.chain.sort(compareNames);
    if (signing) this.sign(signing);
  }

  private rrsetsAt(map: Map<string, Map<string, Rr[]>>, name: string, type: string): Rr[] {
    let node = map.get(name);
    if (!node) map.set(name, (node = new Map()));
    let set = node.get(type);
    if (!set) node.set(type, (set = []));
    return set;
  }

  /** Below a delegation point: glue, not the zone's own data. */
  private isOccluded(name: string): boolean {
    for (let up = name; up !== this.apex && up !== '.'; up = parentOf(up)) if (up !== name && this.cuts.has(up)) return true;
    return false;
  }

  private sign(signing: ZoneSigning): void {
    const minimum = (this.soa()[0] as dnsPacket.SoaAnswer).data.minimum ?? 3600;
    // The NSEC chain: each authoritative name points at the next, the last at the apex; its
    // bitmap lists the types at the name, NSEC and RRSIG (a delegation point: NS, DS if any).
    this.chain.forEach((name, i) => {
      const types = [...this.nodes.get(name)!.keys()];
      const nsec: dnsPacket.NsecAnswer = {
        name, type: 'NSEC', class: 'IN', ttl: minimum,
        data: { nextDomain: this.chain[(i + 1) % this.chain.length], rrtypes: [...types, 'NSEC', 'RRSIG'] },
      };
      this.nodes.get(name)!.set('NSEC', [nsec]);
    });
    const options = { signer: this.apex, inception: signing.inception, expiration: signing.expiration };
    for (const name of this.chain) {
      for (const [type, rrset] of this.nodes.get(name)!) {
        // A delegation's NS belongs to the child: only its DS and NSEC are the parent's to sign.
        if (this.cuts.has(name) && type !== 'DS' && type !== 'NSEC') continue;
        const key = type === 'DNSKEY' ? signing.ksk : signing.zsk;
        this.rrsetsAt(this.sigs, name, type).push(signRrset(rrset, key, options));
      }
    }
  }

  soa(): Rr[] {
    return this.nodes.get(this.apex)!.get('SOA')!;
  }

  /** The RRset and, when asked for, its signatures. */
  private withSigs(name: string, type: string, dnssec: boolean): Rr[] {
    const rrset = this.nodes.get(name)?.get(type) ?? [];
    return dnssec && rrset.length ? [...rrset, ...(this.sigs.get(name)?.get(type) ?? [])] : rrset;
  }

  /** The NSEC whose owner is `name` or the last before it in canonical order (the one that covers it). */
  private nsecCovering(name: string): string {
    let found = this.chain[0];
    for (const owner of this.chain) if (compareNames(owner, name) <= 0) found = owner;
    return found;
  }

  private exists(name: string): boolean {
    return this.nodes.has(name) || this.ents.has(name);
  }

  /** Addresses of `targets` the zone holds (authoritative, or glue), for the additional section. */
  private addressesOf(targets: string[], dnssec: boolean): Rr[] {
    const out: Rr[] = [];
    for (const target of targets) {
      if (!isAtOrBelow(target, this.apex)) continue;
      const glue = this.isOccluded(target);
      for (const type of ['A', 'AAAA']) out.push(...this.withSigs(target, type, dnssec && !glue));
    }
    return out;
  }

  private negative(rcode: ZoneAnswer['rcode'], nsecOwners: string[], dnssec: boolean): ZoneAnswer {
    const authorities = this.withSigs(this.apex, 'SOA', dnssec);
    if (dnssec && this.signed) for (const owner of new Set(nsecOwners)) authorities.push(...this.withSigs(owner, 'NSEC', true));
    return { rcode, aa: true, answers: [], authorities, additionals: [] };
  }

  /** The answer to `qname` (lower case, at or below the apex) and `qtype`; `dnssec`: the query's DO bit. */
  lookup(qname: string, qtype: string, dnssec: boolean): ZoneAnswer {
    const ds = dnssec && this.signed;
    // A delegation on the way down: a referral, unless the question is the DS the parent holds.
    const below = labelsOf(qname).slice(0, labelsOf(qname).length - labelsOf(this.apex).length);
    for (let i = below.length - 1; i >= 0; i--) {
      const name = [...below.slice(i), ...labelsOf(this.apex)].join('.');
      if (!this.cuts.has(name) || (name === qname && qtype === 'DS')) continue;
      const ns = this.nodes.get(name)!.get('NS')!;
      const authorities = [...ns];
      // The signed parent says whether the child is signed: its DS, or an NSEC without DS.
      if (ds) authorities.push(...(this.nodes.get(name)!.has('DS') ? this.withSigs(name, 'DS', true) : this.withSigs(name, 'NSEC', true)));
      return { rcode: 'NOERROR', aa: false, answers: [], authorities, additionals: this.addressesOf(ns.map((r) => r.data as string), false) };
    }
    const node = this.nodes.get(qname);
    if (!node) {
      if (this.ents.has(qname)) return this.negative('NOERROR', [this.nsecCovering(qname)], ds);
      let encloser = parentOf(qname);
      while (!this.exists(encloser) && encloser !== this.apex) encloser = parentOf(encloser);
      return this.negative('NXDOMAIN', [this.nsecCovering(qname), this.nsecCovering(encloser === '.' ? '*' : `*.${encloser}`)], ds);
    }
    // Signatures asked for by type come whatever the DO bit (RFC 4035 section 3.1.5).
    const rrsigs = qtype === 'RRSIG' ? [...(this.sigs.get(qname)?.values() ?? [])].flat() : [];
    if (rrsigs.length) return { rcode: 'NOERROR', aa: true, answers: rrsigs, authorities: [], additionals: [] };
    if (qtype === 'ANY') {
      const answers = [...node.keys()].flatMap((type) => this.withSigs(qname, type, ds));
      return { rcode: 'NOERROR', aa: true, answers, authorities: [], additionals: [] };
    }
    const answers: Rr[] = [];
    let name = qname;
    // A CNAME stands for its whole name (RFC 1034 section 3.6.2): followed while it stays in the zone.
    for (let hop = 0; hop < 8; hop++) {
      const here = this.nodes.get(name);
      if (!here) break;
      if (here.has(qtype)) {
        answers.push(...this.withSigs(name, qtype, ds));
        break;
      }
      const cname = here.get('CNAME');
      if (!cname || qtype === 'CNAME') break;
      answers.push(...this.withSigs(name, 'CNAME', ds));
      name = cname[0].data as string;
      if (!isAtOrBelow(name, this.apex) || this.isOccluded(name) || this.cuts.has(name)) break;
    }
    if (!answers.length) return this.negative('NOERROR', [qname], ds);
    const targets = answers.flatMap((rr) => (rr.type === 'NS' ? [rr.data] : rr.type === 'MX' ? [rr.data.exchange] : []));
    return { rcode: 'NOERROR', aa: true, answers, authorities: [], additionals: this.addressesOf(targets, ds) };
  }

  /** Every record of the zone for a transfer (RFC 5936): the SOA first and last. */
  transfer(): Rr[] {
    const soa = this.soa();
    const rest: Rr[] = [];
    const owners = [...this.nodes.keys()].sort(compareNames);
    for (const owner of owners) {
      for (const [type, rrset] of this.nodes.get(owner)!) if (!(owner === this.apex && type === 'SOA')) rest.push(...rrset);
      for (const rrsigs of this.sigs.get(owner)?.values() ?? []) rest.push(...rrsigs);
    }
    return [...soa, ...rest, ...soa];
  }
}
