/**
 * GET /webanalytics (also /0.1/webanalytics): the agency analytics CSV. Admin-level keys only,
 * given in the query string as the spec requires (QueryApiKey); the request log redacts it
 * (api/app.ts serializeRequest). The CSV itself is built in core/analytics-csv.ts.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Db } from '../../core/db/database.js';
import { ABSENT, PRESENT, analyticsCsv, analyticsCsvColumns } from '../../core/analytics-csv.js';
import { WebperfError } from '../../core/errors.js';
import { streamAnalyticsCsvChunks } from '../../core/store/webanalytics.js';
import { LATEST_VERSION, errorResponses } from '../envelope.js';

const DESCRIPTION = [
  'Which web-analytics tools the latest analytics test (type 101) found on each followed website: one row per followed site, ordered by site id, streamed as it is read.',
  'Key: `api-key` in the query string (QueryApiKey, as the spec requires; an api-key header is accepted too and is the safer choice). Missing: 401 KEY_MISSING; unknown or revoked: 401 KEY_INVALID; a key that is not admin level (standard and agency-plan keys): 403 ADMIN_REQUIRED. The key is redacted from every log line.',
  `Format: text/csv; charset=utf-8, semicolon-separated, with a UTF-8 byte order mark, a header row and content-disposition attachment; filename="webanalytics-{yyyy-mm-dd}.csv". A field holding ";", a double quote or a line break is quoted (quotes doubled).`,
  `Columns, in this stable order: title (site name), url (address the latest analytics test evaluated; the start page before the first test), test_date (ISO 8601 UTC time of that test; empty before the first), then one column per tool in the analytics rules file's order (new tools are appended, so columns keep their place): ${analyticsCsvColumns().slice(3).join(', ')}.`,
  `Presence value: "${PRESENT}" when the latest test detected the tool, "${ABSENT}" when it did not; empty for a site not yet tested.`,
  'CSV injection (OWASP): a cell starting with =, +, -, @, a tab or a carriage return is prefixed with a single quote so spreadsheets show it as text.',
].join('\n\n');

const webanalytics: FastifyPluginAsync = async (app) => {
  const { db } = app.deps;
  for (const prefix of ['', `/${LATEST_VERSION}`]) {
    app.get(`${prefix}/webanalytics`, {
      schema: {
        tags: ['premium'],
        summary: 'Agency analytics CSV (admin key)',
        description: DESCRIPTION,
        security: [{ QueryApiKey: [] }],
        ...(prefix ? { hide: true } : {}),
        querystring: {
          type: 'object',
          properties: { 'api-key': { type: 'string', description: 'An admin-level api-key' } },
        },
        response: {
          200: { description: 'The CSV', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...errorResponses(401, 403, 500),
        },
      },
    }, async (request, reply) => {
      const key = await request.requireKey({ allowQuery: true });
      if (key.kind !== 'admin') throw new WebperfError('ADMIN_REQUIRED', 'An admin api-key is required for /webanalytics');
      return sendAnalyticsCsv(reply, db);
    });
  }
};

/** The CSV as both the API route and the agency portal send it (streamed, dated file name). */
export function sendAnalyticsCsv(reply: FastifyReply, db: Db): FastifyReply {
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="webanalytics-${day}.csv"`)
    .header('cache-control', 'private, no-store')
    .send(analyticsCsv(streamAnalyticsCsvChunks(db)));
}

export default webanalytics;
