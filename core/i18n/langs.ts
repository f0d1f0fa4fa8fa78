/** The six languages names and descriptions exist in. */
export const LANGS = ['sv', 'en', 'da', 'no', 'fi', 'is'] as const;
export type Lang = (typeof LANGS)[number];
/** Languages readable reports are written in; the others fall back to English. */
export const REPORT_LANGS = ['sv', 'en'] as const;
export type ReportLang = (typeof REPORT_LANGS)[number];
/** A text in every language. */
export type Localized = Record<Lang, string>;
/** A text in the report languages. */
export type ReportText = Record<ReportLang, string>;

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

export function reportLang(lang: Lang | undefined): ReportLang {
  return lang === 'sv' ? 'sv' : lang === undefined ? 'sv' : 'en';
}
