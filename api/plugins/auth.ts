/**
 * Key handling shared by every route: `request.apiKey()` resolves the presented key once per
 * request (header `api-key`; the query parameter only where a route allows it).
 * Missing → 401 KEY_MISSING; unknown/revoked → 401 KEY_INVALID; no access to the site → 403.
 * Keys that resolve are cached by the SHA-256 of the presented key (api/plugins/cache.ts drops
 * one when it is revoked or its sites change); unknown keys are looked up every time.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { WebperfError } from '../../core/errors.js';
import { canReach, keyDigest, resolveKey, type ResolvedKey } from '../../core/store/keys.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The presented key, resolved; null when none was sent. Throws KEY_INVALID for a bad key. */
    apiKey(options?: { allowQuery?: boolean }): Promise<ResolvedKey | null>;
    /** The presented key, or 401. */
    requireKey(options?: { allowQuery?: boolean }): Promise<ResolvedKey>;
    /** The presented key with access to the site, or 401/403. */
    requireSite(siteId: number): Promise<ResolvedKey>;
  }
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
  const cache = new WeakMap<FastifyRequest, Promise<ResolvedKey | null>>();
  app.decorateRequest('apiKey', function (this: FastifyRequest, options?: { allowQuery?: boolean }) {
    let hit = cache.get(this);
    if (!hit) {
      const raw = presentedKey(this, options?.allowQuery ?? false);
      hit = raw === null
        ? Promise.resolve(null)
        : resolve(raw).then((k) => {
            if (!k) throw new WebperfError('KEY_INVALID');
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
});
