/**
 * Metrics for operators (core/metrics.ts) on the API: every answer is counted by its route's
 * pattern (never the address asked for, which would make a series per site id and per fuzzed
 * path) and status class, with its latency; and GET /metrics answers the Prometheus text format
 * to an admin key only (header `api-key`, or the query parameter as scrapers configure it). The
 * API process reads the queue, the heartbeats and the webhooks from its database at each scrape.
 */
import fp from 'fastify-plugin';
import { WebperfError } from '../../core/errors.js';
import { enableDefaultMetrics, metricsText, recordHttpRequest, watchDatabase } from '../../core/metrics.js';
import { errorResponses } from '../envelope.js';

const DESCRIPTION = [
  'For operators: the service\'s metrics in the Prometheus text format (version 0.0.4), for Prometheus and Grafana. Not part of the premium API: its names and labels follow the service, not the API\'s versions.',
  'Key: an admin api-key, as the `api-key` header or, for scrapers that cannot send headers, the `api-key` query parameter (redacted from every log line). Missing: 401 KEY_MISSING; unknown or revoked: 401 KEY_INVALID; a key that is not admin level: 403 ADMIN_REQUIRED.',
  'An operator may also serve the same text without a key on an address of its own (WEBPERF_METRICS_LISTEN, e.g. 127.0.0.1:9464), which every process kind offers, the runner included; see the README.',
  'Metrics (all prefixed `webperf_`): the queue (`queue_jobs{task,state}`, `queue_oldest_waiting_age_seconds{task}`), runs (`runs_total{outcome}`, `test_runs_total{type_of_test,outcome}`, `test_duration_seconds{type_of_test}`, `run_phase_duration_seconds{phase}`), Chromium (`chromium_launches_total`, `chromium_crashes_total`), runners (`runners_alive`, `jobs_unlocked_from_silent_runners_total`), webhooks (`webhook_deliveries_total{outcome}`, `webhook_attempts_total{outcome}`, `webhook_attempt_duration_seconds`, `webhooks_disabled`), HTTP (`http_requests_total{method,route,status_class}`, `http_request_duration_seconds{method,route}`), caches (`cache_lookups_total{cache,result}`), the rate limit (`rate_limit_counting_in_memory`, 1 while the count shared in PostgreSQL does not answer and this process counts alone; `rate_limit_fallbacks_total`), and Node.js\'s own (`process_*`, `nodejs_*`: event loop lag, heap, GC).',
].join('\n\n');

export default fp(
  async (app) => {
    enableDefaultMetrics();
    const unwatch = watchDatabase(app.deps.db, { staleAfterMs: app.deps.config.staleAfterMs });
    app.addHook('onClose', async () => unwatch());
    app.addHook('onResponse', async (request, reply) => {
      recordHttpRequest(request.method, request.routeOptions.url ?? null, reply.statusCode, reply.elapsedTime);
    });
    app.get('/metrics', {
      schema: {
        tags: ['meta'],
        summary: 'Metrics for operators (Prometheus text format; admin key)',
        description: DESCRIPTION,
        security: [{ AdminApiKey: [] }, { QueryApiKey: [] }],
        querystring: {
          type: 'object',
          properties: { 'api-key': { type: 'string', description: 'An admin-level api-key (for scrapers that cannot send the header)' } },
        },
        response: {
          200: { description: 'The metrics', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
          ...errorResponses(401, 403, 500),
        },
      },
    }, async (request, reply) => {
      const key = await request.requireKey({ allowQuery: true });
      if (key.kind !== 'admin') throw new WebperfError('ADMIN_REQUIRED', 'An admin api-key is required for /metrics');
      const { contentType, body } = await metricsText();
      return reply.type(contentType).header('cache-control', 'private, no-store').send(body);
    });
  },
  { name: 'webperf-metrics' },
);
