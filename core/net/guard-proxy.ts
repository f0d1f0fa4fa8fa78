/**
 * A loopback HTTP proxy in front of Chromium, one per page load. Chromium resolves names itself,
 * so a check before it connects (request interception) cannot see the address it then connects
 * to: a name that answers with a public address to the check and a private one to Chromium (DNS
 * rebinding) would get through. Behind this proxy Chromium resolves nothing; every connection a
 * page, an iframe, a redirect, a WebSocket or Lighthouse opens is made here, through the target
 * guard's connect-time lookup, so the address checked is the address connected.
 *
 * Plain http requests arrive in absolute form and are forwarded; https (and everything else
 * Chromium tunnels) arrives as CONNECT host:port and is spliced after the check. A refusal (a
 * closed connection, or 403 to a CONNECT) comes before any connection to the target is opened.
 */
import http from 'node:http';
import net from 'node:net';
import type { TargetGuard } from './target-guard.js';

export interface GuardProxy {
  /** The proxy's address for Chromium: `http://127.0.0.1:port`. */
  url: string;
  /** The address this proxy connected to for `host:port` (the remote address Chromium cannot see). */
  connectedAddress(host: string, port: number): string | undefined;
  /** Targets refused (`host:port` or the absolute URL), in order. */
  refused: string[];
  close(): Promise<void>;
}

// Headers of one hop only (RFC 9110 7.6.1), never forwarded.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function hostKey(host: string, port: number): string {
  return `${host.replace(/^\[|\]$/g, '').toLowerCase()}:${port}`;
}

/**
 * The `host:port` of a CONNECT request (RFC 9110 9.3.6: authority form, the port required):
 * `name:443`, `1.2.3.4:8443`, `[::1]:443`. Read by hand, not through the URL parser, which drops
 * a scheme's default port (`new URL('https://name:443/').port` is `''`): every https site on
 * port 443 would look portless. Null when it is not that form.
 */
export function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^\s:/?#@[\]]+)):(\d{1,5})$/i.exec(authority);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65_535) return null;
  const host = (m[1] ?? m[2]).toLowerCase();
  if (m[1] !== undefined && net.isIP(host) !== 6) return null;
  return { host, port };
}

/** The URL the guard judges for a tunnel to host:port (https unless said otherwise). */
function tunnelUrl(host: string, port: number, scheme: 'https' | 'http' = 'https'): URL {
  return new URL(`${scheme}://${net.isIP(host) === 6 ? `[${host}]` : host}:${port}/`);
}

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Raw header pairs without hop-by-hop ones (and those named by Connection). */
function forwardable(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === 'connection') for (const n of raw[i + 1].split(',')) named.add(n.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i], raw[i + 1]);
  }
  return out;
}

export async function startGuardProxy(guard: TargetGuard): Promise<GuardProxy> {
  const connected = new Map<string, string>();
  const refused: string[] = [];
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const server = http.createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    guard.assertUrl(url.href).then(() => {
      const upstream = http.request(url, {
        method: req.method,
        headers: forwardable(req.rawHeaders) as unknown as http.OutgoingHttpHeaders,
        lookup: guard.lookupFor(url) as any,
        agent: false,
      }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders) as unknown as http.OutgoingHttpHeaders);
        answer.pipe(res);
      });
      upstream.once('socket', (s) => {
        track(s);
        s.once('connect', () => connected.set(hostKey(url.hostname, defaultPort(url)), s.remoteAddress ?? ''));
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      req.pipe(upstream);
    }, () => {
      // No answer at all: a 403 would look to Chromium, Lighthouse and the plugins like the site's own.
      refused.push(url.href);
      req.socket.destroy();
    });
  });

  server.on('connection', track);

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = req.url ?? '';
    const parsed = parseAuthority(target);
    if (!parsed) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const { host, port } = parsed;
    const url = tunnelUrl(host, port);
    // An origin allowlisted with either scheme on this host and port lets the tunnel through:
    // what is spliced is a TCP connection to host:port, whatever the client speaks in it.
    const asHttp = tunnelUrl(host, port, 'http');
    const judged = !guard.isAllowedOrigin(url) && guard.isAllowedOrigin(asHttp) ? asHttp : url;
    guard.assertUrl(judged.href).then(() => {
      const upstream = net.connect({ host, port, lookup: guard.lookupFor(judged) as any });
      track(upstream);
      let open = false;
      upstream.once('connect', () => {
        open = true;
        connected.set(hostKey(host, port), upstream.remoteAddress ?? '');
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once('error', () => {
        if (open) client.destroy();
        else client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      });
      client.once('error', () => upstream.destroy());
      client.once('close', () => upstream.destroy());
    }, () => {
      refused.push(target);
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    });
  });

  // Plain WebSockets and other upgrades are not tunnelled by Chromium through absolute-form
  // requests; none is forwarded.
  server.on('upgrade', (_req, socket: net.Socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connectedAddress: (host, p) => connected.get(hostKey(host, p)),
    refused,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
