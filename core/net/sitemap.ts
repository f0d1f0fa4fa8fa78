/**
 * The one sitemap reader (sitemaps.org protocol 0.9), shared by the standard-files plugin and the
 * audit crawler. Every sitemap is fetched through the guarded probes; gzip is recognised by its
 * magic bytes, whatever the name or content type says, because servers label .gz files anything
 * from application/gzip to text/xml.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { XMLValidator } from 'fast-xml-parser';
import { untrustedXmlParser } from './xml.js';
import type { FetchFailure, ProbeResponse, Probes } from '../plugin-api.js';
import { probeBody } from './probes.js';

const gunzipAsync = promisify(gunzip);

/** What was learnt about one sitemap file. */
export interface SitemapInfo {
  url: string;
  /** HTTP status of the answer; 0 when no answer came (refused, blocked, timed out). */
  status: number;
  /** Why no answer came (status 0). */
  failure?: FetchFailure;
  /** The body was gzip-compressed (by its first bytes). */
  gzipped: boolean;
  /** Root element; null when the file was not read or has neither root. */
  kind: 'urlset' | 'sitemapindex' | null;
  /** Null when there was nothing to judge (no answer, not found, too large to read). */
  well_formed: boolean | null;
  /** Number of <loc> entries (pages of a urlset, sitemaps of an index); null when not read. */
  entries: number | null;
  /** Why the file could not be read or used, in English (stored data, not report text); null when fine. */
  error: string | null;
  /** The same as a code, for callers that word their own reports; null when fine. */
  problem: SitemapProblem | null;
}

/**
 * unreachable: no 200 answer · not-sitemap: an HTML page (a soft 404) · too-large: over maxBytes,
 * compressed or not · bad-gzip: gzip magic but no valid stream · malformed: not well-formed XML or
 * another root · not-read: left out by maxSitemaps or maxDepth.
 */
export type SitemapProblem = 'unreachable' | 'not-sitemap' | 'too-large' | 'bad-gzip' | 'malformed' | 'not-read';

/** Bounds of one read; the defaults are the protocol's own limits per file. */
export interface SitemapLimits {
  /** Sitemap files fetched in all, indexes and their children included (default 50). */
  maxSitemaps?: number;
  /** Bytes per file, compressed and again uncompressed (default 50 MB, the protocol's limit). */
  maxBytes?: number;
  /** Page URLs collected in all (default 50,000); entries are still counted past it. */
  maxUrls?: number;
  /** How deep indexes are followed: 1 reads the children of a listed index, no deeper (default 2). */
  maxDepth?: number;
}

const DEFAULTS: Required<SitemapLimits> = { maxSitemaps: 50, maxBytes: 50 * 1024 * 1024, maxUrls: 50_000, maxDepth: 2 };

// The five XML entities and character references are decoded in <loc> values only.
const parser = untrustedXmlParser(['url', 'sitemap']);

function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function looksLikeHtml(res: ProbeResponse, text: string): boolean {
  const type = (res.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
  return type === 'text/html' || /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i.test(text);
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(amp|lt|gt|quot|apos));/gi, (whole, hex, dec, name) => {
    if (name) return named[name.toLowerCase()] ?? whole;
    const code = hex ? parseInt(hex, 16) : Number(dec);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The <loc> values of a parsed urlset or index, trimmed; entries without <loc> are left out. */
function locs(items: unknown): string[] {
  if (!Array.isArray(items)) return [];
  const out: string[] = [];
  for (const item of items) {
    const loc = item && typeof item === 'object' ? (item as Record<string, unknown>).loc : undefined;
    if (typeof loc === 'string' || typeof loc === 'number') out.push(decodeEntities(String(loc).trim()));
  }
  return out;
}

interface Parsed {
  info: SitemapInfo;
  children: string[];
  pages: string[];
}

async function readOne(probes: Probes, url: string, maxBytes: number): Promise<Parsed> {
  const info: SitemapInfo = { url, status: 0, gzipped: false, kind: null, well_formed: null, entries: null, error: null, problem: null };
  const none = { info, children: [], pages: [] };
  const res = await probes.fetch(url, { maxBytes });
  info.status = res.status;
  if (res.error) return { ...none, info: { ...info, error: res.error, ...(res.failure ? { failure: res.failure } : {}), problem: 'unreachable' } };
  if (res.status !== 200) return { ...none, info: { ...info, error: `Answered ${res.status}, not 200`, problem: 'unreachable' } };
  const raw = probeBody(res) ?? { bytes: Buffer.from(res.body, 'utf8'), truncated: false };
  if (raw.truncated) return { ...none, info: { ...info, error: `Larger than ${maxBytes} bytes`, problem: 'too-large' } };
  let text: string;
  if (isGzip(raw.bytes)) {
    info.gzipped = true;
    try {
      // maxOutputLength stops a small file that inflates without end (a gzip bomb).
      text = (await gunzipAsync(raw.bytes, { maxOutputLength: maxBytes })).toString('utf8');
    } catch (err) {
      const tooBig = err instanceof RangeError || (err as NodeJS.ErrnoException)?.code === 'ERR_BUFFER_TOO_LARGE';
      return { ...none, info: { ...info, error: tooBig ? `Larger than ${maxBytes} bytes uncompressed` : 'Not valid gzip', problem: tooBig ? 'too-large' : 'bad-gzip' } };
    }
  } else {
    text = raw.bytes.toString('utf8');
  }
  if (looksLikeHtml(res, text)) return { ...none, info: { ...info, error: 'Answered with an HTML page, not a sitemap', problem: 'not-sitemap' } };
  if (!text.trim() || XMLValidator.validate(text) !== true) {
    return { ...none, info: { ...info, well_formed: false, error: 'Not well-formed XML', problem: 'malformed' } };
  }
  let doc: Record<string, any>;
  try {
    doc = parser.parse(text) as Record<string, any>;
  } catch {
    return { ...none, info: { ...info, well_formed: false, error: 'Not well-formed XML', problem: 'malformed' } };
  }
  const root = Object.keys(doc).find((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (root !== 'urlset' && root !== 'sitemapindex') {
    return { ...none, info: { ...info, well_formed: false, error: `Root element is <${root ?? ''}>, not <urlset> or <sitemapindex>`, problem: 'malformed' } };
  }
  const content = doc[root] && typeof doc[root] === 'object' ? doc[root] : {};
  const found = locs(root === 'urlset' ? content.url : content.sitemap);
  const absolute: string[] = [];
  for (const loc of found) {
    try {
      absolute.push(new URL(loc, url).href);
    } catch {
      // A <loc> that is no URL is counted as an entry but cannot be followed.
    }
  }
  info.kind = root;
  info.well_formed = true;
  info.entries = found.length;
  return root === 'urlset' ? { info, children: [], pages: absolute } : { info, children: absolute, pages: [] };
}

/**
 * Reads sitemaps and the sitemaps their indexes list, breadth first, each file once.
 *
 * Every fetch goes through `probes` (so through the target guard); `urls` are read in order, then
 * the children of indexes, up to `maxDepth` levels of indexes and `maxSitemaps` files in all.
 * A file is gunzipped when its first two bytes are gzip's magic number. Files beyond a limit are
 * reported with an `error`, never silently dropped: an index nested too deep, a child past the
 * file budget, a file larger than `maxBytes` (compressed or not).
 *
 * @returns `sitemaps`: one SitemapInfo per file considered, listed ones first, in reading order;
 *   `urls`: the page URLs of every urlset read, absolute, de-duplicated, at most `maxUrls`.
 */
export async function readSitemaps(probes: Probes, urls: string[], limits: SitemapLimits = {}): Promise<{ sitemaps: SitemapInfo[]; urls: string[] }> {
  const { maxSitemaps, maxBytes, maxUrls, maxDepth } = { ...DEFAULTS, ...limits };
  const sitemaps: SitemapInfo[] = [];
  const pages = new Set<string>();
  const seen = new Set<string>();
  const skipped = (url: string, error: string): SitemapInfo => ({ url, status: 0, gzipped: false, kind: null, well_formed: null, entries: null, error, problem: 'not-read' });
  let read = 0;
  let level = urls;
  for (let depth = 0; level.length > 0; depth++) {
    const next: string[] = [];
    const toRead: string[] = [];
    const notRead: SitemapInfo[] = [];
    for (const url of level) {
      if (seen.has(url)) continue;
      seen.add(url);
      if (depth > maxDepth) notRead.push(skipped(url, `Index nested deeper than ${maxDepth} levels; not read`));
      else if (read >= maxSitemaps) notRead.push(skipped(url, `More than ${maxSitemaps} sitemaps; not read`));
      else {
        toRead.push(url);
        read++;
      }
    }
    // Files of one level are fetched together; the probes bound each request's time.
    const results = await Promise.all(toRead.map((url) => readOne(probes, url, maxBytes)));
    for (const r of results) {
      sitemaps.push(r.info);
      next.push(...r.children);
      for (const page of r.pages) {
        if (pages.size >= maxUrls) break;
        pages.add(page);
      }
    }
    sitemaps.push(...notRead);
    level = next;
  }
  return { sitemaps, urls: [...pages] };
}
