/**
 * Rate limit of the premium routes (@fastify/rate-limit), registered in the premium scope only.
 *
 * - Counted per api-key: a request whose api-key header resolves to a valid key is counted on the
 *   key's id; a request without a key, or with a key that does not resolve, is counted on the
 *   client address (so invented keys cannot escape the limit). The raw key is never stored or
 *   logged.
 * - `config.rateLimitPerMinute` requests per fixed one-minute window (default 120); 0 turns the
 *   limit off. The versioned (/0.1) and unversioned copies of a route share one counter.
 * - Where it counts (`config.rateLimitStore`, core/rate-limit-counters.ts): `postgres` (default)
 *   in the database, table rate_limit_counters, which every API process shares, so that two
 *   processes give a key one limit between them; the row is named by the SHA-256 of the counter's
 *   name, windows follow the database's clock; requests arriving together share a statement, and a
 *   key asking hard of a process is leased counts ahead (never more than the limit passes). While
 *   the database does not answer, each process counts in its own memory (a warning in the log)
 *   and asks the database again after a few seconds: the API stays up and no request waits more
 *   than about two seconds for its count. `memory`: in this process's memory only (one API
 *   process).
 * - Every premium answer carries x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset
 *   (seconds until the window resets); a refused request gets 429, Retry-After (seconds) and the
 *   error body { statusCode: 429, error: 'RATE_LIMITED', message }.
 */
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebperfError } from '../../core/errors.js';
import { recordRateLimitCounting } from '../../core/metrics.js';
import { MemoryWindowCounter, SharedWindowCounter, type CountCallback, type WindowCounter } from '../../core/rate-limit-counters.js';

/** For route descriptions. */
export function rateLimitNote(perMinute: number): string {
  if (perMinute === 0) return '';
  return `**Rate limit**: ${perMinute} requests per minute per api-key (requests without a valid key: per client address), over all premium routes together, and for the service as a whole, whichever of its servers answers. Every answer carries \`x-ratelimit-limit\`, \`x-ratelimit-remaining\` and \`x-ratelimit-reset\` (seconds until the window resets); over the limit: 429 with \`Retry-After\` (seconds) and error \`RATE_LIMITED\`.`;
}

/** Response headers of a rate-limited route, for response schemas. */
export const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': { type: 'integer', description: 'Requests allowed per minute' },
  'x-ratelimit-remaining': { type: 'integer', description: 'Requests left in the current window' },
  'x-ratelimit-reset': { type: 'integer', description: 'Seconds until the window resets' },
} as const;

/** The one window of every limit counted here: the counters open and judge windows of this length, whatever a route's own setting says. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * One counter per application (both premium registrations, /0.1 and unversioned, count on it),
 * adapted to @fastify/rate-limit's store interface (a class it constructs; `child` for per-route
 * settings, which the premium routes do not have).
 */
function storeOf(counter: WindowCounter) {
  return class RateLimitStore {
    incr(key: string, cb: CountCallback, timeWindow: number, max: number): void {
      counter.incr(key, cb, timeWindow, max);
    }

    child(): RateLimitStore {
      return this;
    }
  };
}

const counters = new WeakMap<object, WindowCounter>();

/** The counter of an application's rate limits (premium, and the portal's sign-in), by its deps (none before either is registered); for the benchmark's figures. */
export function rateLimitCounterOf(deps: object): WindowCounter | undefined {
  return counters.get(deps);
}

function counterOf(app: FastifyInstance): WindowCounter {
  let counter = counters.get(app.deps);
  if (counter) return counter;
  const { config, db } = app.deps;
  counter = config.rateLimitStore === 'memory'
    ? new MemoryWindowCounter()
    : new SharedWindowCounter(db, {
        windowMs: RATE_LIMIT_WINDOW_MS,
        onSwitch: (to, reason) => {
          recordRateLimitCounting(to);
          if (to === 'memory') app.log.warn(`rate limit: counting in this process's memory for now, not in the database shared by the API processes (${reason})`);
          else app.log.info('rate limit: counting in the database again');
        },
        onSweepError: (err) => app.log.debug({ err }, 'rate limit: expired counters not deleted'),
      });
  counters.set(app.deps, counter);
  return counter;
}

/**
 * The store of a limit of this application's own (the portal's sign-in) counted where the premium
 * limit counts: in PostgreSQL by default, one count for every API process. Names of its counters
 * must not be those of the premium limit (`key:…`, `ip:…`).
 */
export function sharedRateLimitStore(app: FastifyInstance) {
  return storeOf(counterOf(app));
}

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
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    hook: 'onRequest',
    keyGenerator: counterKey,
    store: sharedRateLimitStore(app),
    errorResponseBuilder: (_request, context) =>
      new WebperfError('RATE_LIMITED', `Rate limit exceeded: at most ${context.max} requests per minute per api-key; retry in ${context.after}`),
  });
});
