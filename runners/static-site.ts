/**
 * A tiny static file server for the bundled demo site and the test fixture sites, on loopback.
 * Only node:http and node:fs; behaviour beyond plain files comes from `<root>/_site.json`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Schema of `<root>/_site.json`, read once when the server starts; every field is optional.
 *
 * - `headers`: extra response headers. `match` ending in `/` is a path prefix (`/` matches every
 *   path); anything else must equal the request path exactly. Rules apply in order, later ones
 *   override; an array value sends the header once per element (several Set-Cookie lines).
 *   Headers go on every answer to a matching request path: files, not-found answers, redirects.
 * - `notFound`: how unknown paths answer. Default `{ status: 404, file: '404.html' }` (plain
 *   "Not found" when that file is missing); status 200 serves `file` (default `index.html`);
 *   302 redirects to `location` (default `/`).
 * - `redirects`: exact request path to target, answered with 301.
 *
 * In text files (html, css, js, xml, txt, json, rss, atom) every `{{origin}}` becomes the server's
 * origin (`http://127.0.0.1:<port>`), because robots.txt, sitemaps and feeds need absolute URLs
 * and the port is only known at start.
 */
export interface SiteConfig {
  headers?: { match: string; headers: Record<string, string | string[]> }[];
  notFound?: { status: 404 | 200 | 302; file?: string; location?: string };
  redirects?: Record<string, string>;
}

/** A running static site; `url` is its start page, with a trailing slash. */
export interface StaticSite {
  url: string;
  port: number;
  close(): Promise<void>;
}

const UTF8 = '; charset=utf-8';
const CONTENT_TYPES: Record<string, string> = {
  '.html': `text/html${UTF8}`, '.css': `text/css${UTF8}`, '.js': `text/javascript${UTF8}`,
  '.txt': `text/plain${UTF8}`, '.xml': `application/xml${UTF8}`, '.json': `application/json${UTF8}`,
  '.rss': `application/rss+xml${UTF8}`, '.atom': `application/atom+xml${UTF8}`,
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg',
  '.webp': 'image/webp', '.ico': 'image/x-icon',
};

const CONFIG_FILE = '_site.json';
const TEXT = CONTENT_TYPES['.txt'];

/** Serve the files under `root` on 127.0.0.1 (port 0, i.e. any free port, unless given). */
export async function startStaticSite(root: string, options: { host?: string; port?: number } = {}): Promise<StaticSite> {
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  const handler = await staticHandler(root, () => origin);
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}/`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections(); // keep-alive sockets would otherwise hold close() open
      }),
  };
}

/** A request handler of node:http (or node:http2's compatibility API) that answers like a static site. */
export type SiteHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The handler behind startStaticSite, for servers made elsewhere (the test world's https hosts):
 * `originOf` gives the origin `{{origin}}` becomes for a request (the host it was asked as).
 */
export async function staticHandler(root: string, originOf: (req: IncomingMessage) => string): Promise<SiteHandler> {
  const base = path.resolve(root);
  const config = await readConfig(base);
  return (req, res) => {
    handle({ base, config, origin: originOf(req) }, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': TEXT });
      res.end();
    });
  };
}

async function readConfig(base: string): Promise<SiteConfig> {
  const text = await readFile(path.join(base, CONFIG_FILE), 'utf8').catch(() => null);
  return text === null ? {} : (JSON.parse(text) as SiteConfig);
}

type HeaderMap = Record<string, string | string[]>;

async function handle({ base, config, origin }: { base: string; config: SiteConfig; origin: string }, req: IncomingMessage, res: ServerResponse) {
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) {
    return send(res, 405, { Allow: 'GET, HEAD', 'Content-Type': TEXT }, 'Method not allowed', head);
  }
  const rawPath = (req.url ?? '/').split(/[?#]/, 1)[0];
  let urlPath: string;
  try {
    urlPath = decodeURIComponent(rawPath);
  } catch {
    return send(res, 400, { 'Content-Type': TEXT }, 'Bad request', head);
  }
  const extra = headersFor(config, urlPath);
  const plain404 = { ...extra, 'Content-Type': TEXT };
  const target = path.join(base, urlPath);
  // Refused outright, whatever notFound says: traversal attempts and the config file itself.
  const refused = !urlPath.startsWith('/') || urlPath.includes('\0') || urlPath.split(/[/\\]/).includes('..') ||
    (!target.startsWith(base + path.sep) && target !== base) || target === path.join(base, CONFIG_FILE);
  if (refused) return send(res, 404, plain404, 'Not found', head);

  const redirect = config.redirects?.[urlPath];
  if (redirect !== undefined) return send(res, 301, { ...extra, Location: redirect }, '', head);

  const file = await findFile(target);
  if (file) return sendFile(res, 200, extra, file, origin, head);

  const nf = config.notFound ?? { status: 404 };
  if (nf.status === 302) return send(res, 302, { ...extra, Location: nf.location ?? '/' }, '', head);
  const fallback = await findFile(path.join(base, nf.file ?? (nf.status === 200 ? 'index.html' : '404.html')));
  if (fallback) return sendFile(res, nf.status, extra, fallback, origin, head);
  return send(res, nf.status, plain404, 'Not found', head);
}

/** The file to serve for `target`: itself, or its index.html when it is a directory. */
async function findFile(target: string): Promise<string | null> {
  const info = await stat(target).catch(() => null);
  if (info?.isFile()) return target;
  if (info?.isDirectory()) return findFile(path.join(target, 'index.html'));
  return null;
}

function headersFor(config: SiteConfig, urlPath: string): HeaderMap {
  const out: HeaderMap = {};
  for (const rule of config.headers ?? []) {
    const hit = rule.match.endsWith('/') ? urlPath.startsWith(rule.match) : urlPath === rule.match;
    if (hit) Object.assign(out, rule.headers);
  }
  return out;
}

async function sendFile(res: ServerResponse, status: number, extra: HeaderMap, file: string, origin: string, head: boolean) {
  const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  const bytes = await readFile(file);
  const body = type.endsWith(UTF8) ? bytes.toString('utf8').replaceAll('{{origin}}', origin) : bytes;
  send(res, status, { ...extra, 'Content-Type': type }, body, head);
}

function send(res: ServerResponse, status: number, headers: HeaderMap, body: string | Buffer, head: boolean) {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...headers, 'Content-Length': String(bytes.length) });
  res.end(head ? undefined : bytes);
}
