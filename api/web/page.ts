/**
 * `reply.page(view, data)`: renders a template of api/web/views inside the shared layout with
 * what every page needs: the language, the translate function `t`, the current path (for the
 * language switch), formatting helpers, and the optional `user` / `csrfToken` of a signed-in
 * person (from `data` or from `reply.locals`, which a portal hook may fill).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { translator, PAGE_LANGS, type PageLang, type Translate } from './i18n/index.js';
import { chooseLang, switchHref } from './lang.js';
import { formatters, type Formatters } from './format.js';

/** A signed-in person, as the layout shows them. */
export interface PageUser {
  email: string;
}

/** What a page passes to `reply.page`; anything else is handed to the template as is. */
export interface PageData {
  /** The page's own title (the layout adds the service name). */
  title: string;
  user?: PageUser | null;
  /** When present with `user`, the layout's sign-out form carries it. */
  csrfToken?: string | null;
  [key: string]: unknown;
}

/** What every template receives as `it`, besides the page's own data. */
export interface PageContext extends Formatters {
  lang: PageLang;
  t: Translate;
  /** Path and query of this request (for the language switch). */
  path: string;
  /** The other languages with the address that switches to each. */
  langSwitch: { lang: PageLang; href: string; name: string }[];
  /** Where the header links to sign in; null when no portal is served. */
  signInPath: string | null;
  signOutPath: string;
  /** Cache-busting version of the stylesheet. */
  assetVersion: string;
}

/** A page rendered in the layout, not yet sent. */
export interface RenderedPage {
  html: string;
  lang: PageLang;
}

declare module 'fastify' {
  interface FastifyReply {
    /** Renders `view` (path under api/web/views, without .eta) in the layout and sends it as HTML. */
    page(view: string, data: PageData): Promise<FastifyReply>;
    /**
     * Renders `view` in the layout as `page` does, without sending it (for the page cache, which
     * passes the canonical `path` it keeps the page under in place of the address as sent).
     */
    renderPage(view: string, data: PageData, path?: string): Promise<RenderedPage>;
  }
}

const LANG_NAMES: Record<PageLang, string> = { sv: 'Svenska', en: 'English' };

export interface PageOptions {
  assetVersion: string;
  signInPath: () => string | null;
  signOutPath: string;
}

/** The context of one request's page (exported for tests and the error page). */
export function pageContext(request: FastifyRequest, options: PageOptions, path = request.url): PageContext {
  const lang = chooseLang(request);
  return {
    lang,
    t: translator(lang),
    path,
    langSwitch: PAGE_LANGS.filter((l) => l !== lang).map((l) => ({ lang: l, href: switchHref(l, path), name: LANG_NAMES[l] })),
    signInPath: options.signInPath(),
    signOutPath: options.signOutPath,
    assetVersion: options.assetVersion,
    ...formatters(lang),
  };
}

/** `reply.renderPage` and `reply.page`. */
export function pageRenderer(options: PageOptions) {
  async function renderPage(this: FastifyReply, view: string, data: PageData, path?: string): Promise<RenderedPage> {
    const context = pageContext(this.request, options, path);
    const locals = (this as FastifyReply & { locals?: Record<string, unknown> }).locals ?? {};
    const html = await this.viewAsync(`${view}.eta`, { user: null, csrfToken: null, ...locals, ...data, ...context });
    return { html, lang: context.lang };
  }
  async function page(this: FastifyReply, view: string, data: PageData): Promise<FastifyReply> {
    const { html, lang } = await renderPage.call(this, view, data);
    return this
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-language', lang)
      .header('vary', 'accept-language, cookie')
      .send(html);
  }
  return { renderPage, page };
}
