/**
 * Third parties under their real names in a test world: the hosts that real pages load analytics,
 * tracking and fonts from, each a world site (its own loopback address, https on port 443 with a
 * certificate from the suite's CA, its name answered by the world's DNS server), answering with
 * small scripts, stylesheets, fonts and pixels written for these tests (test/fixtures/third-parties;
 * no vendor code). A fixture page references the real addresses
 * (`https://www.googletagmanager.com/gtag/js?id=G-…`), so detection and the third-party and cookie
 * judgements meet them as on the web.
 *
 * What each host does (cookies are what type 23 judges):
 *
 * | host                            | answers                                  | cookies                                          |
 * |---------------------------------|------------------------------------------|--------------------------------------------------|
 * | www.googletagmanager.com        | /gtag/js?id=G-… (Google tag), /gtm.js?id=GTM-… (a container) | the Google tag sets _ga and _ga_<id> (document.cookie, first party, 2 years, no flags) |
 * | www.google-analytics.com        | /g/collect (a GA4 hit): 204              | none                                             |
 * | static.hotjar.com               | /c/hotjar-<site>.js                      | _hjSessionUser_<site> (1 year), _hjSession_<site> (30 min), document.cookie, SameSite=Lax, Secure on https |
 * | connect.facebook.net            | /en_US/fbevents.js (Meta Pixel)          | _fbp (document.cookie, first party, 90 days, SameSite=Lax) |
 * | www.facebook.com                | /tr/ (the pixel's image hit)             | Set-Cookie fr on .facebook.com (third party, 90 days, Secure, HttpOnly, SameSite=None) |
 * | siteimproveanalytics.com        | /js/siteanalyze_<account>.js             | nmstat (document.cookie, first party, asks 1,000 days, no flags) |
 * | global.siteimproveanalytics.io  | /image.aspx (the page-view hit)          | none                                             |
 * | fonts.googleapis.com            | /css2?family=…                           | none                                             |
 * | fonts.gstatic.com               | /s/<family>/v18/<family>-<weight>.ttf    | none                                             |
 *
 * The fonts are real TrueType fonts without outlines or character map (built here): Chromium
 * loads them and renders every character in the next font of the stack.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { PROJECT_ROOT } from '../../core/config.js';
import type { World, WorldSite } from './world/index.js';

/** Every third-party host served, by name. */
export const THIRD_PARTY_HOSTS = [
  'www.googletagmanager.com',
  'www.google-analytics.com',
  'static.hotjar.com',
  'connect.facebook.net',
  'www.facebook.com',
  'siteimproveanalytics.com',
  'global.siteimproveanalytics.io',
  'fonts.googleapis.com',
  'fonts.gstatic.com',
] as const;

export type ThirdPartyHost = (typeof THIRD_PARTY_HOSTS)[number];

/** The third parties as served in one world. */
export interface ThirdParties {
  sites: Record<ThirdPartyHost, WorldSite>;
  /** Requests each host answered, as `METHOD /path?query`, in order (cleared by the test when it needs). */
  requests: Record<ThirdPartyHost, string[]>;
}

/** Meta's cookie on facebook.com, as the pixel's hit answers it. */
export const FACEBOOK_FR_COOKIE = 'fr=0Xj4Yq2Rk7bT1cW9a.AWV3nL8pZs.BlXk0A.hE.AAA.0.0.BlXk0A.AWWq3lE8o4M; Max-Age=7776000; Path=/; Domain=.facebook.com; Secure; HttpOnly; SameSite=None';

const SCRIPTS = path.join(PROJECT_ROOT, 'test', 'fixtures', 'third-parties');
const JS = 'text/javascript; charset=utf-8';
/** A transparent 1×1 GIF, as tracking pixels answer. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

type Reply = { status: number; headers: Record<string, string | string[]>; body: string | Buffer };
type Route = (url: URL, req: IncomingMessage) => Promise<Reply | null> | Reply | null;

const notFound = (): Reply => ({ status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Not Found' });
const script = async (file: string, cache = 'private, max-age=900'): Promise<Reply> => ({
  status: 200,
  headers: { 'content-type': JS, 'cache-control': cache, 'cross-origin-resource-policy': 'cross-origin' },
  body: await readFile(path.join(SCRIPTS, file)),
});
const pixel = (extra: Record<string, string | string[]> = {}): Reply => ({
  status: 200,
  headers: { 'content-type': 'image/gif', 'cache-control': 'no-cache, no-store, must-revalidate', ...extra },
  body: PIXEL,
});
/** What a collector answers a credentialed request from a page of another origin. */
const corsFor = (req: IncomingMessage): Record<string, string> =>
  req.headers.origin ? { 'access-control-allow-origin': req.headers.origin, 'access-control-allow-credentials': 'true' } : {};

const ROUTES: Record<ThirdPartyHost, Route> = {
  'www.googletagmanager.com': (url) => {
    const id = url.searchParams.get('id') ?? '';
    if (url.pathname === '/gtag/js' && /^(G|AW|GT|DC)-[A-Z0-9]+$/.test(id)) return script('www.googletagmanager.com/gtag.js');
    if (url.pathname === '/gtm.js' && /^GTM-[A-Z0-9]+$/.test(id)) return script('www.googletagmanager.com/gtm.js');
    return notFound();
  },
  'www.google-analytics.com': (url, req) =>
    url.pathname === '/g/collect' ? { status: 204, headers: { 'cache-control': 'no-cache, no-store, must-revalidate', ...corsFor(req) }, body: '' } : notFound(),
  'static.hotjar.com': (url) => (/^\/c\/hotjar-\d+\.js$/.test(url.pathname) ? script('static.hotjar.com/hotjar.js', 'max-age=60') : notFound()),
  'connect.facebook.net': (url) => (url.pathname === '/en_US/fbevents.js' ? script('connect.facebook.net/fbevents.js', 'public, max-age=1200') : notFound()),
  'www.facebook.com': (url) => (url.pathname === '/tr/' || url.pathname === '/tr' ? pixel({ 'set-cookie': [FACEBOOK_FR_COOKIE] }) : notFound()),
  'siteimproveanalytics.com': (url) => (/^\/js\/siteanalyze_\d+\.js$/.test(url.pathname) ? script('siteimproveanalytics.com/siteanalyze.js', 'public, max-age=3600') : notFound()),
  'global.siteimproveanalytics.io': (url) => (url.pathname === '/image.aspx' ? pixel() : notFound()),
  'fonts.googleapis.com': (url) => {
    if (url.pathname !== '/css2' && url.pathname !== '/css') return notFound();
    const css = fontCss(url.searchParams.getAll('family'), url.searchParams.get('display'));
    if (css === null) return { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Missing font family' };
    return { status: 200, headers: { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'private, max-age=86400', 'access-control-allow-origin': '*' }, body: css };
  },
  'fonts.gstatic.com': (url) => {
    const m = /^\/s\/([a-z0-9]+)\/v\d+\/\1-(\d{3})\.ttf$/.exec(url.pathname);
    if (!m) return notFound();
    return {
      status: 200,
      headers: { 'content-type': 'font/ttf', 'cache-control': 'public, max-age=31536000', 'access-control-allow-origin': '*', 'timing-allow-origin': '*' },
      body: emptyFont(m[1], Number(m[2])),
    };
  },
};

/** The stylesheet fonts.googleapis.com answers for `family` parameters (`Inter:wght@400;700`), null without one. */
export function fontCss(families: readonly string[], display: string | null): string | null {
  if (families.length === 0) return null;
  const faces: string[] = [];
  for (const spec of families) {
    const [name, axes = ''] = spec.split(':');
    const weights = /^wght@([\d;]+)$/.exec(axes)?.[1].split(';').map(Number) ?? [400];
    const slug = name.toLowerCase().replace(/[^a-z0-9]/g, '');
    for (const weight of weights) {
      faces.push([
        '/* latin */',
        '@font-face {',
        `  font-family: '${name}';`,
        '  font-style: normal;',
        `  font-weight: ${weight};`,
        ...(display ? [`  font-display: ${display};`] : []),
        `  src: url(https://fonts.gstatic.com/s/${slug}/v18/${slug}-${weight}.ttf) format('truetype');`,
        '}',
      ].join('\n'));
    }
  }
  return `${faces.join('\n')}\n`;
}

const served = new WeakMap<World, Promise<ThirdParties>>();

/** Serves every third party in `world` under its real name (once per world). */
export function thirdParties(world: World): Promise<ThirdParties> {
  let parties = served.get(world);
  if (!parties) {
    parties = (async () => {
      const requests = Object.fromEntries(THIRD_PARTY_HOSTS.map((h) => [h, [] as string[]])) as ThirdParties['requests'];
      const sites = await Promise.all(THIRD_PARTY_HOSTS.map((host) => world.site(host, { handler: handlerFor(host, requests[host]) })));
      return { sites: Object.fromEntries(THIRD_PARTY_HOSTS.map((h, i) => [h, sites[i]])) as ThirdParties['sites'], requests };
    })();
    served.set(world, parties);
  }
  return parties;
}

function handlerFor(host: ThirdPartyHost, log: string[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `https://${host}`);
    log.push(`${req.method} ${url.pathname}${url.search}`);
    void (async () => (req.method === 'GET' || req.method === 'HEAD' || req.method === 'POST' ? ROUTES[host](url, req) : notFound()))()
      .then((reply) => reply ?? notFound(), () => ({ status: 500, headers: {}, body: '' }) as Reply)
      .then((reply) => {
        const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
        res.writeHead(reply.status, { ...reply.headers, 'content-length': String(body.length) });
        res.end(req.method === 'HEAD' || reply.status === 204 ? undefined : body);
      });
    req.resume(); // a POST's body (a hit) is not read
  };
}

// ── A TrueType font with no outlines (OpenType spec, the ten tables a TrueType font needs) ─────

/** A valid TrueType font of two empty glyphs and an empty character map, named after `family`. */
export function emptyFont(family: string, weight: number): Buffer {
  const numGlyphs = 2;
  const u16 = (...v: number[]) => { const b = Buffer.alloc(v.length * 2); v.forEach((x, i) => b.writeUInt16BE(x & 0xffff, i * 2)); return b; };
  const u32 = (...v: number[]) => { const b = Buffer.alloc(v.length * 4); v.forEach((x, i) => b.writeUInt32BE(x >>> 0, i * 4)); return b; };
  const zeros = (n: number) => Buffer.alloc(n);

  const head = Buffer.concat([
    u32(0x00010000, 0x00010000, 0, 0x5f0f3cf5), // version, fontRevision, checkSumAdjustment (set below), magic
    u16(0x000b, 1000), // flags, unitsPerEm
    zeros(16), // created, modified
    u16(0, 0, 0, 0, weight >= 700 ? 1 : 0, 8, 2, 0, 0), // xMin yMin xMax yMax, macStyle, lowestRecPPEM, fontDirectionHint, indexToLocFormat (short), glyphDataFormat
  ]);
  const hhea = Buffer.concat([u32(0x00010000), u16(800, -200, 0, 500, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, numGlyphs)]);
  const maxp = Buffer.concat([u32(0x00010000), u16(numGlyphs, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0)]);
  const hmtx = u16(...Array.from({ length: numGlyphs }, () => [500, 0]).flat());
  const loca = u16(...Array.from({ length: numGlyphs + 1 }, () => 0)); // every glyph empty
  const glyf = zeros(4);
  // cmap: one Windows Unicode subtable, format 4 with the closing segment only (no character mapped).
  const cmap = Buffer.concat([u16(0, 1, 3, 1), u32(12), u16(4, 24, 0, 2, 2, 0, 0, 0xffff, 0, 0xffff, 1, 0)]);
  const post = Buffer.concat([u32(0x00030000, 0), u16(-100, 50), u32(0, 0, 0, 0, 0)]);
  const os2 = Buffer.concat([
    u16(4, 500, weight, 5, 0), // version, xAvgCharWidth, usWeightClass, usWidthClass, fsType
    u16(650, 600, 0, 75, 650, 600, 0, 350, 50, 250, 0), // sub/superscript, strikeout, sFamilyClass
    zeros(10), // panose
    u32(1, 0, 0, 0), // ulUnicodeRange1-4 (Basic Latin)
    Buffer.from('WPTS'), // achVendID
    u16(weight >= 700 ? 0x20 : 0x40, 0x20, 0x7e, 800, -200, 0, 800, 200), // fsSelection, first/last char, typo metrics, win metrics
    u32(1, 0), // ulCodePageRange1-2 (Latin 1)
    u16(500, 700, 0, 0x20, 1), // sxHeight, sCapHeight, usDefaultChar, usBreakChar, usMaxContext
  ]);
  const subfamily = weight >= 700 ? 'Bold' : 'Regular';
  const names: [number, string][] = [[1, family], [2, subfamily], [3, `${family}-${weight}`], [4, `${family} ${subfamily}`], [6, `${family}-${subfamily}`]];
  const strings = names.map(([, s]) => Buffer.from(s, 'utf16le').swap16());
  let offset = 0;
  const records = names.map(([id], i) => { const r = u16(3, 1, 0x0409, id, strings[i].length, offset); offset += strings[i].length; return r; });
  const name = Buffer.concat([u16(0, names.length, 6 + names.length * 12), ...records, ...strings]);

  const tables: [string, Buffer][] = ([
    ['OS/2', os2], ['cmap', cmap], ['glyf', glyf], ['head', head], ['hhea', hhea],
    ['hmtx', hmtx], ['loca', loca], ['maxp', maxp], ['name', name], ['post', post],
  ] as [string, Buffer][]).sort(([a], [b]) => (a < b ? -1 : 1));
  const pad = (b: Buffer) => Buffer.concat([b, zeros((4 - (b.length % 4)) % 4)]);
  const checksum = (b: Buffer) => { const p = pad(b); let sum = 0; for (let i = 0; i < p.length; i += 4) sum = (sum + p.readUInt32BE(i)) >>> 0; return sum; };
  const entrySelector = Math.floor(Math.log2(tables.length));
  const searchRange = 2 ** entrySelector * 16;
  const directory = [Buffer.concat([u32(0x00010000), u16(tables.length, searchRange, entrySelector, tables.length * 16 - searchRange)])];
  let at = 12 + tables.length * 16;
  let headAt = 0;
  for (const [tag, data] of tables) {
    directory.push(Buffer.concat([Buffer.from(tag, 'latin1'), u32(checksum(data), at, data.length)]));
    if (tag === 'head') headAt = at;
    at += pad(data).length;
  }
  const font = Buffer.concat([...directory, ...tables.map(([, data]) => pad(data))]);
  font.writeUInt32BE((0xb1b0afba - checksum(font)) >>> 0, headAt + 8);
  return font;
}
