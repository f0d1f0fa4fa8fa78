/**
 * The per-site webhook (the spec's Events): configure, rotate its secret, send a test event, and
 * list recent deliveries. Persistence and the delivery rules are in core/store/webhooks.ts; the
 * signed request in core/webhooks/send.ts. Decisions where the spec says "not shown" are stated
 * in each route's description (they reach the OpenAPI document).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { guardFromConfig } from '../../../core/net/egress.js';
import { getSite } from '../../../core/store/sites.js';
import {
  DISABLE_AFTER_FAILING_DAYS,
  RETRY_DELAYS_S,
  RETRY_JITTER,
  ROTATION_OVERLAP_HOURS,
  WEBHOOK_REPORT_LANG,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  rotateWebhookSecret,
  setWebhook,
  type WebhookView,
} from '../../../core/store/webhooks.js';
import { WEBHOOK_TIMEOUT_MS } from '../../../core/webhooks/send.js';
import { MAX_WEBHOOK_URL_LENGTH as MAX_URL_LENGTH, checkWebhookAddress } from '../../../core/webhooks/address.js';
import { sendTestEvent } from '../../../core/webhooks/test-event.js';
import { siteUri } from '../../envelope.js';
import { baseUrl } from '../../request-helpers.js';
import { checkDeclaredLength, formBody } from '../../plugins/body.js';
import { RATE_LIMIT_HEADERS } from '../../plugins/rate-limit.js';
import { SITE_HEADERS, errorResponses, premiumDoc } from './schemas.js';
import type { PremiumOptions } from './options.js';

const BODY_BYTES = 16 * 1024;
const DELIVERY_LIST_LIMIT = 50;

const hours = (s: number) => (s >= 3600 ? `${s / 3600} h` : s >= 60 ? `${s / 60} min` : `${s} s`);
const RETRY_RULE = `Delivery: one POST per stored public test result of the site (re-tests and scheduled tests; never private one-off tests), content-type application/json, queued in the same transaction that stores the result and sent by a background job in the runners' delivery worker pool, apart from the test jobs (the test runner never waits for it, and a slow or hanging receiver never holds up a test). A 2xx answer within ${WEBHOOK_TIMEOUT_MS / 1000} s is success; redirects are not followed (a 3xx is a failure). Retries (our own schedule, not the job queue's): after attempt n fails the next comes after ${RETRY_DELAYS_S.map(hours).join(', ')} (exponential, each ±${RETRY_JITTER * 100} % jitter), ${RETRY_DELAYS_S.length + 1} attempts over about ${Math.round(RETRY_DELAYS_S.reduce((a, b) => a + b, 0) / 3600)} h; then the delivery is failed. 410 Gone disables the webhook at once; a webhook whose deliveries have failed for ${DISABLE_AFTER_FAILING_DAYS} days without a success is disabled; either way disabled_reason says why and PUT enables it again.`;
const SIGNING_RULE = `Signing (Standard Webhooks, https://www.standardwebhooks.com/): headers webhook-id (msg_…, the same on every retry of one event: de-duplicate on it), webhook-timestamp (Unix seconds of the attempt) and webhook-signature (\`v1,\` + base64 HMAC-SHA256 of \`{webhook-id}.{webhook-timestamp}.{body}\` keyed with the base64 part of the whsec_ secret). After a rotation the previous secret signs too for ${ROTATION_OVERLAP_HOURS} h (two space-separated signatures); any Standard Webhooks library verifies either.`;
const THRESHOLD_RULE = 'Threshold ("only drops"): without one every result is delivered. With threshold T a result is delivered only when it is rated (rating ≥ 1) and its rating is at least T lower than the previous rated result of the same test type for the site (by test date); the first rated result of a test type is not delivered, nor is a rise or an unrated result. A delivered drop carries `changes`, what explains it: `since` (the previous rated result: result_id, test_date, rating), `added` per category (a11y, pagespeed, infosec, webstandard) the problems added since then or made worse (a graver severity, a larger count; each with key, rule, change added|changed, severity, count and its text in Swedish, at most 300 characters), the worst first, at most 5 per category, `more` how many were left out, and `findings_known` false (nothing listed) when either result was stored before findings were kept. Identity and noise rules as GET /changes/{siteId}.';
const PAYLOAD_RULE = `Payload, exactly the spec's: api_version (string: the version the webhook was set through), uri (the site's /item/{id} address), tested_url, timestamp (ISO 8601, when the event was created), result_count ("1", a string as specified), data (one test result: test_date, type_of_test, url, rating, check_report, check_report_a11y, check_report_perf, check_report_stand, check_report_sec in "${WEBHOOK_REPORT_LANG}", and json_check_data as JSON text).`;
const ADDRESS_RULE = `The receiving address must be public: http or https, no credentials, at most ${MAX_URL_LENGTH} characters, and every address its host resolves to must pass the target guard (private, loopback, link-local, metadata and reserved ranges refused unless the operator allowlists them): 400 WEBHOOK_URL_INVALID or TARGET_BLOCKED with the reason. The guard runs again at connect time on every delivery (DNS rebinding).`;
const CHECKS = 'Checks, in this order: no api-key or an unknown/revoked one: 401; missing or bad site-id header: 400 SITE_ID_MISSING / SITE_ID_INVALID; a key that does not reach the site: 403 FORBIDDEN_SITE. Any key that reaches the site may manage its webhook.';

const DATE = { type: 'string', format: 'date-time', nullable: true } as const;
const WEBHOOK_PROPS = {
  api_version: { type: 'string' },
  site_id: { type: 'integer' },
  url: { type: 'string', description: 'The receiving address' },
  threshold: { type: 'number', nullable: true, description: 'null: every result is delivered' },
  enabled: { type: 'boolean' },
  disabled_at: DATE,
  disabled_reason: { type: 'string', nullable: true, description: 'Why the webhook was disabled (410 Gone, or failing for days)' },
  failing_since: { ...DATE, description: 'First failed attempt since the last success; null while deliveries succeed' },
  rotating: { type: 'boolean', description: 'The previous secret still signs' },
  previous_secret_expires_at: { ...DATE, description: 'When the previous secret stops signing' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
} as const;
const WEBHOOK_REQUIRED = Object.keys(WEBHOOK_PROPS);

function view(version: string, w: WebhookView) {
  return {
    api_version: version,
    site_id: w.siteId,
    url: w.url,
    threshold: w.threshold,
    enabled: w.disabledAt === null,
    disabled_at: w.disabledAt?.toISOString() ?? null,
    disabled_reason: w.disabledReason,
    failing_since: w.failingSince?.toISOString() ?? null,
    rotating: w.rotating,
    previous_secret_expires_at: w.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

/** The key, the site-id header and the key's access to the site; 401, 400, 403 in that order. */
async function siteAccess(request: FastifyRequest): Promise<number> {
  return (await request.requireSiteHeader()).siteId;
}

const webhook: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const { db, config } = app.deps;
  const guard = app.deps.guard ?? guardFromConfig(config);
  const premium = premiumDoc(opts, config.rateLimitPerMinute);
  const doc = <S extends { description: string }>(schema: S) => premium(schema);
  const describe = (...parts: string[]) => [...parts, CHECKS].join('\n\n');
  // preParsing: refused before any of the body is read.
  const checkAccess = async (request: FastifyRequest) => {
    await siteAccess(request);
  };

  app.put<{ Body: { url: string; threshold?: number | string | null } }>('/webhook/', {
    preParsing: [checkAccess, checkDeclaredLength],
    ...formBody({
      maxBytes: BODY_BYTES,
      fieldBytes: MAX_URL_LENGTH + 64,
      tooLarge: () => new WebperfError('REQUEST_TOO_LARGE', `The request body is larger than ${BODY_BYTES} bytes`),
      invalid: () => new WebperfError('VALIDATION', `The body needs url (http or https, at most ${MAX_URL_LENGTH} characters), once, and may have threshold (0.01 to 4, or empty for none)`),
    }),
    schema: doc({
      summary: 'Create or replace the site\'s webhook',
      description: describe(
        'One webhook per site. Body as JSON, application/x-www-form-urlencoded or multipart/form-data fields: `url` (required) and `threshold` (optional, 0.01–4; omitted or empty: none). Replacing a webhook gives it a new secret, enables it again and ends any rotation. Answers the webhook and its signing `secret`, which is shown this once only.',
        ADDRESS_RULE,
        THRESHOLD_RULE,
        RETRY_RULE,
        SIGNING_RULE,
        PAYLOAD_RULE,
      ),
      headers: SITE_HEADERS,
      body: {
        type: 'object',
        properties: {
          url: { type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH },
          threshold: { anyOf: [{ type: 'number', minimum: 0.01, maximum: 4 }, { type: 'string', maxLength: 0 }, { type: 'null' }] },
        },
        required: ['url'],
        additionalProperties: false,
      },
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: { ...WEBHOOK_PROPS, secret: { type: 'string', description: 'whsec_ signing secret; shown only here and by rotate-secret' } },
          required: [...WEBHOOK_REQUIRED, 'secret'],
        },
        ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500),
      },
    }),
  }, async (request) => {
    const siteId = await siteAccess(request);
    if (!(await getSite(db, siteId))) throw new WebperfError('SITE_NOT_FOUND');
    const url = await checkWebhookAddress(guard, request.body.url);
    const t = request.body.threshold;
    // A form's empty field means no threshold (the schema allows only the empty string besides numbers).
    const threshold = typeof t === 'number' ? t : null;
    const { webhook: w, secret } = await setWebhook(db, { siteId, url, threshold, itemUri: siteUri(baseUrl(request), siteId), apiVersion: opts.version });
    return { ...view(opts.version, w), secret };
  });

  app.get('/webhook/', {
    preParsing: checkAccess,
    schema: doc({
      summary: 'The site\'s webhook (without its secret)',
      description: describe('404 WEBHOOK_NOT_FOUND when the site has none. `enabled` false with `disabled_reason` once 410 Gone or days of failures disabled it.', THRESHOLD_RULE, RETRY_RULE),
      headers: SITE_HEADERS,
      response: {
        200: { type: 'object', headers: RATE_LIMIT_HEADERS, properties: WEBHOOK_PROPS, required: WEBHOOK_REQUIRED },
        ...errorResponses(400, 401, 403, 404, 429, 500),
      },
    }),
  }, async (request) => {
    const siteId = await siteAccess(request);
    const w = await getWebhook(db, siteId);
    if (!w) throw new WebperfError('WEBHOOK_NOT_FOUND');
    return view(opts.version, w);
  });

  app.delete('/webhook/', {
    preParsing: checkAccess,
    schema: doc({
      summary: 'Delete the site\'s webhook',
      description: describe('Deliveries not yet sent are dropped. 404 WEBHOOK_NOT_FOUND when the site has none.'),
      headers: SITE_HEADERS,
      response: {
        200: { type: 'object', headers: RATE_LIMIT_HEADERS, properties: { api_version: { type: 'string' }, message: { type: 'string' } }, required: ['api_version', 'message'] },
        ...errorResponses(400, 401, 403, 404, 429, 500),
      },
    }),
  }, async (request) => {
    const siteId = await siteAccess(request);
    if (!(await deleteWebhook(db, siteId))) throw new WebperfError('WEBHOOK_NOT_FOUND');
    return { api_version: opts.version, message: `The webhook of site ${siteId} is deleted` };
  });

  app.post('/webhook/rotate-secret', {
    preParsing: checkAccess,
    schema: doc({
      summary: 'Rotate the webhook\'s signing secret',
      description: describe(`Answers a new secret (shown this once). The current one becomes the previous secret and keeps signing beside the new one for ${ROTATION_OVERLAP_HOURS} h, so receivers can switch without losing events; a second rotation within that time drops the oldest. No body.`, SIGNING_RULE),
      headers: SITE_HEADERS,
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: { api_version: { type: 'string' }, secret: { type: 'string' }, previous_secret_expires_at: { type: 'string', format: 'date-time' } },
          required: ['api_version', 'secret', 'previous_secret_expires_at'],
        },
        ...errorResponses(400, 401, 403, 404, 429, 500),
      },
    }),
  }, async (request) => {
    const siteId = await siteAccess(request);
    const rotated = await rotateWebhookSecret(db, siteId);
    if (!rotated) throw new WebperfError('WEBHOOK_NOT_FOUND');
    return { api_version: opts.version, secret: rotated.secret, previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString() };
  });

  app.post('/webhook/test', {
    preParsing: checkAccess,
    schema: doc({
      summary: 'Send a test event now',
      description: describe(
        `Sends one signed event now, exactly as a delivery (same headers, guard and ${WEBHOOK_TIMEOUT_MS / 1000} s timeout), and answers what the receiver said; it is never retried and is listed among the deliveries with kind "test". Its data is the site's latest public test result, or before the first one a placeholder result with type_of_test 0 and rating -1. A disabled webhook is tested too (to check a fix before PUT enables it). 200 whatever the receiver answered: see \`delivered\`, \`status_code\` and \`error\`.`,
        PAYLOAD_RULE,
      ),
      headers: SITE_HEADERS,
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: {
            api_version: { type: 'string' },
            event_id: { type: 'string', description: 'The webhook-id sent' },
            delivered: { type: 'boolean', description: 'The receiver answered 2xx' },
            status_code: { type: 'integer', nullable: true, description: 'The receiver\'s HTTP status; null when there was no answer' },
            error: { type: 'string', nullable: true, description: 'Why it was not delivered (refused by the guard, no answer in time, HTTP status)' },
            duration_ms: { type: 'integer' },
          },
          required: ['api_version', 'event_id', 'delivered', 'status_code', 'error', 'duration_ms'],
        },
        ...errorResponses(400, 401, 403, 404, 429, 500),
      },
    }),
  }, async (request) => {
    const siteId = await siteAccess(request);
    const outcome = await sendTestEvent(db, guard, siteId);
    return {
      api_version: opts.version,
      event_id: outcome.eventId,
      delivered: outcome.delivered,
      status_code: outcome.status,
      error: outcome.error,
      duration_ms: outcome.durationMs,
    };
  });

  app.get('/webhook/deliveries', {
    preParsing: checkAccess,
    schema: doc({
      summary: 'Recent deliveries of the site\'s webhook',
      description: describe(`The latest ${DELIVERY_LIST_LIMIT} deliveries, newest first (kept after the webhook is deleted). status: pending (next_attempt_at says when), delivered, failed (retries spent, or webhook disabled/deleted), gone (410).`, RETRY_RULE),
      headers: SITE_HEADERS,
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: {
            api_version: { type: 'string' },
            site_id: { type: 'integer' },
            result_count: { type: 'integer' },
            data: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  event_id: { type: 'string', description: 'The webhook-id header' },
                  kind: { type: 'string', enum: ['result', 'test'] },
                  type_of_test: { type: 'integer', nullable: true },
                  status: { type: 'string', enum: ['pending', 'delivered', 'failed', 'gone'] },
                  attempt: { type: 'integer', description: 'Attempts made so far' },
                  status_code: { type: 'integer', nullable: true, description: 'HTTP status of the last attempt' },
                  error: { type: 'string', nullable: true },
                  duration_ms: { type: 'integer', nullable: true, description: 'Of the last attempt' },
                  created_at: { type: 'string', format: 'date-time' },
                  last_attempt_at: DATE,
                  next_attempt_at: { ...DATE, description: 'The next retry, while pending' },
                },
                required: ['event_id', 'kind', 'type_of_test', 'status', 'attempt', 'status_code', 'error', 'duration_ms', 'created_at', 'last_attempt_at', 'next_attempt_at'],
              },
            },
          },
          required: ['api_version', 'site_id', 'result_count', 'data'],
        },
        ...errorResponses(400, 401, 403, 429, 500),
      },
    }),
  }, async (request) => {
    const siteId = await siteAccess(request);
    const rows = await listDeliveries(db, siteId, DELIVERY_LIST_LIMIT);
    return {
      api_version: opts.version,
      site_id: siteId,
      result_count: rows.length,
      data: rows.map((d) => ({
        event_id: d.eventId,
        kind: d.kind,
        type_of_test: d.typeOfTest,
        status: d.status,
        attempt: d.attempts,
        status_code: d.responseStatus,
        error: d.error,
        duration_ms: d.durationMs,
        created_at: d.createdAt.toISOString(),
        last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
        next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
      })),
    };
  });
};

export default webhook;
