/**
 * The test world: fixture websites served the way real ones are. Each host has its own loopback
 * address (127.16.0.0/12, chosen at random and retried when taken, so that test files running at
 * once never meet), https on port 443 (HTTP/2 and HTTP/1.1 by ALPN, a certificate from the
 * suite's CA) and http on port 80 (a 301 to https by default); its names (a `.test` name, RFC 6761,
 * its `www` twin, a CDN alias, or a third party's real name such as `www.googletagmanager.com`)
 * are answered by the world's own DNS server, which the service is pointed at as an operator
 * would (WEBPERF_DNS_SERVERS), and the suite's CA is trusted as an operator would make it trust
 * one (WEBPERF_EXTRA_CA_CERTS): the guard, the probes, the proxy Chromium connects through and
 * Chromium itself see names, ports and certificates as on the web.
 *
 * The CA is made once per `npm test` run (test/run.ts, WEBPERF_TEST_CA_DIR); the shared fixture
 * sites that run serves (WEBPERF_TEST_SHARED_HOSTS) are in every world's zone.
 *
 * Ports 80 and 443 need root or CAP_NET_BIND_SERVICE (CI runs as root). Without them the suite
 * fails and says how: run it as `unshare -rn npm test` (a user and network namespace in which the
 * user may bind low ports; loopback must then be brought up first, see the README), or lower
 * net.ipv4.ip_unprivileged_port_start.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../core/config.js';
import { recordLookup, type RecordLookup } from '../../../core/net/dns-records.js';
import { dnsServersResolver, type Resolver } from '../../../core/net/resolver.js';
import { TargetGuard } from '../../../core/net/target-guard.js';
import { trustFromPem, type TlsTrust } from '../../../core/net/trust.js';
import { staticHandler, type SiteHandler } from '../../../runners/static-site.js';
import { createTestCa, loadTestCa, type CertificateKind, type TestCa } from './ca.js';
import { startDnsServer, type DnsServer, type ZoneRecords } from './dns-server.js';

export type { ZoneRecords } from './dns-server.js';
export type { CertificateKind } from './ca.js';

export interface HttpsOptions {
  /** Offer HTTP/2 by ALPN (default true); false: HTTP/1.1 only. */
  http2?: boolean;
  /** Also accept TLS 1.0 and 1.1. */
  legacyTls?: boolean;
  /** What is wrong with the certificate (default: nothing). */
  cert?: CertificateKind;
  /** Days the certificate has left (default 90). */
  days?: number;
  /**
   * 'hang': accept TCP on 443 and never complete a TLS handshake; 'plain-http': answer it in plain
   * HTTP (a server misconfigured); 'reset': reset the connection at once.
   */
  handshake?: 'hang' | 'plain-http' | 'reset';
}

export interface SiteOptions {
  /** Static files: a folder under test/fixtures/sites or an absolute path (see runners/static-site.ts). */
  root?: string;
  /** Or answers of the test's own. */
  handler?: SiteHandler;
  /** More names of the same host (its certificate covers them), e.g. `www.kommun.test`. */
  aliases?: string[];
  /** https on port 443 (default on); false: port 443 closed. */
  https?: false | HttpsOptions;
  /**
   * http on port 80: 'redirect' (301 to the same path on https on the same host; the default with
   * https), 'serve' (the site itself; the default without https), 'none' (port 80 closed), or a
   * handler of its own.
   */
  http?: 'redirect' | 'serve' | 'none' | SiteHandler;
}

export interface WorldSite {
  /** The primary name. */
  name: string;
  /** Every name of the host. */
  names: string[];
  /** The loopback address it is served on. */
  address: string;
  /** `https://name/` (or `http://name/` when it has no https). */
  url: string;
  origin: string;
  httpUrl: string;
  close(): Promise<void>;
}

export interface World {
  dns: DnsServer;
  ca: TestCa;
  /** The resolver the service builds from WEBPERF_DNS_SERVERS, pointed at this world's DNS server. */
  resolver: Resolver;
  /** The record lookups (MX, TXT...) the service builds from WEBPERF_DNS_SERVERS, asking this world's DNS server. */
  records: RecordLookup;
  /** The trust the service builds from WEBPERF_EXTRA_CA_CERTS naming the suite's CA. */
  trust: TlsTrust;
  /** Serves a host under `name`. */
  site(name: string, options?: SiteOptions): Promise<WorldSite>;
  /** Adds DNS records (a CNAME, MX or TXT, or an A record to an address nothing serves). */
  record(name: string, records: ZoneRecords): void;
  /** A guard with this world's resolver and trust; loopback (the fixture hosts) allowlisted unless `allow` is given. */
  guard(allow?: readonly string[]): TargetGuard;
  /** The environment that points a service process at this world, as an operator would configure it. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

interface Teardown { teardown(fn: () => unknown): void }

/** The loopback range the world's hosts live in (never 127.0.0.1, where the suite's other servers listen). */
const HOST_RANGE = () => `127.${randomInt(16, 32)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

let caPromise: Promise<TestCa> | null = null;

/** The run's CA (WEBPERF_TEST_CA_DIR, made by test/run.ts), or a new one in a temporary folder. */
export function suiteCa(): Promise<TestCa> {
  caPromise ??= process.env.WEBPERF_TEST_CA_DIR
    ? loadTestCa(process.env.WEBPERF_TEST_CA_DIR)
    : mkdtemp(path.join(os.tmpdir(), 'webperf-ca-')).then(async (dir) => {
      const ca = await createTestCa(dir);
      process.env.WEBPERF_TEST_CA_DIR = dir;
      return ca;
    });
  return caPromise;
}

/** Hosts served for the whole run (test/run.ts), by name: their A records join every world's zone. */
function sharedHosts(): Record<string, string> {
  return JSON.parse(process.env.WEBPERF_TEST_SHARED_HOSTS ?? '{}') as Record<string, string>;
}

const LOW_PORT_HINT = 'The test world serves fixture sites on ports 80 and 443 of loopback addresses, which needs root or CAP_NET_BIND_SERVICE. ' +
  'Run the suite as root (as CI does), or in a user and network namespace: `unshare -rn sh -c "ip link set lo up && npm test"`, ' +
  'or allow low ports: `sysctl net.ipv4.ip_unprivileged_port_start=80`.';

type AnyServer = http.Server | https.Server | http2.Http2SecureServer | net.Server;

function listen(server: AnyServer, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EACCES') reject(new Error(`Cannot listen on ${address}:${port}: ${LOW_PORT_HINT}`));
      else reject(err);
    };
    server.once('error', onError);
    server.listen(port, address, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closer(server: AnyServer): () => Promise<void> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  return () => new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
}

/** The origin a request was asked as (Host, or HTTP/2's :authority). */
function requestOrigin(scheme: 'http' | 'https', fallbackHost: string) {
  return (req: http.IncomingMessage) => {
    const host = (req.headers[':authority'] as string | undefined) ?? req.headers.host ?? fallbackHost;
    // As a URL writes it: a scheme's default port is no part of its origin.
    return `${scheme}://${host.replace(scheme === 'https' ? /:443$/ : /:80$/, '')}`;
  };
}

/** Starts a world; closed at `t`'s teardown when given. */
export async function startWorld(t?: Teardown): Promise<World> {
  const zone = new Map<string, ZoneRecords>();
  for (const [name, address] of Object.entries(sharedHosts())) zone.set(name, { A: [address] });
  const [dns, ca] = await Promise.all([startDnsServer(zone), suiteCa()]);
  const resolver = dnsServersResolver([dns.address]);
  const records = recordLookup([dns.address]);
  const trust = trustFromPem(ca.certPem, 'the test CA');
  const closers: (() => Promise<void>)[] = [];

  async function site(name: string, options: SiteOptions = {}): Promise<WorldSite> {
    const names = [name, ...(options.aliases ?? [])].map((n) => n.toLowerCase());
    const tlsOptions = options.https === false ? null : options.https ?? {};
    const httpMode = options.http ?? (tlsOptions ? 'redirect' : 'serve');
    const content = async (scheme: 'http' | 'https'): Promise<SiteHandler> => {
      if (options.handler) return options.handler;
      if (!options.root) return (_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body><main><h1>${name}</h1></main></body></html>`);
      const root = path.isAbsolute(options.root) ? options.root : path.join(PROJECT_ROOT, 'test', 'fixtures', 'sites', options.root);
      return staticHandler(root, requestOrigin(scheme, name));
    };
    const issued = tlsOptions && !tlsOptions.handshake ? await ca.issue(names, { kind: tlsOptions.cert, days: tlsOptions.days }) : null;
    const makeServers = async () => {
      const servers: { server: AnyServer; port: number }[] = [];
      if (tlsOptions) {
        let secure: AnyServer;
        if (tlsOptions.handshake === 'hang') {
          secure = net.createServer(() => {}); // accepts, then says nothing
        } else if (tlsOptions.handshake === 'reset') {
          secure = net.createServer((socket) => socket.resetAndDestroy());
        } else if (tlsOptions.handshake === 'plain-http') {
          secure = net.createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'));
        } else {
          const secureOptions = {
            key: issued!.key,
            cert: issued!.cert,
            ...(tlsOptions.legacyTls ? { minVersion: 'TLSv1' as const, ciphers: 'DEFAULT@SECLEVEL=0' } : {}),
          };
          const handler = await content('https');
          secure = tlsOptions.http2 === false
            ? https.createServer(secureOptions, handler)
            : http2.createSecureServer({ ...secureOptions, allowHTTP1: true }, handler as any);
        }
        servers.push({ server: secure, port: 443 });
      }
      if (httpMode !== 'none') {
        const handler: SiteHandler = httpMode === 'redirect'
          ? (req, res) => {
            const host = req.headers.host ?? name;
            res.writeHead(301, { location: `https://${host.replace(/:80$/, '')}${req.url ?? '/'}`, 'content-length': '0' });
            res.end();
          }
          : httpMode === 'serve' ? await content('http') : httpMode;
        servers.push({ server: http.createServer(handler), port: 80 });
      }
      return servers;
    };

    for (let attempt = 0; ; attempt++) {
      const address = HOST_RANGE();
      const servers = await makeServers();
      const closes = servers.map(({ server }) => closer(server));
      try {
        for (const { server, port } of servers) await listen(server, address, port);
      } catch (err) {
        await Promise.all(closes.map((c) => c()));
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 20) continue;
        throw err;
      }
      for (const n of names) zone.set(n, { ...zone.get(n), A: [address] });
      const close = async () => {
        await Promise.all(closes.map((c) => c()));
      };
      closers.push(close);
      const origin = `${tlsOptions ? 'https' : 'http'}://${name}`;
      return { name, names, address, url: `${origin}/`, origin, httpUrl: `http://${name}/`, close };
    }
  }

  const world: World = {
    dns,
    ca,
    resolver,
    records,
    trust,
    site,
    record: (name, records) => void zone.set(name.toLowerCase(), { ...zone.get(name.toLowerCase()), ...records }),
    guard: (allow = ['127.0.0.0/8']) => new TargetGuard(allow, { resolver, records, trust }),
    env: (extra = {}) => ({
      WEBPERF_DNS_SERVERS: dns.address,
      WEBPERF_EXTRA_CA_CERTS: ca.certFile,
      WEBPERF_ALLOW_TARGETS: '127.0.0.0/8',
      ...extra,
    }),
    close: async () => {
      await Promise.all(closers.map((c) => c()));
      await dns.close();
    },
  };
  t?.teardown(() => world.close());
  return world;
}

let processWorld: Promise<World> | null = null;

/**
 * This test process's world, started on first use and closed when the process's tests end: the
 * one most files need (their fixture sites side by side, one DNS server). A file that needs a
 * world of its own (names that mean something else there) starts one with startWorld(t).
 */
export function testWorld(): Promise<World> {
  if (!processWorld) {
    processWorld = startWorld();
    const started = processWorld;
    // tap is imported lazily: this module also serves test/run.ts, outside any tap process.
    void import('tap').then(({ default: tap }) => tap.teardown(async () => {
      await (await started).close();
      if (processWorld === started) processWorld = null;
    }));
  }
  return processWorld;
}

/** A resolver that asks this process's world (made on first lookup), for guards built before it. */
export const testResolver: Resolver = async (hostname) => (await testWorld()).resolver(hostname);
/** Record lookups (MX, TXT...) asked of the process's shared world. */
export const testRecords: RecordLookup = async (name, type) => (await testWorld()).records(name, type);

let suiteTrustMemo: TlsTrust | null = null;

/**
 * The suite's CA as the service trusts it (WEBPERF_EXTRA_CA_CERTS), read synchronously from the
 * folder test/run.ts made, so that guards and browser pools built at import time trust it.
 */
export function suiteTrust(): TlsTrust {
  if (suiteTrustMemo) return suiteTrustMemo;
  const dir = process.env.WEBPERF_TEST_CA_DIR;
  if (!dir) throw new Error('Run the tests with `npm test` (it makes the test CA and sets WEBPERF_TEST_CA_DIR)');
  suiteTrustMemo = trustFromPem(readFileSync(path.join(dir, 'ca.pem'), 'utf8'), 'the test CA');
  return suiteTrustMemo;
}
