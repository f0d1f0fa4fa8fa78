/**
 * DNS record lookups (MX, TXT, NS, CNAME, A, AAAA) for the plugins that judge a domain's
 * records (the e-mail test): asked of the service's DNS servers (WEBPERF_DNS_SERVERS), else of
 * the system's, the same servers every other lookup of the service uses. Answers are names and
 * strings only; nothing here connects to what they name.
 */
import dns from 'node:dns';
import type { DnsAnswer, DnsRecordType } from '../plugin-api.js';

/** Asks one question; never throws (a failure is an answer with status 'error'). */
export type RecordLookup = (name: string, type: DnsRecordType) => Promise<DnsAnswer>;

/** c-ares codes that mean "no such name" and "the name has no record of this type". */
const NXDOMAIN = new Set<string>([dns.NOTFOUND]);
const NODATA = new Set<string>([dns.NODATA]);

/** A lookup asking `servers` (`host`, `host:port`, `[v6]:port`), or the system's servers when none are given. */
export function recordLookup(servers: readonly string[], options: { timeoutMs?: number; tries?: number } = {}): RecordLookup {
  const resolver = new dns.promises.Resolver({ timeout: options.timeoutMs ?? 2_000, tries: options.tries ?? 2 });
  if (servers.length > 0) resolver.setServers(servers as string[]);
  return async (rawName, type) => {
    const name = rawName.toLowerCase().replace(/\.$/, '');
    const answer = (status: DnsAnswer['status'], records: string[] = [], extra: Partial<DnsAnswer> = {}): DnsAnswer => ({ name, type, status, records, ...extra });
    try {
      switch (type) {
        case 'A':
          return answer('ok', await resolver.resolve4(name));
        case 'AAAA':
          return answer('ok', await resolver.resolve6(name));
        case 'CNAME':
          return answer('ok', await resolver.resolveCname(name));
        case 'NS':
          return answer('ok', await resolver.resolveNs(name));
        case 'TXT':
          return answer('ok', (await resolver.resolveTxt(name)).map((strings) => strings.join('')));
        case 'MX': {
          const mx = (await resolver.resolveMx(name))
            .map((r) => ({ exchange: r.exchange.toLowerCase().replace(/\.$/, ''), priority: r.priority }))
            .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));
          return answer('ok', mx.map((r) => r.exchange), { mx });
        }
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NXDOMAIN.has(code)) return answer('nxdomain', [], type === 'MX' ? { mx: [] } : {});
      if (NODATA.has(code)) return answer('ok', [], type === 'MX' ? { mx: [] } : {});
      return answer('error', [], { error: `${type} lookup of ${name} failed: ${code || (err as Error).message}` });
    }
  };
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
  error: 'no DNS servers are configured for record lookups',
});
