/**
 * How pages are compressed: brotli at a low quality, as suits dynamic HTML (cheap to make, most of
 * the gain), else gzip. Shared by @fastify/compress in the pages' scope and the page cache, which
 * keeps each cached page's compressed forms.
 */
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

/** Content codings offered, best first. */
export const PAGE_ENCODINGS = ['br', 'gzip'] as const;
export type PageEncoding = (typeof PAGE_ENCODINGS)[number];

export const BROTLI_OPTIONS = { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } };

export function compressPage(encoding: PageEncoding, html: string): Buffer {
  return encoding === 'br' ? brotliCompressSync(html, BROTLI_OPTIONS) : gzipSync(html);
}
