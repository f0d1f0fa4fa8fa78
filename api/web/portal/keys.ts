/**
 * API keys of the signed-in user: create (shown once, with a label), list (label, created, last
 * used), revoke. Through core/store/keys.ts, the same functions the operator CLI uses; a key made
 * here reaches the user's sites (agency: an admin-level key, the spec's AdminApiKey for
 * agencies, reaching the whole portfolio and /webanalytics).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { createKey, listUserKeys, revokeKey } from '../../../core/store/keys.js';
import { translator } from '../i18n/index.js';
import { chooseLang } from '../lang.js';
import { FORM_BYTES, PORTAL, redirectWith, requireUser } from './common.js';

export const MAX_LABEL = 100;

const keys: FastifyPluginAsync = async (app) => {
  const { db } = app.deps;

  const keysPage = async (request: FastifyRequest, reply: FastifyReply, error: { code: string; message: string; status: number } | null, label = '') => {
    const user = requireUser(request);
    const t = translator(chooseLang(request));
    if (error) void reply.status(error.status);
    return reply.page('portal/keys', { title: t('portal.keys.title'), keys: await listUserKeys(db, user.id), error, label, maxLabel: MAX_LABEL, agency: user.level === 'agency' });
  };

  app.get(`${PORTAL}/keys`, async (request, reply) => keysPage(request, reply, null));

  app.post<{ Body: { label?: string } }>(`${PORTAL}/keys`, {
    bodyLimit: FORM_BYTES,
    schema: { body: { type: 'object', properties: { label: { type: 'string', maxLength: 1024 }, _csrf: { type: 'string', maxLength: 1024 } } } },
  }, async (request, reply) => {
    const user = requireUser(request);
    const t = translator(chooseLang(request));
    const label = (request.body.label ?? '').trim();
    if (label === '' || label.length > MAX_LABEL) return keysPage(request, reply, { code: 'VALIDATION', status: 400, message: t('portal.keys.labelRule', { max: MAX_LABEL }) }, label);
    const created = user.siteIds === null
      ? await createKey(db, { kind: 'admin', siteIds: [], label, userId: user.id })
      : await createKey(db, { kind: 'standard', siteIds: user.siteIds, label, userId: user.id });
    // Shown on this answer only: never stored, never put in a redirect or the session.
    return reply.page('portal/key-created', { title: t('portal.keys.created.title'), label, key: created.key, prefix: created.prefix });
  });

  app.post<{ Params: { keyId: number } }>(`${PORTAL}/keys/:keyId/revoke`, {
    bodyLimit: FORM_BYTES,
    schema: { params: { type: 'object', properties: { keyId: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } }, required: ['keyId'] } },
  }, async (request, reply) => {
    const user = requireUser(request);
    const t = translator(chooseLang(request));
    // Only the user's own, active keys: anything else is the same 404.
    if (!(await revokeKey(db, request.params.keyId, { userId: user.id }))) throw new WebperfError('NOT_FOUND', 'No such active key in your account');
    return redirectWith(request, reply, `${PORTAL}/keys`, { kind: 'ok', text: t('portal.keys.revoked') });
  });
};

export default keys;
