/**
 * Key handling shared by every route: `request.apiKey()` resolves the presented key once per
 * request (header `api-key`; the query parameter only where a route allows it).
 * Missing → 401 KEY_MISSING; unknown/revoked → 401 KEY_INVALID; no access to the site → 403.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { WebperfError } from '../../core/errors.js';
import { canReach, resolveKey, type ResolvedKey } from '../../core/store/keys.js';

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
  const cache = new WeakMap<FastifyRequest, Promise<ResolvedKey | null>>();
  app.decorateRequest('apiKey', function (this: FastifyRequest, options?: { allowQuery?: boolean }) {
    let hit = cache.get(this);
    if (!hit) {
      const raw = presentedKey(this, options?.allowQuery ?? false);
      hit = raw === null
        ? Promise.resolve(null)
        : resolveKey(app.deps.db, raw).then((k) => {
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
