/**
 * The OpenAPI 3.0 description, generated from the route schemas, and the interactive docs.
 * Decisions taken where the interface specification says "not shown" live in the description
 * texts of the routes and here.
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { API_KEY_FORMAT } from './auth.js';

export const API_DESCRIPTION = `Web-quality measurements of websites (speed, accessibility, information security and privacy,
web standards, readability, web analytics), open data about Swedish municipality and region websites, and premium access.

**Open data** (\`/public-sector/\`, \`/item/{id}\`) is licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/):
credit the source ("webperf open data") and share adapted data under the same licence.

**Keys**: \`api-key\` values are \`wpk\` followed by 55 letters and digits (58 in all); keys issued in the earlier \`wpk_<hex>_<base64url>\` form keep working until revoked (see the security schemes).
\`GET /whoami/\` tells what a key is, what it reaches and how much of its rate limit is left.

**Errors** answer \`{ statusCode, error, message }\`: \`error\` is a stable code from one catalogue.

**Versions**: premium paths accept an optional version segment \`/0.1\`; without it the latest version (0.1) answers;
\`api_version\` reports the version reached. The API surface (this document) is version 1.0.0.

**Dates**: \`timestamp\` and \`test_date\` are ISO 8601 date-times in UTC, except \`date_added\` (\`yyyy-mm-dd hh:mm:ss\`, UTC) as specified.

**Ratings**: 1.0 (worst) to 5.0 (best); -1 means not rated.`;

export default fp(async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'webperf API', version: '1.0.0', description: API_DESCRIPTION, license: { name: 'Open data: CC BY-SA 4.0', url: 'https://creativecommons.org/licenses/by-sa/4.0/' } },
      components: {
        securitySchemes: {
          ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'api-key', description: `Standard key (premium subscribers). ${API_KEY_FORMAT}` },
          AdminApiKey: { type: 'apiKey', in: 'header', name: 'api-key', description: `Admin key (agencies, elevated permissions). ${API_KEY_FORMAT}` },
          QueryApiKey: { type: 'apiKey', in: 'query', name: 'api-key', description: `The key as a query parameter, for clients that cannot send headers: accepted by /webanalytics (backwards compatibility) and /metrics (scrapers) only; redacted from the logs. ${API_KEY_FORMAT}` },
        },
      },
      tags: [
        { name: 'open', description: 'Open endpoints: no key needed' },
        { name: 'premium', description: 'Premium endpoints: api-key header required' },
        { name: 'meta', description: 'Health, info and this description' },
      ],
    },
    // Do not document the docs' own asset routes.
    hideUntagged: true,
  });
  for (const prefix of ['/swagger', '/docs', '/v1/docs', '/docs/en']) {
    await app.register(
      async (scope) => {
        await scope.register(swaggerUi, {
          routePrefix: prefix,
          uiConfig: { docExpansion: 'list', deepLinking: true },
          staticCSP: true,
        });
      },
    );
  }
});
