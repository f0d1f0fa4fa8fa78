/**
 * Schema fragments shared by the premium routes: security, the lang query, the site-id header,
 * path ids, error responses, the result envelope, and `premiumDoc`, which gives every route its
 * tag, security, rate-limit note and (for the /0.1 copy) its place outside the OpenAPI document.
 */
import { LANGS } from '../../../core/i18n/langs.js';
import { errorResponses } from '../../envelope.js';
import { RATE_LIMIT_HEADERS, rateLimitNote } from '../../plugins/rate-limit.js';
import { INT4_MAX } from '../../request-helpers.js';
import type { PremiumOptions } from './options.js';

export { errorResponses };

/** Every premium route takes a standard, agency or admin key. */
export const SECURITY: { [scheme: string]: string[] }[] = [{ ApiKeyAuth: [] }, { AdminApiKey: [] }];

/** `lang`: validated here, by the schema (anything else: 400 UNSUPPORTED_LANG). */
export const LANG_QUERY = {
  type: 'string',
  enum: [...LANGS],
  description: 'sv, en, da, no, fi or is (anything else: 400 UNSUPPORTED_LANG); else the first supported Accept-Language; else sv. da, no, fi and is get en.',
} as const;

/**
 * The site-id header where it is required. A string in the schema: `request.requireSiteHeader()`
 * parses it strictly (Ajv's coercion would accept `1e3` or `+1`).
 */
export const SITE_ID_HEADER = { type: 'string', description: 'The website id (a positive integer). Required.' } as const;

/** The site-id header where the path names the site (`request.requireSiteMatchingHeader()`). */
export const SITE_ID_HEADER_OPTIONAL = {
  type: 'string',
  description: 'The website id. Optional here: the path names the site. When sent it must be a positive integer equal to the path id (400 SITE_ID_INVALID otherwise).',
} as const;

/** The order of the checks of a route taking the site-id header (requireSiteHeader), for its description. */
export function siteHeaderChecks(siteMustExist: boolean): string {
  return [
    'Checks, in this order: no api-key or an unknown/revoked one: 401 (KEY_MISSING, KEY_INVALID; the spec\'s errors table also lists 400 for a missing api-key on re-test: 401 is answered, as on every premium route); missing site-id header: 400 SITE_ID_MISSING, not a positive integer: 400 SITE_ID_INVALID; a key that does not reach the site: 403 FORBIDDEN_SITE',
    siteMustExist ? '; an admin key naming a site that does not exist: 404 SITE_NOT_FOUND.' : ' (the site itself is not read: an admin key may name any id).',
    ' The key and site are checked before the body is read.',
  ].join('');
}

/** Headers schema of a route that requires the site-id header. */
export const SITE_HEADERS = { type: 'object', properties: { 'site-id': SITE_ID_HEADER }, required: ['site-id'] } as const;

/** Path ids: integers in the schema (documentation); api/plugins/strict-integers.ts parses them strictly. */
export const SITE_ID_PARAM = { type: 'integer', minimum: 1, maximum: INT4_MAX, description: 'The website id' } as const;
export const TEST_ID_PARAM = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The private test id (from /test_once/ or the private test list)' } as const;

/** The 304 answer of the routes with an ETag. */
export const NOT_MODIFIED = { type: 'null', description: 'Not Modified: the If-None-Match ETag is current (no body)' } as const;

const ENVELOPE_PROPS = {
  api_version: { type: 'string', description: 'The version reached (0.1)' },
  uri: { type: 'string', description: 'The website: its /item/{id} address' },
  result_count: { type: 'integer' },
  timestamp: { type: 'string', format: 'date-time' },
} as const;

/** The 200 schema of an envelope whose data is a list of `item`, plus any extra fields. */
export function envelope(item: object, extra: Record<string, object> = {}) {
  return {
    type: 'object',
    headers: RATE_LIMIT_HEADERS,
    properties: { ...ENVELOPE_PROPS, ...extra, data: { type: 'array', items: item } },
    required: ['api_version', 'uri', 'result_count', 'timestamp', ...Object.keys(extra), 'data'],
  } as const;
}

/**
 * Completes a premium route's schema: tag, security, the rate-limit note after its description,
 * and `hide` for the copy under the version segment (described once, not twice).
 */
export function premiumDoc(opts: PremiumOptions, rateLimitPerMinute: number) {
  const note = rateLimitNote(rateLimitPerMinute);
  return <S extends { description: string }>(schema: S) => ({
    tags: ['premium'],
    security: SECURITY,
    ...(opts.hidden ? { hide: true } : {}),
    ...schema,
    description: note ? `${schema.description}\n\n${note}` : schema.description,
  });
}
