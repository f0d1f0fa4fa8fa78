/**
 * The one error handler: catalogue errors keep their status and message; body errors and
 * validation errors become catalogue errors; anything else is a 500 whose body never leaks
 * internals. Body: { statusCode, error, message }.
 */
import fp from 'fastify-plugin';
import type { FastifyError, FastifyRequest } from 'fastify';
import { ErrorCodes, WebperfError, isWebperfError } from '../../core/errors.js';
import { LANGS } from '../../core/i18n/langs.js';
import { bodyError } from './body.js';

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

interface ValidationItem {
  keyword: string;
  instancePath?: string;
  params?: { missingProperty?: string };
}

/** The catalogue error of a schema validation error: site-id and lang keep their own codes. */
function validationError(err: FastifyError, request: FastifyRequest): WebperfError {
  const items = (err.validation ?? []) as ValidationItem[];
  if (err.validationContext === 'headers') {
    const siteId = items.find((v) => v.params?.missingProperty === 'site-id' || v.instancePath === '/site-id');
    if (siteId) return new WebperfError(siteId.keyword === 'required' ? 'SITE_ID_MISSING' : 'SITE_ID_INVALID');
  }
  if (err.validationContext === 'querystring' && items.some((v) => v.instancePath === '/lang')) {
    const lang = (request.query as Record<string, unknown>).lang;
    return new WebperfError('UNSUPPORTED_LANG', `Unsupported lang "${String(lang)}": use one of ${LANGS.join(', ')}`);
  }
  return new WebperfError('VALIDATION', err.message);
}

/** The status, body and Retry-After of any error, as the one error handler answers it. */
export function errorAnswer(caught: FastifyError | Error, request: FastifyRequest): { status: number; body: ErrorBody; retryAfter?: string } {
  let err: FastifyError | WebperfError = caught as FastifyError;
  if (!isWebperfError(err)) err = bodyError(err, request) ?? (err.validation ? validationError(err, request) : err);
  if (isWebperfError(err)) {
    const retryAfter = err.details?.retryAfter ? String(err.details.retryAfter) : undefined;
    return { status: err.status, body: { statusCode: err.status, error: err.code, message: err.message }, ...(retryAfter ? { retryAfter } : {}) };
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status >= 500) {
    request.log.error({ err }, 'request failed');
    return { status: 500, body: { statusCode: 500, error: 'INTERNAL', message: ErrorCodes.INTERNAL.message } };
  }
  if (status === 429) return { status, body: { statusCode: 429, error: 'RATE_LIMITED', message: err.message } };
  return { status, body: { statusCode: status, error: err.code ?? 'VALIDATION', message: err.message } };
}

/** The documented error body. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

export default fp(async (app) => {
  app.addSchema(ERROR_BODY_SCHEMA);
  app.setErrorHandler((caught: FastifyError, request, reply) => {
    const { status, body, retryAfter } = errorAnswer(caught, request);
    if (retryAfter) void reply.header('retry-after', retryAfter);
    return reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ statusCode: 404, error: 'NOT_FOUND', message: `No route ${request.method} ${request.url.split('?')[0]}` });
  });
});
