/**
 * The target guard: every URL the service fetches or lets Chromium load on a caller's behalf
 * passes it. Private, loopback, link-local, carrier-grade NAT, multicast, reserved and cloud
 * metadata addresses are refused unless the operator allowlists them (CIDRs or host names), and
 * so are IPv6 addresses that carry such an IPv4 address (mapped, NAT64, 6to4, Teredo) and names
 * that are internal whatever DNS says (localhost, *.internal, single labels; only addresses the
 * operator allowlisted let such a name through). Address shorthands
 * (2130706433, 0x7f000001, 0177.0.0.1, 127.1) are written out by the URL parser before the check.
 * The check runs on resolved addresses at connect time (`lookup`), so DNS rebinding and redirects
 * to internal addresses are refused too; the guard resolves through one injectable Resolver.
 */
import type dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { WebperfError } from '../errors.js';
import { noRecordLookup, type RecordLookup } from './dns-records.js';
import { lookupVia, systemResolver, type Resolver } from './resolver.js';
import { NO_EXTRA_TRUST, type TlsTrust } from './trust.js';

const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
// NAT64 (64:ff9b::/96), 6to4 (2002::/16), Teredo and the mapped and compatible forms are not
// listed: they carry an IPv4 address, which is judged by the IPv4 rules (embeddedV4).
const BLOCKED_V6: [string, number][] = [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32],
  ['64:ff9b:1::', 48], ['100::', 64],
];

const blocked = new net.BlockList();
for (const [a, p] of BLOCKED_V4) blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of BLOCKED_V6) blocked.addSubnet(a, p, 'ipv6');

export { systemResolver, type ResolvedAddress, type Resolver } from './resolver.js';

const v4 = (b: number[], at: number) => b.slice(at, at + 4).join('.');

/**
 * The IPv4 addresses an IPv6 address carries and reaches: mapped (::ffff:a.b.c.d), compatible
 * (::a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:aabb:ccdd::) and
 * Teredo (server and client) — each reaches the IPv4 host through a gateway or the stack itself.
 */
function embeddedV4(bytes: number[]): string[] {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [v4(bytes, 12)];
  if (zero(0, 12)) return [v4(bytes, 12)];
  if (zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(10, 12)) return [v4(bytes, 12)];
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return [v4(bytes, 12)];
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return [v4(bytes, 2)];
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) {
    return [v4(bytes, 4), bytes.slice(12, 16).map((x) => x ^ 0xff).join('.')];
  }
  return [];
}

/** Names that reach the machine itself or its provider's internals whatever DNS says. */
export function isInternalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (net.isIP(name.replace(/^\[|\]$/g, '')) !== 0) return false;
  // A single label is completed by the resolver's search domains: an intranet name.
  if (!name.includes('.')) return true;
  return /(^|\.)(localhost|internal|home\.arpa|local)$/.test(name);
}

/** Decides whether an address or host may be a test target. */
export class TargetGuard {
  private readonly allowed = new net.BlockList();
  private readonly allowedHosts = new Set<string>();
  private readonly allowedOrigins = new Set<string>();

  /**
   * @param allow CIDRs (`127.0.0.0/8`), addresses, host names, or origins (`http://127.0.0.1:3999`):
   * an origin lets through only that scheme, host and port — how the demo site is allowed without
   * opening every loopback port to callers.
   */
  private readonly resolve: Resolver;
  private hasAllowedRanges = false;
  /**
   * The certificate authorities trusted beyond the machine's own (core/net/trust.ts). The guard
   * is the service's one way out, so every guarded TLS client verifies with the same trust.
   */
  readonly trust: TlsTrust;
  /**
   * Record lookups (MX, TXT...) asked of the same DNS servers as `resolver`; without one, every
   * record question is answered as an error and no DNS server is asked (core/net/dns-records.ts).
   */
  readonly records: RecordLookup;

  constructor(allow: readonly string[] = [], options: { resolver?: Resolver; records?: RecordLookup; trust?: TlsTrust } = {}) {
    this.resolve = options.resolver ?? systemResolver;
    this.records = options.records ?? noRecordLookup;
    this.trust = options.trust ?? NO_EXTRA_TRUST;
    for (const entry of allow) {
      if (/^https?:\/\//i.test(entry)) {
        this.allowedOrigins.add(new URL(entry).origin);
        continue;
      }
      const [addr, bits] = entry.split('/');
      const family = net.isIP(addr);
      if (family === 0) {
        this.allowedHosts.add(entry.toLowerCase());
        continue;
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      this.allowed.addSubnet(addr, bits === undefined ? (family === 4 ? 32 : 128) : Number(bits), type);
      this.hasAllowedRanges = true;
    }
  }

  /** True when the address may be connected to. */
  isAllowedAddress(address: string): boolean {
    const ip = address.replace(/^\[|\]$/g, '');
    // net.isIP, not ipaddr.isValid: the latter also takes 0x7f.1 and other shorthands, which
    // only a URL parser (that writes them out) may turn into an address.
    const family = net.isIP(ip);
    if (family === 0) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(ip, type)) return true;
    if (family === 4) return !blocked.check(ip, 'ipv4');
    const bytes = ipaddr.IPv6.parse(ip).toByteArray();
    const carried = embeddedV4(bytes);
    if (carried.length > 0) return carried.every((a) => this.allowed.check(a, 'ipv4') || !blocked.check(a, 'ipv4'));
    return !blocked.check(ip, 'ipv6');
  }

  /** The operator allowlisted this address itself (not merely: it is public). */
  private isAllowlistedAddress(address: string): boolean {
    const ip = address.replace(/^\[|\]$/g, '');
    const family = net.isIP(ip);
    return family !== 0 && this.allowed.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  }

  isAllowedHost(host: string): boolean {
    return this.allowedHosts.has(host.toLowerCase());
  }

  /** The URL's origin (scheme, host, port) is allowlisted as a whole. */
  isAllowedOrigin(url: string | URL): boolean {
    try {
      return this.allowedOrigins.has(new URL(url).origin);
    } catch {
      return false;
    }
  }

  /** A request to `url` answered from `address` is allowed. */
  isAllowedConnection(url: string, address: string): boolean {
    if (this.isAllowedOrigin(url)) return true;
    try {
      if (this.isAllowedHost(new URL(url).hostname)) return true;
    } catch {
      return false;
    }
    return this.isAllowedAddress(address);
  }

  /** A lookup for one URL: lets an allowlisted origin through, else the connect-time check. */
  lookupFor(url: URL): (hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => void {
    return this.isAllowedOrigin(url) ? lookupVia(this.resolve) : this.lookup;
  }

  /** The resolver this guard asks (the service's one way to DNS). */
  get resolver(): Resolver {
    return this.resolve;
  }

  /** Checks a URL's scheme and every address its host resolves to; throws TARGET_BLOCKED. */
  async assertUrl(raw: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new WebperfError('TARGET_BLOCKED', `Not a valid URL: ${raw}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new WebperfError('TARGET_BLOCKED', `Only http and https addresses can be tested: ${raw}`);
    }
    if (url.username || url.password) throw new WebperfError('TARGET_BLOCKED', 'Addresses with credentials are not tested');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.isAllowedHost(host) || this.isAllowedOrigin(url)) return url;
    if (isInternalName(host)) {
      // Only the operator's own ranges let an internal name through (tests allowlist loopback, and localhost with it).
      const addresses = this.hasAllowedRanges ? await this.resolveAll(host).catch(() => []) : [];
      if (addresses.length > 0 && addresses.every((a) => this.isAllowlistedAddress(a))) return url;
      throw new WebperfError('TARGET_BLOCKED', `The host ${url.hostname} is an internal name, which is not allowed as a test target`);
    }
    const addresses = net.isIP(host) ? [host] : await this.resolveAll(host);
    for (const address of addresses) {
      if (!this.isAllowedAddress(address)) {
        throw new WebperfError('TARGET_BLOCKED', `The address ${url.hostname} resolves to ${address}, which is not allowed as a test target`);
      }
    }
    return url;
  }

  /**
   * A dns.lookup replacement for http/https/tls/net: refuses blocked addresses at connect time, so
   * the address checked is the address connected (DNS rebinding).
   */
  readonly lookup = (hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void): void => {
    const allowedHost = this.isAllowedHost(hostname);
    const internal = !allowedHost && isInternalName(hostname);
    const internalError = () => new WebperfError('TARGET_BLOCKED', `The host ${hostname} is an internal name, which is not allowed as a test target`);
    if (internal && !this.hasAllowedRanges) return callback(internalError());
    const literal = net.isIP(hostname);
    const found = literal !== 0 ? Promise.resolve([{ address: hostname, family: literal }]) : this.resolve(hostname);
    found.then((list) => {
      if (internal && !(list.length > 0 && list.every((a) => this.isAllowlistedAddress(a.address)))) return callback(internalError());
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      const ofFamily = family === 4 || family === 6 ? list.filter((a) => a.family === family) : list;
      // One refused address refuses the name, as assertUrl does: a name that also points inside
      // is not a public target, whichever of its addresses the socket would pick.
      const bad = allowedHost ? undefined : list.find((a) => !this.isAllowedAddress(a.address));
      if (bad) return callback(new WebperfError('TARGET_BLOCKED', `${hostname} resolves to ${bad.address}, which is not allowed as a test target`));
      const ok = ofFamily;
      if (ok.length === 0) return callback(new WebperfError('TARGET_UNREACHABLE', `The host ${hostname} has no ${family === 6 ? 'IPv6' : 'IPv4'} address`));
      if (options.all) return callback(null, ok);
      return callback(null, ok[0].address, ok[0].family);
    }, (err: unknown) => callback(err));
  };

  /** Every address of a name, through this guard's resolver. */
  private async resolveAll(host: string): Promise<string[]> {
    try {
      const found = await this.resolve(host);
      if (found.length === 0) throw new Error('no addresses');
      return found.map((a) => a.address);
    } catch {
      throw new WebperfError('TARGET_UNREACHABLE', `The host ${host} could not be resolved`);
    }
  }
}
