/**
 * The web: server-rendered pages for people (the public dashboard, and the premium portal on top
 * of the same foundation), all in one encapsulated scope with what only pages need: cookies, the
 * template engine (`reply.page`, `reply.cachedPage`), security headers, compression, static files
 * and an error handler that answers HTML to browsers. The JSON API's routes run none of these
 * hooks. Interface for other page groups: api/web/README.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { errorAnswer } from '../plugins/errors.js';
import dashboard from './dashboard/index.js';
import portal from './portal/index.js';
import { MESSAGES, translator } from './i18n/index.js';
import { chooseLang, langRoutes } from './lang.js';
import { pageRenderer, type PageOptions } from './page.js';
import { pageCacheReply } from './page-cache.js';
import { BROTLI_OPTIONS, PAGE_ENCODINGS } from './compression.js';
import { HELMET_OPTIONS } from './security.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const VIEWS_DIR = path.join(HERE, 'views');
export const STATIC_DIR = path.join(HERE, 'static');
/** Where the layout's sign-in link and sign-out form point (the portal serves them). */
export const SIGN_IN_PATH = '/portal/sign-in';
export const SIGN_OUT_PATH = '/portal/sign-out';

/** A browser navigating (Accept: text/html) gets an HTML error page; other clients the JSON body. */
function wantsHtml(accept: string | undefined): boolean {
  return typeof accept === 'string' && accept.includes('text/html');
}

/** The scope of every page: security headers, /static/, HTML errors, language switch, page groups. */
const pages: FastifyPluginAsync<PageOptions> = async (scope, options) => {
  // Cookies (the language choice, the portal's session) and templates serve pages only: the JSON
  // API's routes run none of their hooks.
  await scope.register(cookie);
  await scope.register(view, {
    engine: { eta: new Eta({ autoEscape: true, autoTrim: false }) },
    root: VIEWS_DIR,
    layout: 'layout.eta',
    // Templates are compiled once and kept (a page costs its data, not a re-read of its file).
    production: true,
  });
  const { renderPage, page } = pageRenderer(options);
  scope.decorateReply('renderPage', renderPage);
  scope.decorateReply('page', page);
  scope.decorateReply('cachedPage', pageCacheReply(scope.resultsCache.pages));
  await scope.register(helmet, HELMET_OPTIONS);
  // Pages and their stylesheet compress well (a 50-row page of the list from ~17 kB to ~5 kB); brotli at
  // a low quality, as for dynamic content, so that compressing costs less than it saves.
  await scope.register(compress, {
    globalDecompression: false,
    encodings: [...PAGE_ENCODINGS],
    brotliOptions: BROTLI_OPTIONS,
  });
  await scope.register(fastifyStatic, { root: STATIC_DIR, prefix: '/static/', decorateReply: false, maxAge: '1d', index: false });
  scope.setErrorHandler(async (caught: FastifyError, request, reply) => {
    const { status, body, retryAfter } = errorAnswer(caught, request);
    if (retryAfter) void reply.header('retry-after', retryAfter);
    void reply.status(status);
    if (!wantsHtml(request.headers.accept)) return reply.send(body);
    const lang = chooseLang(request);
    const t = translator(lang);
    // A person reads the catalogue error in their language when we have it, else its message.
    const explanation = MESSAGES[lang][`error.${body.error}`] ?? body.message;
    return reply.page('error', { title: t('error.title', { status }), error: body, explanation });
  });
  await scope.register(langRoutes);
  await scope.register(dashboard);
  // Further page groups (the premium portal) register here, inside this scope.
  await scope.register(portal);
};

export default fp(async (app: FastifyInstance) => {
  // One version over every static file (stylesheets and the portal's script), so that a change to any is fetched at once.
  const hash = createHash('sha256');
  for (const name of readdirSync(STATIC_DIR).sort()) hash.update(name).update(readFileSync(path.join(STATIC_DIR, name)));
  const assetVersion = hash.digest('hex').slice(0, 10);
  // Looked up once, after every route exists: the sign-in link shows only when a portal serves it.
  let signIn: string | null | undefined;
  const signInPath = () => (signIn ??= app.hasRoute({ method: 'GET', url: SIGN_IN_PATH }) ? SIGN_IN_PATH : null);
  await app.register(pages, { assetVersion, signInPath, signOutPath: SIGN_OUT_PATH });
}, { name: 'webperf-web' });
