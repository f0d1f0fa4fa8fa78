/**
 * GET /whoami/: what the presented key is, what it reaches and how much of its rate limit is
 * left: a caller's first question. The key itself (api/plugins/auth.ts) and the rate limit
 * (api/plugins/rate-limit.ts, counted before the handler) are checked as on every premium route.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { describeKey } from '../../../core/store/keys.js';
import { RATE_LIMIT_HEADERS } from '../../plugins/rate-limit.js';
import type { PremiumOptions } from './options.js';
import { errorResponses, premiumDoc } from './schemas.js';

const WHOAMI_RESPONSE = {
  type: 'object',
  headers: RATE_LIMIT_HEADERS,
  properties: {
    api_version: { type: 'string', description: 'The version reached (0.1)' },
    kind: { type: 'string', enum: ['standard', 'agency', 'admin'], description: 'standard: the sites linked to the key; agency: its portfolio; admin: every site, and the elevated permissions (/webanalytics)' },
    label: { type: 'string', description: 'The label given when the key was made (may be empty)' },
    prefix: { type: 'string', description: 'The key\'s public prefix (its first 15 characters; 16 for a key of the earlier format), as the portal and `webperf keys list` show it' },
    created: { type: 'string', format: 'date-time', description: 'When the key was made (ISO 8601, UTC)' },
    all_sites: { type: 'boolean', description: 'true for an admin key: it reaches every site, sites added later included' },
    site_ids: { type: 'array', items: { type: 'integer' }, description: 'The site ids the key reaches now, ascending' },
    site_count: { type: 'integer', description: 'The number of site_ids' },
    rate_limit: {
      type: 'object',
      nullable: true,
      description: 'The key\'s rate limit as the limiter counts it, this request included (the same values as the x-ratelimit-* headers); null when the service runs without a rate limit',
      properties: {
        limit: { type: 'integer', description: 'Requests allowed per one-minute window' },
        remaining: { type: 'integer', description: 'Requests left in the current window, after this one' },
        reset: { type: 'integer', description: 'Seconds until the window resets' },
      },
      required: ['limit', 'remaining', 'reset'],
    },
  },
  required: ['api_version', 'kind', 'label', 'prefix', 'created', 'all_sites', 'site_ids', 'site_count', 'rate_limit'],
} as const;

/** The limiter's own count, from the headers it has set on this answer; null when it is off. */
function rateLimitOf(reply: FastifyReply): { limit: number; remaining: number; reset: number } | null {
  const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) => reply.getHeader(h));
  if (limit === undefined || remaining === undefined || reset === undefined) return null;
  return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
}

const whoami: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const doc = premiumDoc(opts, app.deps.config.rateLimitPerMinute);

  app.get('/whoami/', {
    schema: doc({
      summary: 'The key: its kind, what it reaches, its rate limit',
      description: [
        'Answers "does my key work, and what does it reach": the key\'s kind, label, public prefix and creation time, the site ids it reaches (site_count of them) and what is left of its rate limit.',
        'Not charged in credits; counted by the rate limit like any other premium request (the numbers include this request). Never the key, its secret or its hash. Answered with `Cache-Control: no-store`.',
        'No api-key: 401 KEY_MISSING. A malformed, unknown or revoked key, or a known prefix with a wrong secret: 401 KEY_INVALID, the same body in every case, so that the answer never tells whether a prefix exists.',
      ].join('\n\n'),
      response: {
        200: WHOAMI_RESPONSE,
        ...errorResponses(401, 429, 500),
      },
    }),
  }, async (request, reply) => {
    const key = await request.requireKey();
    const described = await describeKey(app.deps.db, key);
    // Revoked after it was resolved: as if it had been revoked before.
    if (!described) throw new WebperfError('KEY_INVALID');
    void reply.header('cache-control', 'no-store');
    return {
      api_version: opts.version,
      kind: key.kind,
      label: key.label,
      prefix: described.prefix,
      created: described.createdAt.toISOString(),
      all_sites: key.siteIds === null,
      site_ids: described.siteIds,
      site_count: described.siteIds.length,
      rate_limit: rateLimitOf(reply),
    };
  });
};

export default whoami;
