/**
 * DNSSEC for the test world's authoritative servers, with node:crypto only: ECDSA P-256 keys
 * (algorithm 13, ECDSAP256SHA256, RFC 6605), their DNSKEY records and key tags (RFC 4034
 * appendix B), DS records (digest type 2, SHA-256, RFC 4509), and RRSIGs over RRsets in canonical
 * form (RFC 4034 section 6: owner names in lower case, no compression, the original TTL, the
 * records of a set in the order of their RDATA). A signature is r||s, 64 bytes (RFC 6605 section
 * 4), which is what node:crypto gives with `dsaEncoding: 'ieee-p1363'`.
 *
 * Names here are as the world writes them: lower case, without the trailing dot, `.` for the root.
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import dnsPacket from 'dns-packet';

/** ECDSAP256SHA256 (RFC 6605). */
export const ECDSAP256SHA256 = 13;
/** DS digest type SHA-256 (RFC 4509). */
export const SHA256_DIGEST = 2;
/** DNSKEY flags: a zone key (256, a ZSK) and a zone key that is a secure entry point (257, a KSK). */
export const ZSK_FLAGS = 256;
export const KSK_FLAGS = 257;

/** An RR as dns-packet writes it (never an OPT pseudo-record). */
export type Rr = Exclude<dnsPacket.Answer, dnsPacket.OptAnswer>;

/** dns-packet's encoder of one RR, which its types leave out. */
const rrCodec = (dnsPacket as unknown as { answer: { encode(rr: Rr): Buffer } }).answer;
const rrsigCodec = (dnsPacket as unknown as { rrsig: { encode(data: dnsPacket.RrsigData): Buffer } }).rrsig;
const dnskeyCodec = (dnsPacket as unknown as { dnskey: { encode(data: dnsPacket.DnskeyData): Buffer } }).dnskey;
const nameCodec = (dnsPacket as unknown as { name: { encode(name: string): Buffer } }).name;

/** A zone's signing key: its DNSKEY data and the private half. */
export interface SigningKey {
  /** The DNSKEY RDATA fields (protocol is always 3). */
  dnskey: dnsPacket.DnskeyData;
  keyTag: number;
  privateKey: KeyObject;
}

/** The labels of a name, from the left (none for the root). */
export const labelsOf = (name: string): string[] => (name === '.' ? [] : name.split('.'));

/** A name in wire form, lower case (RFC 4034 section 6.2). */
export function canonicalName(name: string): Buffer {
  return nameCodec.encode(name === '.' ? '.' : name.toLowerCase());
}

/** RFC 4034 section 6.1: labels compared from the root down, each as lower-case octets. */
export function compareNames(a: string, b: string): number {
  const la = labelsOf(a.toLowerCase()).reverse();
  const lb = labelsOf(b.toLowerCase()).reverse();
  for (let i = 0; i < Math.min(la.length, lb.length); i++) {
    const c = Buffer.compare(Buffer.from(la[i]), Buffer.from(lb[i]));
    if (c !== 0) return c;
  }
  return la.length - lb.length;
}

/** The RDATA of an RR in wire form (the part after its 10-byte fixed header and owner name). */
export function rdataOf(rr: Rr): Buffer {
  const wire = rrCodec.encode({ ...rr, class: 'IN' } as Rr);
  const ownerLength = canonicalName(rr.name).length;
  return wire.subarray(ownerLength + 10);
}

/** A DNSKEY's RDATA: flags, protocol 3, algorithm, public key. */
export function dnskeyRdata(key: dnsPacket.DnskeyData): Buffer {
  return dnskeyCodec.encode(key).subarray(2);
}

/** RFC 4034 appendix B (for every algorithm but 1). */
export function keyTag(key: dnsPacket.DnskeyData): number {
  const rdata = dnskeyRdata(key);
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i & 1 ? rdata[i] : rdata[i] << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

/** A new P-256 key with the given DNSKEY flags; its public key is x||y, 64 bytes (RFC 6605 section 4). */
export function generateSigningKey(flags: number = KSK_FLAGS): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const key = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  const dnskey = { flags, algorithm: ECDSAP256SHA256, key };
  return { dnskey, keyTag: keyTag(dnskey), privateKey };
}

/** The public key a DNSKEY of algorithm 13 holds, for node:crypto. */
export function publicKeyOf(key: dnsPacket.DnskeyData): KeyObject {
  if (key.algorithm !== ECDSAP256SHA256 || key.key.length !== 64) throw new Error(`Not an ECDSAP256SHA256 key (algorithm ${key.algorithm}, ${key.key.length} bytes)`);
  return createPublicKey({
    format: 'jwk',
    key: { kty: 'EC', crv: 'P-256', x: key.key.subarray(0, 32).toString('base64url'), y: key.key.subarray(32).toString('base64url') },
  });
}

/** The DS the parent holds for `owner`'s key (RFC 4034 section 5.1.4): SHA-256 of owner || DNSKEY RDATA. */
export function dsOf(owner: string, key: dnsPacket.DnskeyData): dnsPacket.DsData {
  const digest = createHash('sha256').update(canonicalName(owner)).update(dnskeyRdata(key)).digest();
  return { keyTag: keyTag(key), algorithm: key.algorithm, digestType: SHA256_DIGEST, digest };
}

/** The bytes an RRSIG signs (RFC 4034 section 3.1.8.1): its RDATA without the signature, then the RRset in canonical form. */
function signedData(rrset: readonly Rr[], fields: Omit<dnsPacket.RrsigData, 'signature'>): Buffer {
  const head = rrsigCodec.encode({ ...fields, signersName: fields.signersName.toLowerCase(), signature: Buffer.alloc(0) }).subarray(2);
  const records = rrset
    .map((rr) => {
      const rdata = rdataOf(rr);
      const fixed = Buffer.alloc(10);
      fixed.writeUInt16BE(typeNumber(rr.type), 0);
      fixed.writeUInt16BE(1, 2); // IN
      fixed.writeUInt32BE(fields.originalTTL, 4);
      fixed.writeUInt16BE(rdata.length, 8);
      return { rdata, wire: Buffer.concat([canonicalName(rr.name), fixed, rdata]) };
    })
    .sort((a, b) => Buffer.compare(a.rdata, b.rdata))
    // Duplicate records count once (RFC 4034 section 6.3).
    .filter((r, i, all) => i === 0 || !r.rdata.equals(all[i - 1].rdata));
  return Buffer.concat([head, ...records.map((r) => r.wire)]);
}

/** A type's number (dns-packet's names, or UNKNOWN_n). */
export function typeNumber(type: string): number {
  // The question's type, after the 12-byte header and the root's one byte.
  return dnsPacket.encode({ questions: [{ name: '.', type: type as dnsPacket.RecordType }] }).readUInt16BE(13);
}

export interface SignOptions {
  /** The zone's apex: the signer's name. */
  signer: string;
  /** Seconds since the epoch. */
  inception: number;
  expiration: number;
}

/** An RRSIG over one RRset (same owner, type and TTL) by `key`. */
export function signRrset(rrset: readonly Rr[], key: SigningKey, options: SignOptions): dnsPacket.RrsigAnswer {
  const [first] = rrset;
  const labels = labelsOf(first.name);
  const fields = {
    typeCovered: first.type,
    algorithm: key.dnskey.algorithm,
    // A wildcard's `*` is no label of the count (RFC 4034 section 3.1.3).
    labels: labels[0] === '*' ? labels.length - 1 : labels.length,
    originalTTL: first.ttl ?? 0,
    expiration: options.expiration >>> 0,
    inception: options.inception >>> 0,
    keyTag: key.keyTag,
    signersName: options.signer,
  };
  const signature = sign('sha256', signedData(rrset, fields), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return { name: first.name, type: 'RRSIG', class: 'IN', ttl: first.ttl, data: { ...fields, signature } };
}

/** Whether `rrsig` is a valid signature of `rrset` by `key` (the cryptography only; the validity period is not looked at). */
export function verifyRrsig(rrset: readonly Rr[], rrsig: dnsPacket.RrsigData, key: dnsPacket.DnskeyData): boolean {
  if (rrsig.algorithm !== key.algorithm || rrsig.keyTag !== keyTag(key)) return false;
  const { signature, ...fields } = rrsig;
  return verify('sha256', signedData(rrset, fields), { key: publicKeyOf(key), dsaEncoding: 'ieee-p1363' }, signature);
}
