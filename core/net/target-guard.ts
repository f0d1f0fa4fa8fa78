/**
 * The target guard: every URL the service fetches or lets Chromium load on a caller's behalf
 * passes it. Private, loopback, link-local, carrier-grade NAT, multicast, reserved and cloud
 * metadata addresses are refused unless the operator allowlists them (CIDRs or host names).
 * The check runs on resolved addresses at connect time (see guardedLookup), so DNS tricks and
 * redirects to internal addresses are refused too.
 */
import dns from 'node:dns';
import net from 'node:net';
import { WebperfError } from '../errors.js';

const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const BLOCKED_V6: [string, number][] = [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64],
];

const blocked = new net.BlockList();
for (const [a, p] of BLOCKED_V4) blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of BLOCKED_V6) blocked.addSubnet(a, p, 'ipv6');

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
  constructor(allow: readonly string[] = []) {
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
    }
  }

  /** True when the address may be connected to. */
  isAllowedAddress(address: string): boolean {
    let ip = address.replace(/^\[|\]$/g, '');
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) ip = mapped[1];
    const family = net.isIP(ip);
    if (family === 0) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(ip, type)) return true;
    return !blocked.check(ip, type);
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
    if (!this.isAllowedOrigin(url)) return this.lookup;
    return (hostname, options, callback) => dns.lookup(hostname, options, callback);
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
    const addresses = net.isIP(host) ? [host] : await resolveAll(host);
    for (const address of addresses) {
      if (!this.isAllowedAddress(address)) {
        throw new WebperfError('TARGET_BLOCKED', `The address ${url.hostname} resolves to ${address}, which is not allowed as a test target`);
      }
    }
    return url;
  }

  /** A dns.lookup replacement for http/https/tls: refuses blocked addresses at connect time. */
  readonly lookup = (hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses as dns.LookupAddress[];
      const ok = this.isAllowedHost(hostname) ? list : list.filter((a) => this.isAllowedAddress(a.address));
      if (ok.length === 0) {
        const e = new WebperfError('TARGET_BLOCKED', `${hostname} resolves only to addresses that are not allowed as test targets`);
        return callback(e);
      }
      if (options.all) return callback(null, ok);
      return callback(null, ok[0].address, ok[0].family);
    });
  };
}

async function resolveAll(host: string): Promise<string[]> {
  try {
    const found = await dns.promises.lookup(host, { all: true });
    return found.map((a) => a.address);
  } catch {
    throw new WebperfError('TARGET_UNREACHABLE', `The host ${host} could not be resolved`);
  }
}
