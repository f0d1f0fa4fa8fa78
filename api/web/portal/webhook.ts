/**
 * The site's webhook in the portal: set the address and threshold (the secret shown once),
 * rotate the secret (shown once), send a test event, remove it, and read the delivery log.
 * Through the same core functions as /webhook/ of the API (core/store/webhooks.ts, the address
 * rules in core/webhooks/address.ts and the test event in core/webhooks/test-event.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { WebperfError, isWebperfError } from '../../../core/errors.js';
import { guardFromConfig } from '../../../core/net/egress.js';
import { getSite } from '../../../core/store/sites.js';
import { deleteWebhook, getWebhook, listDeliveries, rotateWebhookSecret, setWebhook } from '../../../core/store/webhooks.js';
import { checkWebhookAddress } from '../../../core/webhooks/address.js';
import { sendTestEvent } from '../../../core/webhooks/test-event.js';
import { LATEST_VERSION, siteUri } from '../../envelope.js';
import { baseUrl } from '../../request-helpers.js';
import { translator } from '../i18n/index.js';
import { chooseLang } from '../lang.js';
import { FORM_BYTES, PORTAL, SITE_PARAMS, redirectWith, requireSite } from './common.js';

const THRESHOLD_MIN = 0.01;
const THRESHOLD_MAX = 4;
const DELIVERIES = 50;

const webhook: FastifyPluginAsync = async (app) => {
  const { db, config } = app.deps;
  const guard = app.deps.guard ?? guardFromConfig(config);

  async function site(request: FastifyRequest, siteId: number) {
    requireSite(request, siteId);
    const found = await getSite(db, siteId);
    if (!found) throw new WebperfError('NOT_FOUND', 'No such site in your account');
    return found;
  }

  async function webhookPage(request: FastifyRequest, reply: FastifyReply, siteId: number, problem: { error: WebperfError; url: string; threshold: string } | null) {
    const s = await site(request, siteId);
    const t = translator(chooseLang(request));
    if (problem) void reply.status(problem.error.status);
    return reply.page('portal/webhook', {
      title: t('portal.webhook.title', { site: s.title }),
      site: s,
      webhook: await getWebhook(db, siteId),
      deliveries: await listDeliveries(db, siteId, DELIVERIES),
      problem: problem ? { code: problem.error.code, message: problem.error.message } : null,
      values: problem ? { url: problem.url, threshold: problem.threshold } : null,
      thresholdMin: THRESHOLD_MIN,
      thresholdMax: THRESHOLD_MAX,
    });
  }

  const params = { params: SITE_PARAMS };
  const secretPage = (request: FastifyRequest, reply: FastifyReply, s: { id: number; title: string }, secret: string, rotated: boolean) => {
    const t = translator(chooseLang(request));
    return reply.page('portal/secret', { title: t(rotated ? 'portal.webhook.rotated.title' : 'portal.webhook.saved.title'), site: s, secret, rotated });
  };

  app.get<{ Params: { id: number } }>(`${PORTAL}/sites/:id/webhook`, { schema: params }, async (request, reply) => webhookPage(request, reply, request.params.id, null));

  app.post<{ Params: { id: number }; Body: { url: string; threshold?: string } }>(`${PORTAL}/sites/:id/webhook`, {
    bodyLimit: FORM_BYTES,
    schema: {
      ...params,
      body: { type: 'object', properties: { url: { type: 'string', maxLength: 4096 }, threshold: { type: 'string', maxLength: 20 }, _csrf: { type: 'string', maxLength: 1024 } }, required: ['url'] },
    },
  }, async (request, reply) => {
    const siteId = request.params.id;
    const s = await site(request, siteId);
    const rawThreshold = (request.body.threshold ?? '').trim().replace(',', '.');
    try {
      const url = await checkWebhookAddress(guard, request.body.url);
      let threshold: number | null = null;
      if (rawThreshold !== '') {
        threshold = /^[0-9]+(\.[0-9]+)?$/.test(rawThreshold) ? Number(rawThreshold) : NaN;
        if (!(threshold >= THRESHOLD_MIN && threshold <= THRESHOLD_MAX)) throw new WebperfError('VALIDATION', `The threshold must be a number from ${THRESHOLD_MIN} to ${THRESHOLD_MAX}, or empty for none`);
      }
      const { secret } = await setWebhook(db, { siteId, url, threshold, itemUri: siteUri(baseUrl(request), siteId), apiVersion: LATEST_VERSION });
      return secretPage(request, reply, s, secret, false);
    } catch (err) {
      if (isWebperfError(err) && err.status < 500) return webhookPage(request, reply, siteId, { error: err, url: request.body.url, threshold: request.body.threshold ?? '' });
      throw err;
    }
  });

  app.post<{ Params: { id: number } }>(`${PORTAL}/sites/:id/webhook/rotate`, { bodyLimit: FORM_BYTES, schema: params }, async (request, reply) => {
    const s = await site(request, request.params.id);
    const rotated = await rotateWebhookSecret(db, s.id);
    if (!rotated) throw new WebperfError('WEBHOOK_NOT_FOUND');
    return secretPage(request, reply, s, rotated.secret, true);
  });

  app.post<{ Params: { id: number } }>(`${PORTAL}/sites/:id/webhook/test`, { bodyLimit: FORM_BYTES, schema: params }, async (request, reply) => {
    const s = await site(request, request.params.id);
    const t = translator(chooseLang(request));
    const outcome = await sendTestEvent(db, guard, s.id);
    const flash = outcome.delivered
      ? { kind: 'ok' as const, text: t('portal.webhook.test.delivered', { status: outcome.status ?? 0 }) }
      : { kind: 'error' as const, text: t('portal.webhook.test.failed', { error: outcome.error ?? '' }) };
    return redirectWith(request, reply, `${PORTAL}/sites/${s.id}/webhook`, flash);
  });

  app.post<{ Params: { id: number } }>(`${PORTAL}/sites/:id/webhook/delete`, { bodyLimit: FORM_BYTES, schema: params }, async (request, reply) => {
    const s = await site(request, request.params.id);
    const t = translator(chooseLang(request));
    if (!(await deleteWebhook(db, s.id))) throw new WebperfError('WEBHOOK_NOT_FOUND');
    return redirectWith(request, reply, `${PORTAL}/sites/${s.id}/webhook`, { kind: 'ok', text: t('portal.webhook.deleted') });
  });
};

export default webhook;
