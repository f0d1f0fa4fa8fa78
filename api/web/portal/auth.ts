/**
 * Signing in and out, the one-time password link, and changing the password.
 * Sign-in is rate-limited per client address (@fastify/rate-limit, counted as the premium limit
 * is: one count for every API process, api/plugins/rate-limit.ts) and locks the account after
 * MAX_FAILED_SIGN_INS wrong passwords in a row (core/store/users.ts). A successful sign-in gets a
 * new session id (no session fixation).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCodes, type ErrorCode } from '../../../core/errors.js';
import {
  LOCK_MINUTES,
  MAX_FAILED_SIGN_INS,
  MIN_PASSWORD_LENGTH,
  changePassword,
  passwordProblem,
  passwordTokenValid,
  sessionIdHash,
  setPasswordWithToken,
  signIn,
} from '../../../core/store/users.js';
import { RATE_LIMIT_WINDOW_MS } from '../../plugins/rate-limit.js';
import { translator } from '../i18n/index.js';
import { chooseLang } from '../lang.js';
import { FORM_BYTES, PORTAL, SIGN_IN_PER_MINUTE, redirectWith, requireUser } from './common.js';

const str = { type: 'string', maxLength: 1024 } as const;
const formSchema = (...fields: string[]) => ({
  body: { type: 'object', properties: Object.fromEntries([...fields, '_csrf'].map((f) => [f, str])), required: fields },
});

/** A form error as the page shows it: the catalogue code (for tests and support) and a text in the page's language. */
function formError(request: FastifyRequest, code: ErrorCode, params?: Record<string, string | number>) {
  const t = translator(chooseLang(request));
  return { code, status: ErrorCodes[code].status, message: t(`portal.error.${code}`, params) };
}

const auth: FastifyPluginAsync = async (app) => {
  const { db } = app.deps;

  const signInPage = (request: FastifyRequest, reply: FastifyReply, data: { email?: string; error?: ReturnType<typeof formError> | null }) => {
    const t = translator(chooseLang(request));
    if (data.error) void reply.status(data.error.status);
    return reply.page('portal/sign-in', {
      title: t('portal.signIn.title'),
      formToken: reply.generateCsrf(),
      email: data.email ?? '',
      error: data.error ?? null,
      maxFailed: MAX_FAILED_SIGN_INS,
    });
  };

  app.get(PORTAL, async (_request, reply) => reply.redirect(`${PORTAL}/`, 302));

  app.get(`${PORTAL}/sign-in`, async (request, reply) => {
    if (request.portalUser) return reply.redirect(`${PORTAL}/`, 303);
    return signInPage(request, reply, {});
  });

  app.post<{ Body: { email: string; password: string } }>(`${PORTAL}/sign-in`, {
    bodyLimit: FORM_BYTES,
    // The shared counters' window (a minute): they count in no other.
    config: { rateLimit: { max: SIGN_IN_PER_MINUTE, timeWindow: RATE_LIMIT_WINDOW_MS } },
    schema: formSchema('email', 'password'),
  }, async (request, reply) => {
    const { email, password } = request.body;
    const outcome = await signIn(db, email, password);
    if (outcome.ok) {
      await request.session.regenerate();
      request.session.userId = outcome.userId;
      return reply.redirect(`${PORTAL}/`, 303);
    }
    if (outcome.reason === 'locked') {
      void reply.header('retry-after', String(Math.max(1, Math.ceil((outcome.until.getTime() - Date.now()) / 1000))));
      return signInPage(request, reply, { email, error: formError(request, 'ACCOUNT_LOCKED', { minutes: LOCK_MINUTES }) });
    }
    return signInPage(request, reply, { email, error: formError(request, 'SIGN_IN_FAILED') });
  });

  app.post(`${PORTAL}/sign-out`, { bodyLimit: FORM_BYTES }, async (request, reply) => {
    await request.session.destroy();
    return reply.redirect(`${PORTAL}/sign-in`, 303);
  });

  const passwordPage = (request: FastifyRequest, reply: FastifyReply, token: string, error: ReturnType<typeof formError> | null) => {
    const t = translator(chooseLang(request));
    if (error) void reply.status(error.status);
    return reply.page('portal/set-password', { title: t('portal.setPassword.title'), formToken: reply.generateCsrf(), token, error, minLength: MIN_PASSWORD_LENGTH });
  };

  app.get<{ Querystring: { token?: string } }>(`${PORTAL}/set-password`, {
    schema: { querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } } } },
  }, async (request, reply) => {
    const token = request.query.token ?? '';
    if (!token || !(await passwordTokenValid(db, token))) return passwordPage(request, reply, '', formError(request, 'PASSWORD_TOKEN_INVALID'));
    return passwordPage(request, reply, token, null);
  });

  app.post<{ Body: { token: string; password: string; confirm: string } }>(`${PORTAL}/set-password`, {
    bodyLimit: FORM_BYTES,
    schema: formSchema('token', 'password', 'confirm'),
  }, async (request, reply) => {
    const { token, password, confirm } = request.body;
    const problem = passwordProblem(password);
    if (problem) return passwordPage(request, reply, token, formError(request, 'PASSWORD_INVALID', { min: MIN_PASSWORD_LENGTH }));
    if (password !== confirm) return passwordPage(request, reply, token, formError(request, 'PASSWORD_INVALID', { min: MIN_PASSWORD_LENGTH }));
    const userId = await setPasswordWithToken(db, token, password);
    if (userId === null) return passwordPage(request, reply, '', formError(request, 'PASSWORD_TOKEN_INVALID'));
    await request.session.regenerate();
    request.session.userId = userId;
    const t = translator(chooseLang(request));
    return redirectWith(request, reply, `${PORTAL}/`, { kind: 'ok', text: t('portal.setPassword.done') });
  });

  const accountPage = (request: FastifyRequest, reply: FastifyReply, error: ReturnType<typeof formError> | null) => {
    const user = requireUser(request);
    const t = translator(chooseLang(request));
    if (error) void reply.status(error.status);
    return reply.page('portal/account', { title: t('portal.account.title'), account: user, error, minLength: MIN_PASSWORD_LENGTH });
  };

  app.get(`${PORTAL}/account`, async (request, reply) => accountPage(request, reply, null));

  app.post<{ Body: { current: string; password: string; confirm: string } }>(`${PORTAL}/account/password`, {
    bodyLimit: FORM_BYTES,
    schema: formSchema('current', 'password', 'confirm'),
  }, async (request, reply) => {
    const user = requireUser(request);
    const { current, password, confirm } = request.body;
    if (passwordProblem(password) || password !== confirm) return accountPage(request, reply, formError(request, 'PASSWORD_INVALID', { min: MIN_PASSWORD_LENGTH }));
    // Every other session of the account ends; this one stays signed in.
    const changed = await changePassword(db, user.id, current, password, sessionIdHash(request.session.sessionId));
    if (!changed) return accountPage(request, reply, formError(request, 'PASSWORD_WRONG'));
    const t = translator(chooseLang(request));
    return redirectWith(request, reply, `${PORTAL}/account`, { kind: 'ok', text: t('portal.account.changed') });
  });
};

export default auth;
