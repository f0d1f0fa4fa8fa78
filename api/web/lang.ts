/**
 * The page language: an explicit choice kept in a cookie, else the best of Accept-Language,
 * else Swedish. The choice is made by following the language switch (GET /lang/:lang?next=…),
 * a plain link, so that it works without JavaScript.
 */
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { PAGE_LANGS, isPageLang, type PageLang } from './i18n/index.js';

export const LANG_COOKIE = 'lang';
const YEAR_S = 365 * 24 * 3600;

/** The language of a page for this request. */
export function chooseLang(request: FastifyRequest): PageLang {
  const chosen = request.cookies?.[LANG_COOKIE];
  if (isPageLang(chosen)) return chosen;
  const header = request.headers['accept-language'];
  if (typeof header !== 'string' || header === '') return PAGE_LANGS[0];
  // The negotiator matches whole tags; a region (sv-SE, en-GB) counts as its language.
  const found = negotiate(header.replace(/-[A-Za-z0-9-]+/g, ''), [...PAGE_LANGS]);
  return isPageLang(found) ? found : PAGE_LANGS[0];
}

/** A local path to go back to after the switch; anything else (another origin) becomes "/". */
export function localPath(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\r\n]/.test(next)) return '/';
  return next;
}

/** The address of the language switch to `lang`, back to `path`. */
export function switchHref(lang: PageLang, path: string): string {
  return `/lang/${lang}?next=${encodeURIComponent(path)}`;
}

export const langRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { lang: PageLang }; Querystring: { next?: string } }>('/lang/:lang', {
    schema: {
      params: { type: 'object', properties: { lang: { type: 'string', enum: [...PAGE_LANGS] } }, required: ['lang'] },
      querystring: { type: 'object', properties: { next: { type: 'string', maxLength: 2000 } } },
    },
  }, async (request, reply) => {
    void reply.setCookie(LANG_COOKIE, request.params.lang, {
      path: '/',
      maxAge: YEAR_S,
      sameSite: 'lax',
      httpOnly: true,
      secure: request.protocol === 'https',
    });
    return reply.redirect(localPath(request.query.next), 303);
  });
};
