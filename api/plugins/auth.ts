/**
 * Key handling shared by every route: `request.apiKey()` resolves the presented key once per
 * request (header `api-key`; the query parameter only where a route allows it).
 * Missing → 401 KEY_MISSING; unknown/revoked → 401 KEY_INVALID; no access to the site → 403.
 * A malformed, unknown, revoked key, or a known prefix with a wrong secret: the same 401 body.
 * Keys that resolve are cached by the SHA-256 of the presented key (api/plugins/cache.ts drops
 * one when it is revoked or its sites change); unknown keys are looked up every time.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { WebperfError } from '../../core/errors.js';
import { canReach, keyDigest, resolveKey, touchKey, type ResolvedKey } from '../../core/store/keys.js';
import { parseStrictInt } from '../request-helpers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The presented key, resolved; null when none was sent. Throws KEY_INVALID for a bad key. */
    apiKey(options?: { allowQuery?: boolean }): Promise<ResolvedKey | null>;
    /** The presented key, or 401. */
    requireKey(options?: { allowQuery?: boolean }): Promise<ResolvedKey>;
    /** The presented key with access to the site, or 401/403. */
    requireSite(siteId: number): Promise<ResolvedKey>;
    /**
     * The site named by the required site-id header and the key with access to it, checked in
     * this order: key (401), header missing or not a positive int4 (400 SITE_ID_MISSING /
     * SITE_ID_INVALID), access (403). The site itself is not read.
     */
    requireSiteHeader(): Promise<SiteAccess>;
    /**
     * The same for a route whose path names the site: the site-id header is optional, but when
     * sent it must be valid and equal `siteId` (400 SITE_ID_INVALID).
     */
    requireSiteMatchingHeader(siteId: number): Promise<SiteAccess>;
  }
}

/** The key format, for the OpenAPI description's security schemes (core/store/keys.ts makes them). */
export const API_KEY_FORMAT = [
  'Keys are 58 ASCII letters and digits: `wpk` followed by 55 base62 characters (`^wpk[A-Za-z0-9]{55}$`).',
  'The first 15 characters are the key\'s public prefix (shown in the portal, by `webperf keys list` and by GET /whoami/); the other 43 are the secret (more than 256 bits). Only a hash of the key is stored.',
  'Keys issued before this format (`wpk_`, 12 hex digits, `_`, 43 base64url characters) keep working until revoked.',
  'No key: 401 KEY_MISSING. A malformed, unknown or revoked key: 401 `{"statusCode":401,"error":"KEY_INVALID","message":"The api-key is not valid"}`, the same answer whether or not its prefix exists.',
].join(' ');

/** A site the request's key may use. */
export interface SiteAccess {
  siteId: number;
  key: ResolvedKey;
}

/** The site-id header, strictly: undefined when absent, else a positive int4 or 400. */
export function siteIdHeader(request: FastifyRequest): number | undefined {
  const raw = request.headers['site-id'];
  if (raw === undefined || raw === '') return undefined;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  const siteId = parseStrictInt(value);
  if (siteId === null) throw new WebperfError('SITE_ID_INVALID', `The site-id header must be a positive integer, got "${value}"`);
  return siteId;
}

function presentedKey(request: FastifyRequest, allowQuery: boolean): string | null {
  const header = request.headers['api-key'];
  if (typeof header === 'string' && header !== '') return header;
  if (allowQuery) {
    const q = (request.query as Record<string, unknown> | undefined)?.['api-key'];
    if (typeof q === 'string' && q !== '') return q;
  }
  return null;
}

export default fp(async (app) => {
  /** A resolved key from the key cache, else from the database (and then cached). */
  const resolve = async (raw: string): Promise<ResolvedKey | null> => {
    const keys = app.resultsCache.keys;
    if (!keys.active) return resolveKey(app.deps.db, raw);
    const digest = keyDigest(raw);
    const hit = keys.get(digest);
    if (hit !== undefined) return hit;
    const token = keys.token();
    const key = await resolveKey(app.deps.db, raw);
    if (key !== null) {
      // Frozen: one object serves many requests.
      if (key.siteIds !== null) Object.freeze(key.siteIds);
      keys.set(digest, Object.freeze(key), { tags: [`key:${key.id}`], token });
    }
    return key;
  };
  // "Last used" (shown in the portal) is written at most once a minute per key and process.
  const touched = new Map<number, number>();
  const touch = async (keyId: number) => {
    const now = Date.now();
    if ((touched.get(keyId) ?? 0) > now - 60_000) return;
    if (touched.size > 10_000) touched.clear();
    touched.set(keyId, now);
    await touchKey(app.deps.db, keyId, new Date(now));
  };
  const cache = new WeakMap<FastifyRequest, Promise<ResolvedKey | null>>();
  app.decorateRequest('apiKey', function (this: FastifyRequest, options?: { allowQuery?: boolean }) {
    let hit = cache.get(this);
    if (!hit) {
      const raw = presentedKey(this, options?.allowQuery ?? false);
      hit = raw === null
        ? Promise.resolve(null)
        : resolve(raw).then(async (k) => {
            if (!k) throw new WebperfError('KEY_INVALID');
            await touch(k.id);
            return k;
          });
      cache.set(this, hit);
    }
    return hit;
  });
  app.decorateRequest('requireKey', async function (this: FastifyRequest, options?: { allowQuery?: boolean }) {
    const key = await this.apiKey(options);
    if (!key) throw new WebperfError('KEY_MISSING');
    return key;
  });
  app.decorateRequest('requireSite', async function (this: FastifyRequest, siteId: number) {
    const key = await this.requireKey();
    if (!canReach(key, siteId)) throw new WebperfError('FORBIDDEN_SITE');
    return key;
  });
  app.decorateRequest('requireSiteHeader', async function (this: FastifyRequest): Promise<SiteAccess> {
    await this.requireKey();
    const siteId = siteIdHeader(this);
    if (siteId === undefined) throw new WebperfError('SITE_ID_MISSING');
    return { siteId, key: await this.requireSite(siteId) };
  });
  app.decorateRequest('requireSiteMatchingHeader', async function (this: FastifyRequest, siteId: number): Promise<SiteAccess> {
    await this.requireKey();
    const header = siteIdHeader(this);
    if (header !== undefined && header !== siteId) {
      throw new WebperfError('SITE_ID_INVALID', `The site-id header (${header}) does not match the site in the path (${siteId})`);
    }
    return { siteId, key: await this.requireSite(siteId) };
  });
});
