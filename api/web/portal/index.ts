/**
 * The premium portal: pages for signed-in customers under /portal/. Registered inside the pages'
 * scope (api/web/index.ts), so it has their security headers, layout and HTML error pages.
 *
 * - Sessions: @fastify/session over PostgreSQL (session-store.ts), cookie HttpOnly, SameSite=Lax,
 *   Secure when the request came over https (`secure: 'auto'` follows request.protocol, which
 *   honours X-Forwarded-Proto only from a proxy the operator trusts: WEBPERF_TRUST_PROXY).
 * - CSRF: @fastify/csrf-protection (secret in the session) checked on every POST of the portal;
 *   every form carries `_csrf`. A POST without a valid token: 403 CSRF_INVALID.
 * - Every action calls the same core functions as the API route beside it (orders, credits,
 *   keys, webhooks, audits, results): the portal holds no rule of its own about them.
 */
import session from '@fastify/session';
import csrf from '@fastify/csrf-protection';
import rateLimit from '@fastify/rate-limit';
import { Signer } from '@fastify/cookie';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { WebperfError } from '../../../core/errors.js';
import { getSetting, setSetting } from '../../../core/store/sites.js';
import { getPortalUser, purgeExpiredSessions, type PortalUser } from '../../../core/store/users.js';
import { sharedRateLimitStore } from '../../plugins/rate-limit.js';
import { translator } from '../i18n/index.js';
import { chooseLang } from '../lang.js';
import { PgSessionStore, type PortalSessionData } from './session-store.js';
import { PORTAL, SESSION_COOKIE, SESSION_MAX_AGE_MS } from './common.js';
import authRoutes from './auth.js';
import siteRoutes from './sites.js';
import keyRoutes from './keys.js';
import webhookRoutes from './webhook.js';
import agencyRoutes from './agency.js';

declare module 'fastify' {
  interface Session extends PortalSessionData {}
  interface FastifyRequest {
    /** The signed-in portal user of this request; null when nobody is signed in. */
    portalUser: PortalUser | null;
  }
  interface FastifyReply {
    /** Template data every portal page shares (user, CSRF token, portal navigation). */
    locals?: Record<string, unknown>;
  }
}

/**
 * The cookie signer, over a secret shared through the database by every API process and made
 * once. It is read on the first portal request, not at start-up: the API starts (and /health
 * answers 503) while the database is down, and the portal answers 503 DB_UNAVAILABLE until the
 * secret can be read.
 */
class SharedSecretSigner {
  private signer: Signer | null = null;
  private loading: Promise<void> | null = null;
  constructor(private readonly db: Parameters<FastifyPluginAsync>[0]['deps']['db']) {}

  /** Loads the secret once; a failed load is retried by the next request. */
  ready(): Promise<void> {
    if (this.signer) return Promise.resolve();
    this.loading ??= this.load().finally(() => { this.loading = null; });
    return this.loading;
  }

  private async load(): Promise<void> {
    let secret = await getSetting<string>(this.db, 'portal_session_secret');
    if (!secret) {
      await setSetting(this.db, 'portal_session_secret', randomBytes(32).toString('base64url'));
      // Read back: when two processes start at once, the last write is the one both use.
      secret = (await getSetting<string>(this.db, 'portal_session_secret'))!;
    }
    this.signer = new Signer(secret);
  }

  private get current(): Signer {
    if (!this.signer) throw new WebperfError('DB_UNAVAILABLE');
    return this.signer;
  }

  sign = (value: string) => this.current.sign(value);
  unsign = (input: string) => this.current.unsign(input);
}

/** The JSON that static/order-status.js polls. */
const SCRIPT_DATA_PATH = /^\/portal\/sites\/\d+\/orders\/status\.json$/;

/** Portal pages that need no signed-in user. */
const OPEN_PATHS = new Set([PORTAL, `${PORTAL}/sign-in`, `${PORTAL}/set-password`]);

const portal: FastifyPluginAsync = async (app) => {
  const { db } = app.deps;
  const signer = new SharedSecretSigner(db);
  // Before the session plugin's own onRequest hook, which unsigns the cookie.
  app.addHook('onRequest', () => signer.ready());
  await app.register(session, {
    secret: signer,
    cookieName: SESSION_COOKIE,
    store: new PgSessionStore(db, SESSION_MAX_AGE_MS),
    // A row only for visitors who got a form (a CSRF secret) or signed in.
    saveUninitialized: false,
    rolling: true,
    cookie: { path: '/', httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: SESSION_MAX_AGE_MS },
  });
  await app.register(csrf, { sessionPlugin: '@fastify/session' });
  // Sign-in attempts per client address, counted where the premium limit counts (shared by the
  // API processes), under names of their own.
  await app.register(rateLimit, { global: false, store: sharedRateLimitStore(app), keyGenerator: (request) => `sign-in:${request.ip}` });

  app.decorateRequest('portalUser', null);
  app.addHook('preHandler', async (request, reply) => {
    const userId = request.session.userId;
    const user = typeof userId === 'number' ? await getPortalUser(db, userId) : null;
    // A deleted account's session is no session.
    if (!user && userId !== undefined) delete request.session.userId;
    request.portalUser = user;
    const flash = request.session.flash;
    if (flash) delete request.session.flash;
    const path = request.url.split('?')[0];
    // What the pages' scripts read: signed out, they get 401 SIGN_IN_REQUIRED from the route, not a page.
    const data = SCRIPT_DATA_PATH.test(path);
    // Pages of a signed-in user send a browser that is not signed in to the sign-in form.
    if (!user && request.method === 'GET' && !data && !OPEN_PATHS.has(path)) return reply.redirect(`${PORTAL}/sign-in`, 303);
    const t = translator(chooseLang(request));
    reply.locals = {
      user: user ? { email: user.email } : null,
      // Only pages with forms need a token; generating it stores the CSRF secret in the session.
      csrfToken: user && !data ? reply.generateCsrf() : null,
      flash: flash ?? null,
      nav: user
        ? [
            { href: `${PORTAL}/`, label: t('portal.nav.sites'), current: path === `${PORTAL}/` || path.startsWith(`${PORTAL}/sites/`) },
            { href: `${PORTAL}/keys`, label: t('portal.nav.keys'), current: path === `${PORTAL}/keys` },
            { href: `${PORTAL}/account`, label: t('portal.nav.account'), current: path === `${PORTAL}/account` },
          ]
        : [],
    };
  });
  // Every POST of the portal carries the form's CSRF token (body field _csrf).
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    // csrfProtection answers a bad token with its own error through reply.send; this reply stand-in
    // turns that into the catalogue's CSRF_INVALID instead (the plugin reads the secret from the session).
    const refuse = { send: () => done(new WebperfError('CSRF_INVALID')) } as unknown as FastifyReply;
    app.csrfProtection(request, refuse, done);
  });
  // Portal pages are personal: never stored by a shared cache or the browser's back-forward cache.
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('cache-control', 'private, no-store');
    return payload;
  });

  await app.register(authRoutes);
  await app.register(siteRoutes);
  await app.register(keyRoutes);
  await app.register(webhookRoutes);
  await app.register(agencyRoutes);

  // Expired sessions are dropped now and then, not on every request.
  const sweep = setInterval(() => void purgeExpiredSessions(db).catch(() => {}), 3600_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
};

export default portal;
