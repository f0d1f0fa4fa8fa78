/**
 * Guarded HTTP and TLS probes beside the page load. Each URL is fetched once per run (memoised),
 * every hop of a redirect chain passes the target guard at connect time.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { isWebperfError } from '../errors.js';
import { fetchFailureOf } from './fetch-failure.js';
import type { DnsAnswer, ProbeResponse, Probes, TlsProbe } from '../plugin-api.js';
import { decodeBody } from './charset.js';
import type { TargetGuard } from './target-guard.js';

/** The raw bytes behind a probe answer, for callers that read binary bodies (gzipped sitemaps). */
export interface ProbeBody {
  bytes: Buffer;
  /** The answer was longer than the caller's maxBytes; `bytes` holds only the first maxBytes. */
  truncated: boolean;
}

// ProbeResponse (the plugin contract) carries text only; the bytes ride beside it, keyed by the
// answer object, so binary readers need no second request and the contract stays unchanged.
const BODIES = new WeakMap<ProbeResponse, ProbeBody>();

/**
 * The raw body of an answer made by these probes: undefined for answers from elsewhere (a test's
 * own Probes, say), where only the text is known.
 */
export function probeBody(res: ProbeResponse): ProbeBody | undefined {
  return BODIES.get(res);
}

export interface ProbeOptions {
  timeoutMs?: number;
  userAgent?: string;
}

const DEFAULT_MAX_BYTES = 2_000_000;
export const PROBE_USER_AGENT = 'Mozilla/5.0 (compatible; webperf/1.0; +https://github.com/webperf)';

function lowerHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function requestOnce(
  guard: TargetGuard,
  url: URL,
  method: string,
  maxBytes: number,
  timeoutMs: number,
  userAgent: string,
): Promise<{ status: number; headers: Record<string, string>; bytes: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        method,
        lookup: guard.lookupFor(url) as any,
        headers: { 'user-agent': userAgent, accept: '*/*' },
        timeout: timeoutMs,
        // Certificates are judged by the TLS probe; a probe still reads a misconfigured site.
        rejectUnauthorized: false,
        ...(url.protocol === 'https:' ? { secureContext: guard.trust.secureContext(), agent: guard.trust.httpsAgent } : {}),
      } as https.RequestOptions,
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          const room = maxBytes - size;
          size += chunk.length;
          if (chunk.length <= room) return void chunks.push(chunk);
          if (room > 0) chunks.push(chunk.subarray(0, room));
          truncated = true;
          res.destroy();
        });
        const done = () =>
          resolve({ status: res.statusCode ?? 0, headers: lowerHeaders(res.headers), bytes: Buffer.concat(chunks), truncated });
        res.on('end', done);
        res.on('close', done);
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`Timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

export function createProbes(guard: TargetGuard, options: ProbeOptions = {}): Probes {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const userAgent = options.userAgent ?? PROBE_USER_AGENT;
  const fetchCache = new Map<string, Promise<ProbeResponse>>();
  const tlsCache = new Map<string, Promise<TlsProbe>>();
  const dnsCache = new Map<string, Promise<DnsAnswer>>();

  async function doFetch(raw: string, method: 'GET' | 'HEAD', follow: boolean, maxBytes: number): Promise<ProbeResponse> {
    const chain: string[] = [];
    let current = raw;
    for (let hop = 0; hop < 10; hop++) {
      chain.push(current);
      try {
        const url = await guard.assertUrl(current);
        const res = await requestOnce(guard, url, method, maxBytes, timeoutMs, userAgent);
        const location = res.headers.location;
        if (follow && res.status >= 300 && res.status < 400 && location) {
          current = new URL(location, url).href;
          continue;
        }
        const answer: ProbeResponse = { url: current, status: res.status, headers: res.headers, body: decodeBody(res.bytes, res.headers['content-type']), chain };
        BODIES.set(answer, { bytes: res.bytes, truncated: res.truncated });
        return answer;
      } catch (err) {
        return { url: current, status: 0, headers: {}, body: '', chain, error: err instanceof Error ? err.message : String(err), failure: fetchFailureOf(err) };
      }
    }
    return { url: current, status: 0, headers: {}, body: '', chain, error: 'Too many redirects', failure: 'redirects' };
  }

  async function tryVersion(host: string, port: number, version: tls.SecureVersion): Promise<tls.TLSSocket | Error | null> {
    return new Promise((resolve) => {
      const socket = tls.connect({
        host,
        port,
        // SNI takes host names only (RFC 6066).
        ...(net.isIP(host) ? {} : { servername: host }),
        minVersion: version,
        maxVersion: version,
        rejectUnauthorized: false,
        ALPNProtocols: ['h2', 'http/1.1'],
        // Old protocols are only reachable at the lowest security level; we ask to know if they are offered.
        ciphers: 'DEFAULT@SECLEVEL=0',
        // Trusted means trusted by the machine and the operator's extra CAs (core/net/trust.ts);
        // that context carries the version and ciphers above, which a given context overrides.
        secureContext: guard.trust.secureContext({ minVersion: version, maxVersion: version, ciphers: 'DEFAULT@SECLEVEL=0' }),
        lookup: guard.lookupFor(new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}/`)) as any,
        timeout: timeoutMs,
      });
      socket.once('secureConnect', () => resolve(socket));
      // The guard's connect-time refusal is the answer for every version; other errors are one version not offered.
      socket.once('error', (err) => resolve(isWebperfError(err) ? err : null));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(null);
      });
    });
  }

  async function doTls(host: string, port: number): Promise<TlsProbe> {
    const versions: string[] = [];
    let certificate: TlsProbe['certificate'] = null;
    let alpn: string | null = null;
    // The four handshakes at once (one after another they were a second of every run's plugin
    // phase), read in order: the certificate and ALPN of the oldest version offered come first.
    const order = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as tls.SecureVersion[];
    const attempts = await Promise.all(order.map((version) => tryVersion(host, port, version)));
    const refusal = attempts.find((a): a is Error => a instanceof Error);
    if (refusal) {
      for (const a of attempts) if (a && !(a instanceof Error)) a.destroy();
      return { versions: [], certificate: null, alpn: null, error: refusal.message };
    }
    for (const [i, version] of order.entries()) {
      const socket = attempts[i];
      if (!socket || socket instanceof Error) continue;
      versions.push(version);
      if (!certificate) {
        const cert = socket.getPeerCertificate();
        if (cert && cert.valid_to) {
          const validTo = new Date(cert.valid_to);
          certificate = {
            subject: String(cert.subject?.CN ?? ''),
            issuer: String(cert.issuer?.CN ?? ''),
            validFrom: new Date(cert.valid_from).toISOString(),
            validTo: validTo.toISOString(),
            daysToExpiry: Math.floor((validTo.getTime() - Date.now()) / 86_400_000),
            trusted: socket.authorized,
            verifyError: socket.authorizationError ? String(socket.authorizationError) : null,
          };
        }
      }
      if (socket.alpnProtocol) alpn = socket.alpnProtocol;
      socket.destroy();
    }
    return { versions, certificate, alpn, ...(versions.length === 0 ? { error: 'No TLS handshake succeeded' } : {}) };
  }

  return {
    fetch(url, opts = {}) {
      const method = opts.method ?? 'GET';
      const follow = opts.followRedirects ?? true;
      const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
      // The limit is part of the key: a short read for one caller must not cut another's body.
      const key = `${method} ${follow ? 'follow' : 'manual'} ${maxBytes} ${url}`;
      let hit = fetchCache.get(key);
      if (!hit) {
        hit = doFetch(url, method, follow, maxBytes);
        fetchCache.set(key, hit);
      }
      return hit;
    },
    tls(host, port = 443) {
      const key = `${host}:${port}`;
      let hit = tlsCache.get(key);
      if (!hit) {
        hit = (async () => {
          try {
            // Plugins pass a URL's hostname, brackets and all for IPv6; a bare IPv6 address is bracketed here.
            const bare = host.replace(/^\[|\]$/g, '');
            const url = await guard.assertUrl(`https://${net.isIP(bare) === 6 ? `[${bare}]` : bare}:${port}/`);
            return await doTls(url.hostname.replace(/^\[|\]$/g, ''), port);
          } catch (err) {
            return { versions: [], certificate: null, alpn: null, error: err instanceof Error ? err.message : String(err) };
          }
        })();
        tlsCache.set(key, hit);
      }
      return hit;
    },
    dns(name, type, options = {}) {
      const key = `${type} ${name.toLowerCase().replace(/\.$/, '')}${options.checkingDisabled ? ' cd' : ''}`;
      let hit = dnsCache.get(key);
      if (!hit) {
        hit = guard.records(name, type, options);
        dnsCache.set(key, hit);
      }
      return hit;
    },
    isAllowedAddress(address) {
      return guard.isAllowedAddress(address);
    },
  };
}
