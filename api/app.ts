/**
 * buildApp: the Fastify application. HTTP only: routes call core; no SQL here.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { TrustProxy } from '../core/config.js';
import type { ApiDeps, RouteTableEntry } from './context.js';
import errors, { frameworkErrors } from './plugins/errors.js';
import { clientErrorHandler, MAX_HEADER_BYTES } from './client-errors.js';
import auth from './plugins/auth.js';
import body from './plugins/body.js';
import strictIntegers from './plugins/strict-integers.js';
import cache from './plugins/cache.js';
import openapi from './plugins/openapi.js';
import openData from './routes/open-data.js';
import testTypes from './routes/test-types.js';
import meta from './routes/meta.js';
import premium from './routes/premium/index.js';
import webanalytics from './routes/webanalytics.js';
import web from './web/index.js';
import { LATEST_VERSION } from './envelope.js';
import { buildSerializer, buildValidator } from './schema-compilers.js';

/** Request-log redaction: keys and session cookies never reach the logs. */
export const REDACT = ['req.headers["api-key"]', 'req.headers.authorization', 'req.headers.cookie'];

/** `logger`: true logs to stdout; a stream logs there (tests); either way keys are redacted. */
export async function buildApp(deps: ApiDeps, options: { logger?: boolean | { stream: NodeJS.WritableStream } } = {}): Promise<FastifyInstance> {
  const logging = { level: deps.config.logLevel, redact: REDACT, serializers: { req: serializeRequest } };
  const limits = deps.config.http;
  const app = Fastify({
    logger: options.logger === true ? logging : options.logger ? { ...logging, stream: options.logger.stream } : false,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false } },
    // Fastify's own compilers, each route's schema compiled at its first use, once per process.
    schemaController: { compilersFactory: { buildValidator, buildSerializer } as never },
    // Behind an https reverse proxy the operator trusts it (WEBPERF_TRUST_PROXY), so that
    // request.protocol is https and the portal's session cookie is Secure; by default no one is.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    clientErrorHandler,
    frameworkErrors,
    // Slow, idle and abusive clients are cut off (config.http); Node checks the header and
    // request timeouts every checkIntervalMs.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    // The request line and headers together (api/client-errors.ts answers what is over it).
    http: { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: limits.checkIntervalMs },
  });
  app.decorate('deps', deps);
  // Collected at the root so that /info lists every documented route of every plugin.
  const endpoints: { method: string; path: string }[] = [];
  app.decorate('endpoints', endpoints);
  const routeTable: RouteTableEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const bodyProperties = (route.schema?.body as { properties?: Record<string, unknown> } | undefined)?.properties;
    const bodyFields = bodyProperties ? Object.keys(bodyProperties) : undefined;
    for (const method of methods) routeTable.push({ method, url: route.url, ...(bodyFields ? { bodyFields } : {}), ...(route.schema ? { schema: route.schema } : {}) });
    const documented = (route.schema as { tags?: unknown } | undefined)?.tags !== undefined;
    for (const method of methods) {
      if (method === 'HEAD' || !documented || endpoints.some((e) => e.method === method && e.path === route.url)) continue;
      endpoints.push({ method, path: route.url });
    }
  });
  await app.register(errors);
  await app.register(strictIntegers);
  await app.register(body);
  await app.register(cache);
  await app.register(auth);
  await app.register(openapi);
  // Counts every answer (route pattern, status class, latency) and serves GET /metrics (admin key;
  // after openapi, which documents only the routes registered after it).
  await app.register(import('./plugins/metrics.js'));
  await app.register(meta);
  await app.register(openData);
  await app.register(testTypes);
  await app.register(webanalytics);
  await app.register(premium, { version: LATEST_VERSION, hidden: false });
  await app.register(premium, { prefix: `/${LATEST_VERSION}`, version: LATEST_VERSION, hidden: true });
  // Pages for people: the public dashboard (and the portal), served by the same process.
  await app.register(web);
  return app;
}

/** Fastify takes a hop count at run time but types only a function for it. */
function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/** Logs a request without its query string's api-key or password-link token. */
function serializeRequest(req: { method: string; url: string; headers: Record<string, unknown>; ip?: string }) {
  return {
    method: req.method,
    // The portal's one-time password link carries its token in the query string too.
    url: req.url.replace(/([?&](?:api-key|token)=)[^&]*/gi, '$1[Redacted]'),
    remoteAddress: req.ip,
    // The portal's session cookie is as good as a password while it lives.
    headers: { ...req.headers, ...(req.headers['api-key'] ? { 'api-key': '[Redacted]' } : {}), ...(req.headers.cookie ? { cookie: '[Redacted]' } : {}) },
  };
}
