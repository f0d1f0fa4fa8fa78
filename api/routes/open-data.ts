/**
 * Open data: the public-sector list and one website's record (with scores for its own key).
 */
import type { FastifyPluginAsync } from 'fastify';
import { round } from '../../core/rating.js';
import { getSite, getSiteScores } from '../../core/store/sites.js';
import { readPublicSector } from '../../core/store/public-sector.js';
import { canReach } from '../../core/store/keys.js';
import { WebperfError } from '../../core/errors.js';
import { LATEST_VERSION, ORG_RECORD_SCHEMA, SCORES_SCHEMA, errorResponses, siteUri } from '../envelope.js';
import { baseUrl } from '../request-helpers.js';

export const LICENCE = {
  name: 'CC BY-SA 4.0',
  url: 'https://creativecommons.org/licenses/by-sa/4.0/',
  attribution: 'Source: webperf open data. Shared or adapted data keeps the same licence.',
} as const;

const LICENCE_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, url: { type: 'string' }, attribution: { type: 'string' } },
  required: ['name', 'url', 'attribution'],
} as const;

const openData: FastifyPluginAsync = async (app) => {
  app.addSchema(ORG_RECORD_SCHEMA);

  app.get('/public-sector/', {
    schema: {
      tags: ['open'],
      summary: 'All municipality and region websites',
      description: 'Every Swedish municipality and region website (310 organisations; Region Gotland replaces the former municipality). Licensed CC BY-SA 4.0; `licence` and `source` state it in the body too. `timestamp` is when the list last changed.',
      response: {
        200: {
          type: 'object',
          properties: {
            api_version: { type: 'string' },
            result_count: { type: 'integer' },
            timestamp: { type: 'string' },
            licence: LICENCE_SCHEMA,
            source: { type: 'string' },
            data: { type: 'array', items: { $ref: 'Organisation#' } },
          },
          required: ['api_version', 'result_count', 'timestamp', 'data'],
        },
      },
    },
  }, async (request) => {
    const { rows, changedAt } = await readPublicSector(app.deps.db);
    const b = baseUrl(request);
    return {
      api_version: LATEST_VERSION,
      result_count: new Set(rows.map((r) => r.url)).size,
      timestamp: (changedAt ?? new Date()).toISOString(),
      licence: LICENCE,
      source: 'webperf open data; organisation list compiled from Wikidata and public address lists (see core/data/public-sector.SOURCES.md)',
      data: rows.map((r) => ({ category: r.org_category, sameAs: r.same_as, title: r.title, uri: siteUri(b, r.id), url: r.url })),
    };
  });

  app.get<{ Params: { id: number } }>('/item/:id', {
    schema: {
      tags: ['open'],
      summary: 'One website',
      description: [
        'The website\'s record. Public-sector websites are open data; any other website answers 404 unless the request carries a key that reaches it (so nobody learns of another customer\'s site).',
        'With a valid `api-key` header that reaches the site, a `scores` object is added (latest scores; null until rated). A key that is sent but invalid is refused with 401, not ignored; a valid key without access to a public-sector site gets the record without scores.',
      ].join('\n\n'),
      params: { type: 'object', properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } }, required: ['id'] },
      response: {
        200: {
          type: 'object',
          properties: {
            api_version: { type: 'string' },
            timestamp: { type: 'string' },
            licence: LICENCE_SCHEMA,
            data: {
              type: 'object',
              properties: { ...ORG_RECORD_SCHEMA.properties, scores: SCORES_SCHEMA },
              required: ORG_RECORD_SCHEMA.required,
            },
          },
          required: ['api_version', 'timestamp', 'data'],
        },
        ...errorResponses(400, 401, 404),
      },
    },
  }, async (request) => {
    const key = await request.apiKey();
    const site = await getSite(app.deps.db, request.params.id);
    const reachable = key !== null && site !== undefined && canReach(key, site.id);
    if (!site || (!site.public_sector && !reachable)) throw new WebperfError('SITE_NOT_FOUND');
    const b = baseUrl(request);
    const data: Record<string, unknown> = {
      category: site.org_category,
      sameAs: site.same_as,
      title: site.title,
      uri: siteUri(b, site.id),
      url: site.url,
    };
    let timestamp = site.created_at;
    if (reachable) {
      const s = await getSiteScores(app.deps.db, site.id);
      const r = (v: number | null | undefined, places: number) => (v === null || v === undefined ? null : round(v, places));
      data.scores = { a11y: r(s?.a11y, 2), infosec: r(s?.infosec, 2), overall: r(s?.overall, 5), pagespeed: r(s?.pagespeed, 2), webstandard: r(s?.webstandard, 2) };
      if (s?.updated_at) timestamp = s.updated_at;
    }
    return { api_version: LATEST_VERSION, timestamp: new Date(timestamp).toISOString(), ...(site.public_sector ? { licence: LICENCE } : {}), data };
  });
};

export default openData;
