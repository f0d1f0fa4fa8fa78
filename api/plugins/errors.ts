/**
 * One error handler: catalogue errors keep their status and message; validation errors are 400;
 * anything else is a 500 whose body never leaks internals. Body: { statusCode, error, message }.
 */
import fp from 'fastify-plugin';
import { ErrorCodes, isWebperfError } from '../../core/errors.js';

export const ERROR_BODY_SCHEMA = {
  $id: 'Error',
  type: 'object',
  description: 'Every error answers with this body (the spec shows only `message`; `statusCode` and `error`, a stable code from the error catalogue, are added).',
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string', description: 'Stable error code, e.g. KEY_INVALID, QUOTA_EXCEEDED' },
    message: { type: 'string' },
  },
  required: ['statusCode', 'error', 'message'],
} as const;

export default fp(async (app) => {
  app.addSchema(ERROR_BODY_SCHEMA);
  app.setErrorHandler((err: any, request, reply) => {
    if (isWebperfError(err)) {
      if (err.details?.retryAfter) void reply.header('retry-after', String(err.details.retryAfter));
      return reply.status(err.status).send({ statusCode: err.status, error: err.code, message: err.message });
    }
    if (err.validation) {
      // The site-id header keeps its own codes whichever layer noticed it.
      if (err.validationContext === 'headers') {
        const siteId = (err.validation as { keyword: string; params?: { missingProperty?: string }; instancePath?: string }[]).find(
          (v) => v.params?.missingProperty === 'site-id' || v.instancePath === '/site-id',
        );
        if (siteId) {
          const code = siteId.keyword === 'required' ? 'SITE_ID_MISSING' : 'SITE_ID_INVALID';
          return reply.status(400).send({ statusCode: 400, error: code, message: ErrorCodes[code].message });
        }
      }
      return reply.status(400).send({ statusCode: 400, error: 'VALIDATION', message: err.message });
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err }, 'request failed');
      return reply.status(500).send({ statusCode: 500, error: 'INTERNAL', message: ErrorCodes.INTERNAL.message });
    }
    if (status === 429) {
      return reply.status(429).send({ statusCode: 429, error: 'RATE_LIMITED', message: err.message });
    }
    return reply.status(status).send({ statusCode: status, error: err.code ?? 'VALIDATION', message: err.message });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ statusCode: 404, error: 'NOT_FOUND', message: `No route ${request.method} ${request.url.split('?')[0]}` });
  });
});
