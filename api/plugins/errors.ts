/**
 * The one error handler: catalogue errors keep their status and message; body errors and
 * validation errors become catalogue errors; anything else is a 500 whose body never leaks
 * internals. Body: { statusCode, error, message }.
 */
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { databaseState, isDatabaseUnavailable } from '../../core/db/database.js';
import { ErrorCodes, WebperfError, isWebperfError, type ErrorCode } from '../../core/errors.js';
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

/**
 * The catalogue code of a 4xx that Fastify or one of its plugins raised with a code of its own
 * (FST_ERR_BAD_URL, FST_ERR_CTP_INVALID_JSON_BODY, FST_STATIC_FORBIDDEN_PATH …): callers see only
 * catalogue codes. A status the catalogue has no code for answers 400 VALIDATION.
 */
function frameworkCode(err: FastifyError, status: number): ErrorCode {
  if (err.code === 'FST_ERR_BAD_URL') return 'MALFORMED_REQUEST';
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return 'URI_TOO_LONG';
  return FRAMEWORK_STATUS_CODES[status] ?? 'VALIDATION';
}

/**
 * Fastify's `frameworkErrors`: the errors its router raises before there is a route (a broken
 * percent-escape, a path parameter over maxParamLength) answer in the documented body too.
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const code = err.code === 'FST_ERR_BAD_URL' ? 'MALFORMED_REQUEST' : err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'URI_TOO_LONG' : 'INTERNAL';
  const status = ErrorCodes[code].status;
  void reply.status(status).send({ statusCode: status, error: code, message: code === 'INTERNAL' ? ErrorCodes.INTERNAL.message : err.message });
}

const FRAMEWORK_STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION',
  401: 'KEY_MISSING',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  413: 'REQUEST_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

/** The documented error body. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

/** The status, body and Retry-After of any error, as the one error handler answers it. */
export function errorAnswer(caught: FastifyError | Error, request: FastifyRequest): { status: number; body: ErrorBody; retryAfter?: string } {
  let err: FastifyError | WebperfError = caught as FastifyError;
  if (!isWebperfError(err)) err = bodyError(err, request) ?? (err.validation ? validationError(err, request) : err);
  // The database is down or restarting: a 503 the caller may retry, not a 500.
  if (!isWebperfError(err) && isDatabaseUnavailable(err)) {
    request.log.warn({ code: (err as { code?: unknown }).code }, 'database unavailable');
    // /health learns of it at once (it answers 503 without waiting on the database meanwhile).
    if (request.server.deps?.db) databaseState(request.server.deps.db).noteFailure(err);
    err = new WebperfError('DB_UNAVAILABLE');
  }
  if (isWebperfError(err)) {
    const retryAfter = err.details?.retryAfter ? String(err.details.retryAfter) : err.code === 'DB_UNAVAILABLE' ? '5' : undefined;
    return { status: err.status, body: { statusCode: err.status, error: err.code, message: err.message }, ...(retryAfter ? { retryAfter } : {}) };
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status >= 500) {
    request.log.error({ err }, 'request failed');
    return { status: 500, body: { statusCode: 500, error: 'INTERNAL', message: ErrorCodes.INTERNAL.message } };
  }
  const code = frameworkCode(err, status);
  const shown = ErrorCodes[code].status;
  return { status: shown, body: { statusCode: shown, error: code, message: err.message || ErrorCodes[code].message } };
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
