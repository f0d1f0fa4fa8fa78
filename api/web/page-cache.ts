/**
 * `reply.cachedPage(tags, build)`: a public page rendered once and then answered from memory
 * (app.resultsCache.pages, api/plugins/cache.ts) until what it shows changes: the cache drops a
 * page when results for its website land (tag `site:<id>`), and the start page (tag `dashboard`)
 * whenever any website's results or record change, in every API process (PostgreSQL
 * LISTEN/NOTIFY). While the invalidation feed is down nothing is kept and every request renders.
 *
 * A page is kept per page language and canonical address (pageAddress): the route with its
 * validated parameters and the query parameters its schema declares, in a fixed order. That is
 * everything a public page depends on; what it ignores (undeclared parameters, their order, a
 * bare `?`) gives the same key, so that nobody fills the cache with copies of one page by varying
 * the address (the fuzz did: 90 copies of the start page a round, 3.4 MB), and the page is
 * rendered at that address, so that no visitor's own address is kept in it (the language switch
 * links back to the page). Concurrent misses of one page render it once. Each kept page has a weak
 * ETag (304 on If-None-Match; weak, so one tag serves every content coding) and keeps its brotli
 * and gzip forms once a client has asked for them, so a hit costs neither rendering nor
 * compression. Only successful renders are kept: errors (404 and others) are thrown as usual.
 */
import { createHash } from 'node:crypto';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LruCache } from '../../core/cache.js';
import { matchesEtag, type CachedPage } from '../plugins/cache.js';
import { PAGE_ENCODINGS, compressPage, type PageEncoding } from './compression.js';
import { chooseLang } from './lang.js';
import type { PageData } from './page.js';

/** What a cached route builds on a miss: the template and its data, as for `reply.page`. */
export interface PageBuild {
  view: string;
  data: PageData;
}

declare module 'fastify' {
  interface FastifyReply {
    /**
     * Answers this public page from the page cache, rendering it with `build` on a miss and
     * keeping it under `tags` (`site:<id>`, `dashboard`). Only for pages that are the same for
     * everyone: nothing of the visitor but the language may appear in them.
     */
    cachedPage(tags: readonly string[], build: () => Promise<PageBuild>): Promise<FastifyReply>;
  }
}

/**
 * The canonical address of a validated request: its route's path with the parameters filled in,
 * then the query parameters the route's schema declares, sorted by name (repeated values in
 * their order). `/site/1?utm=x` is `/site/1`; `/?sort=title&dir=asc&x=1` is `/?dir=asc&sort=title`.
 */
export function pageAddress(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const path = request.routeOptions.url?.replace(/:(\w+)|\*/g, (_, name: string | undefined) => encodeURIComponent(String(params[name ?? '*'] ?? ''))) ?? '/';
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const search = new URLSearchParams();
  for (const name of Object.keys(schema?.properties ?? {}).sort()) {
    const value = query[name];
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) search.append(name, String(v));
  }
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

export function pageCacheReply(cache: LruCache<CachedPage>) {
  const rendering = new Map<string, Promise<CachedPage>>();
  return async function cachedPage(this: FastifyReply, tags: readonly string[], build: () => Promise<PageBuild>): Promise<FastifyReply> {
    const request = this.request;
    const lang = chooseLang(request);
    const address = pageAddress(request);
    const key = `${lang}\0${address}`;
    let entry = cache.get(key);
    if (entry === undefined) {
      let pending = rendering.get(key);
      if (pending === undefined) {
        // Taken before reading: a page read before an invalidation is not kept after it.
        const token = cache.token();
        pending = (async () => {
          const { view, data } = await build();
          // Rendered at its canonical address, so that no visitor's own address is kept in it.
          const { html } = await this.renderPage(view, data, address);
          const page: CachedPage = { html, lang, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`, encoded: {} };
          cache.set(key, page, { tags, token });
          return page;
        })().finally(() => rendering.delete(key));
        rendering.set(key, pending);
      }
      entry = await pending;
    }
    void this
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-language', entry.lang)
      .header('vary', 'accept-language, cookie, accept-encoding')
      .header('etag', `W/${entry.etag}`)
      // Public data that changes as results land: a browser may keep it but asks first (304).
      .header('cache-control', 'no-cache');
    if (matchesEtag(request.headers['if-none-match'], entry.etag)) return this.code(304).send();
    const encoding = negotiate(request.headers['accept-encoding'] ?? '', [...PAGE_ENCODINGS]) as PageEncoding | null;
    if (encoding === null) return this.send(entry.html);
    // Set, so @fastify/compress leaves the body as it is.
    return this.header('content-encoding', encoding).send((entry.encoded[encoding] ??= compressPage(encoding, entry.html)));
  };
}
