/**
 * A TLS fixture for the infosec tests, arranged at test time on 127.0.0.1: a self-signed
 * certificate made with the openssl CLI, an HTTPS site answering every path with chosen headers
 * (HTTP/2 with HTTP/1.1 fallback, or HTTP/1.1 only, optionally also accepting TLS 1.0 and 1.1),
 * and a plain HTTP server that redirects to it. Chromium would refuse the self-signed site, so
 * tests build the artifacts of such a page themselves (`httpsPageArtifacts`) and let the plugin's
 * probes talk to the real servers.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Artifacts, NetworkRecord, Probes } from '../../core/plugin-api.js';
import { makeArtifacts } from './fixture-artifacts.js';

const run = promisify(execFile);

export interface Certificate {
  key: Buffer;
  cert: Buffer;
}

/** A self-signed certificate for 127.0.0.1, valid from now for `days` days. */
export async function selfSignedCertificate(days: number): Promise<Certificate> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-tls-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    await run('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', String(days),
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ]);
    return { key: await readFile(key), cert: await readFile(cert) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface TlsSiteOptions {
  /** Response headers of every answer (names as sent). */
  headers?: Record<string, string>;
  /** Certificate validity in days (default 365). */
  days?: number;
  /** Serve with node:http2 (ALPN h2, HTTP/1.1 allowed) instead of node:https (default true). */
  http2?: boolean;
  /** Also accept TLS 1.0 and 1.1 (minVersion TLSv1 at OpenSSL security level 0). */
  legacyTls?: boolean;
}

export interface TlsSite {
  /** https://127.0.0.1:<port>/ */
  url: string;
  port: number;
  /** http://127.0.0.1:<port>/ that answers 301 to the same path on `url`. */
  redirectUrl: string;
  close(): Promise<void>;
}

const PAGE = '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>TLS fixture</title></head><body><main><h1>TLS fixture</h1></main></body></html>';

/** Starts the HTTPS site and its HTTP redirector; both close at `t`'s teardown. */
export async function startTlsSite(t: { teardown(fn: () => unknown): void }, options: TlsSiteOptions = {}): Promise<TlsSite> {
  const { key, cert } = await selfSignedCertificate(options.days ?? 365);
  const headers = { 'content-type': 'text/html; charset=utf-8', ...options.headers };
  const answer = (_req: unknown, res: http.ServerResponse | http2.Http2ServerResponse) => {
    res.writeHead(200, headers);
    res.end(PAGE);
  };
  const tlsOptions = {
    key,
    cert,
    ...(options.legacyTls ? { minVersion: 'TLSv1' as const, ciphers: 'DEFAULT@SECLEVEL=0' } : {}),
  };
  const secure = options.http2 === false
    ? https.createServer(tlsOptions, answer)
    : http2.createSecureServer({ ...tlsOptions, allowHTTP1: true }, answer);
  const port = await listen(secure);
  const url = `https://127.0.0.1:${port}/`;
  const redirector = http.createServer((req, res) => {
    res.writeHead(301, { location: new URL(req.url ?? '/', url).href, 'content-length': '0' });
    res.end();
  });
  const redirectPort = await listen(redirector);
  const site: TlsSite = {
    url,
    port,
    redirectUrl: `http://127.0.0.1:${redirectPort}/`,
    close: async () => {
      await Promise.all([close(secure), close(redirector)]);
    },
  };
  t.teardown(() => site.close());
  return site;
}

const sockets = new WeakMap<object, Set<Socket>>();

async function listen(server: http.Server | https.Server | http2.Http2SecureServer): Promise<number> {
  const open = new Set<Socket>();
  sockets.set(server, open);
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function close(server: http.Server | https.Server | http2.Http2SecureServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections and HTTP/2 sessions would otherwise hold close() open.
    for (const socket of sockets.get(server) ?? []) socket.destroy();
  });
}

/**
 * Probes whose fetches of a URL starting with a key go to the mapped prefix instead: the plugin
 * asks http://127.0.0.1/ (port 80) for the HTTP→HTTPS redirect, the test answers on its own port.
 */
export function routeProbes(probes: Probes, routes: Record<string, string>): Probes {
  return {
    fetch(url, options) {
      for (const [from, to] of Object.entries(routes)) {
        if (url.startsWith(from)) return probes.fetch(to + url.slice(from.length), options);
      }
      return probes.fetch(url, options);
    },
    tls: (host, port) => probes.tls(host, port),
    dns: (name, type) => probes.dns(name, type),
    isAllowedAddress: (address) => probes.isAllowedAddress(address),
  };
}

/** One network record with sensible defaults. */
export function networkRecord(url: string, resourceType: string, extra: Partial<NetworkRecord> = {}): NetworkRecord {
  return {
    url, method: 'GET', status: 200, resourceType, mimeType: '', remoteAddress: '127.0.0.1', protocol: '',
    requestHeaders: {}, responseHeaders: {}, setCookies: [], transferSize: 0, resourceSize: 0, failed: false, ...extra,
  };
}

/**
 * The artifacts of a page at `url` served with `headers` (lower-case names), as the gather step
 * would record them, with `subresources` after the main document. The document's protocol is left
 * unknown: HTTP/2 is then judged from the TLS probe's ALPN.
 */
export function httpsPageArtifacts(url: string, headers: Record<string, string>, subresources: NetworkRecord[] = []): Artifacts {
  return makeArtifacts(url, {
    mainDocument: { url, status: 200, headers, html: PAGE },
    network: [networkRecord(url, 'Document', { responseHeaders: headers }), ...subresources],
    renderedText: 'TLS fixture',
    mainText: 'TLS fixture',
    htmlLang: 'en',
  });
}
