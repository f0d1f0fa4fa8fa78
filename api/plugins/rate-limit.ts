/**
 * Rate limit of the premium routes (@fastify/rate-limit), registered in the premium scope only.
 *
 * - Counted per api-key: a request whose api-key header resolves to a valid key is counted on a
 *   SHA-256 hash of that header; a request without a key, or with a key that does not resolve, is
 *   counted on the client address (so invented keys cannot escape the limit). The raw key is
 *   never stored or logged: only its hash is held, in memory.
 * - `config.rateLimitPerMinute` requests per fixed one-minute window (default 120); 0 turns the
 *   limit off. The versioned (/0.1) and unversioned copies of a route share one counter.
 * - Every premium answer carries x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset
 *   (seconds until the window resets); a refused request gets 429, Retry-After (seconds) and the
 *   error body { statusCode: 429, error: 'RATE_LIMITED', message }.
 */
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { WebperfError } from '../../core/errors.js';

/** For route descriptions. */
export function rateLimitNote(perMinute: number): string {
  if (perMinute === 0) return '';
  return `**Rate limit**: ${perMinute} requests per minute per api-key (requests without a valid key: per client address), over all premium routes together. Every answer carries \`x-ratelimit-limit\`, \`x-ratelimit-remaining\` and \`x-ratelimit-reset\` (seconds until the window resets); over the limit: 429 with \`Retry-After\` (seconds) and error \`RATE_LIMITED\`.`;
}

/** Response headers of a rate-limited route, for response schemas. */
export const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': { type: 'integer', description: 'Requests allowed per minute' },
  'x-ratelimit-remaining': { type: 'integer', description: 'Requests left in the current window' },
  'x-ratelimit-reset': { type: 'integer', description: 'Seconds until the window resets' },
} as const;

const WINDOW_MS = 60_000;
/** Sweep expired counters once the map holds this many. */
const SWEEP_AT = 10_000;

interface Counter {
  current: number;
  startMs: number;
}

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;

/** A fixed-window counter store whose map is shared by every registration of one application. */
function sharedStore(counters: Map<string, Counter>) {
  return class SharedWindowStore {
    incr(key: string, cb: Callback, timeWindow: number): void {
      const now = Date.now();
      if (counters.size >= SWEEP_AT) {
        for (const [k, c] of counters) if (c.startMs + timeWindow <= now) counters.delete(k);
      }
      let c = counters.get(key);
      if (!c || c.startMs + timeWindow <= now) {
        c = { current: 0, startMs: now };
        counters.set(key, c);
      }
      c.current++;
      cb(null, { current: c.current, ttl: c.startMs + timeWindow - now });
    }

    read(key: string, cb: Callback, timeWindow: number): void {
      const now = Date.now();
      const c = counters.get(key);
      if (!c || c.startMs + timeWindow <= now) return cb(null, { current: 0, ttl: 0 });
      cb(null, { current: c.current, ttl: c.startMs + timeWindow - now });
    }

    child(): SharedWindowStore {
      return this;
    }
  };
}

const stores = new WeakMap<object, Map<string, Counter>>();

/** The counter of a request: the key's id when it resolves (never the key itself), else the client address. */
async function counterKey(request: FastifyRequest): Promise<string> {
  const header = request.headers['api-key'];
  if (typeof header === 'string' && header !== '') {
    try {
      // Resolved once per request (auth.ts caches it), so the route does not look it up again.
      const key = await request.apiKey();
      if (key) return `key:${key.id}`;
    } catch {
      // An invalid key (401 later) or a database failure: count on the address.
    }
  }
  return `ip:${request.ip}`;
}

export default fp(async (app) => {
  const perMinute = app.deps.config.rateLimitPerMinute;
  if (perMinute === 0) return;
  let counters = stores.get(app.deps);
  if (!counters) {
    counters = new Map();
    stores.set(app.deps, counters);
  }
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: WINDOW_MS,
    hook: 'onRequest',
    keyGenerator: counterKey,
    store: sharedStore(counters),
    errorResponseBuilder: (_request, context) =>
      new WebperfError('RATE_LIMITED', `Rate limit exceeded: at most ${context.max} requests per minute per api-key; retry in ${context.after}`),
  });
});
