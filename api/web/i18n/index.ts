/**
 * The pages' strings: layout, dashboard and portal merged per language, and the translate
 * function templates get as `t`. A missing key throws (the page answers 500 and a test fails)
 * rather than showing a blank or the key.
 */
import { dashboard } from './dashboard.js';
import { layout } from './layout.js';
import { portal } from './portal.js';

/** The languages pages are offered in; the first is the default. */
export const PAGE_LANGS = ['sv', 'en'] as const;
export type PageLang = (typeof PAGE_LANGS)[number];

export function isPageLang(value: unknown): value is PageLang {
  return typeof value === 'string' && (PAGE_LANGS as readonly string[]).includes(value);
}

/** Every string of every page, per language. */
export const MESSAGES: Record<PageLang, Readonly<Record<string, string>>> = {
  sv: { ...layout.sv, ...dashboard.sv, ...portal.sv },
  en: { ...layout.en, ...dashboard.en, ...portal.en },
};

/** `t(key, params)`: the string in the page's language with `{name}` replaced by params.name. */
export type Translate = (key: string, params?: Record<string, string | number>) => string;

export class MissingMessageError extends Error {
  constructor(lang: PageLang, key: string) {
    super(`No ${lang} text for "${key}" (api/web/i18n)`);
    this.name = 'MissingMessageError';
  }
}

export function translator(lang: PageLang): Translate {
  const messages = MESSAGES[lang];
  return (key, params) => {
    const text = messages[key];
    if (text === undefined) throw new MissingMessageError(lang, key);
    if (!text.includes('{')) return text;
    return text.replace(/\{(\w+)\}/g, (_whole, name: string) => {
      if (!params || !(name in params)) throw new MissingMessageError(lang, `${key} {${name}}`);
      return String(params[name]);
    });
  };
}
