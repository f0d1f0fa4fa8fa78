/**
 * The loopback fence of the guard matrix: while installed, no socket of this process connects to
 * anything but loopback. It sits where every Node socket (http, https, tls, net, pg) starts to
 * connect, and where a name is resolved for it, so an address the target guard should have
 * refused is recorded as a connection attempt and stopped before a packet leaves the machine.
 * It judges nothing for the product; it measures, and keeps the tests' promise of loopback only.
 */
import dns from 'node:dns';
import net from 'node:net';

export interface Fence {
  /** Connection attempts to addresses other than loopback, each stopped: must stay empty. */
  attempts: string[];
  remove(): void;
}

function isLoopback(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  return /^127\./.test(ip) || ip === '::1' || /^::ffff:127\./.test(ip) || /^::ffff:7f/.test(ip);
}

type LookupFn = (hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => void;

export function installLoopbackFence(): Fence {
  const attempts: string[] = [];
  const original = net.Socket.prototype.connect;
  const fencedLookup = (lookup: LookupFn): LookupFn => (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err: Error | null, list: dns.LookupAddress[]) => {
      if (err) return callback(err);
      const outside = list.find((a) => !isLoopback(a.address));
      if (outside) {
        attempts.push(`${hostname} -> ${outside.address}`);
        return callback(new Error(`loopback fence: ${hostname} resolved to ${outside.address}; not connected`));
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
  net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
    // Node calls connect with a normalized [options, callback] array internally, or with the
    // public (options | port, host) forms.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options = first !== null && typeof first === 'object' ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
    if (!options.path) {
      const host = String(options.host ?? 'localhost');
      if (net.isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
        if (!isLoopback(host)) {
          attempts.push(host);
          process.nextTick(() => this.destroy(new Error(`loopback fence: ${host} is not loopback; not connected`)));
          return this;
        }
      } else if (first === options) {
        options.lookup = fencedLookup(options.lookup ?? dns.lookup);
      } else if (host !== 'localhost') {
        attempts.push(host);
        process.nextTick(() => this.destroy(new Error(`loopback fence: ${host} not connected`)));
        return this;
      }
    }
    return original.apply(this, args as any);
  } as typeof original;
  return {
    attempts,
    remove: () => {
      net.Socket.prototype.connect = original;
    },
  };
}
