/**
 * How the service resolves names: one Resolver for every lookup it makes (the target guard, and
 * through the guard's connect-time lookup the probes, the proxy Chromium connects through, the
 * crawler and webhook delivery).
 *
 * Default: the operating system's resolver as `dns.lookup` uses it (`/etc/hosts` included, which is
 * how operators point staging names at their servers). With `WEBPERF_DNS_SERVERS` (e.g.
 * `127.0.0.1:5353`) every name is asked of those servers only, as A and AAAA queries (CNAMEs
 * followed by the server's answer), and the system resolver is never asked.
 */
import dns from 'node:dns';
import net from 'node:net';

/** One resolved address, as dns.lookup gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Resolves a host name to every address it has. The guard's only way to DNS: the service uses
 * the system resolver or the configured DNS servers; tests inject one of their own.
 */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Answers that mean "no record of this type", not a failure. */
const NO_RECORDS = new Set<string>([dns.NODATA, dns.NOTFOUND]);

/**
 * `servers` as WEBPERF_DNS_SERVERS gives them: `host`, `host:port` or `[v6]:port`, each checked
 * here so that a typo fails at start, not at the first lookup.
 */
export function parseDnsServers(value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    const m = /^(?:\[([0-9a-f:.]+)\]|([0-9.]+))(?::(\d{1,5}))?$/i.exec(entry) ?? /^([0-9a-f:]+)()$/i.exec(entry);
    const address = m?.[1] || m?.[2] || '';
    const port = m?.[3] === undefined ? 53 : Number(m[3]);
    if (!m || net.isIP(address) === 0 || port < 1 || port > 65_535) {
      throw new Error(`WEBPERF_DNS_SERVERS must be IP addresses with optional ports (127.0.0.1:5353, [::1]:53), comma-separated, got "${entry}"`);
    }
  }
  return entries;
}

/** A Resolver that asks only `servers` (A and AAAA; CNAME chains as the server answers them). */
export function dnsServersResolver(servers: readonly string[], options: { timeoutMs?: number; tries?: number } = {}): Resolver {
  const resolver = new dns.promises.Resolver({ timeout: options.timeoutMs ?? 2_000, tries: options.tries ?? 2 });
  resolver.setServers(servers as string[]);
  const ask = async (fn: () => Promise<string[]>): Promise<string[] | Error> => {
    try {
      return await fn();
    } catch (err) {
      return NO_RECORDS.has((err as NodeJS.ErrnoException).code ?? '') ? [] : (err as Error);
    }
  };
  return async (hostname) => {
    const name = hostname.replace(/^\[|\]$/g, '');
    const literal = net.isIP(name);
    if (literal !== 0) return [{ address: name, family: literal }];
    const [v4, v6] = await Promise.all([ask(() => resolver.resolve4(name)), ask(() => resolver.resolve6(name))]);
    // A failure of both (the server did not answer) is a failure; one family missing is not.
    if (v4 instanceof Error && v6 instanceof Error) throw v4;
    const out: ResolvedAddress[] = [];
    if (Array.isArray(v4)) for (const address of v4) out.push({ address, family: 4 });
    if (Array.isArray(v6)) for (const address of v6) out.push({ address, family: 6 });
    if (out.length === 0) {
      const err = new Error(`queryA ENOTFOUND ${name}`) as NodeJS.ErrnoException;
      err.code = 'ENOTFOUND';
      throw err;
    }
    return out;
  };
}

/** The service's resolver: the configured DNS servers, else the system's. */
export function resolverFor(dnsServers: readonly string[]): Resolver {
  return dnsServers.length > 0 ? dnsServersResolver(dnsServers) : systemResolver;
}

/** The callback-style lookup (dns.lookup's shape, for http, https, net and tls) that asks `resolve`. */
export function lookupVia(resolve: Resolver): (hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => void {
  return (hostname, options, callback) => {
    resolve(hostname).then((list) => {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      const found = family === 4 || family === 6 ? list.filter((a) => a.family === family) : list;
      if (found.length === 0) {
        const err = new Error(`getaddrinfo ENOTFOUND ${hostname}`) as NodeJS.ErrnoException;
        err.code = 'ENOTFOUND';
        return callback(err);
      }
      return options.all ? callback(null, found) : callback(null, found[0].address, found[0].family);
    }, (err: unknown) => callback(err));
  };
}
