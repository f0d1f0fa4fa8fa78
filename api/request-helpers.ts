/**
 * Small request parsers shared by the premium routes.
 */
import type { FastifyRequest } from 'fastify';
import { WebperfError } from '../core/errors.js';
import { isLang, reportLang, type ReportLang } from '../core/i18n/langs.js';

/** The site-id header: required, a positive integer (400 otherwise). */
export function siteIdHeader(request: FastifyRequest): number {
  const raw = request.headers['site-id'];
  if (raw === undefined || raw === '') throw new WebperfError('SITE_ID_MISSING');
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!/^[1-9][0-9]{0,9}$/.test(value.trim()) || Number(value) > 2_147_483_647) {
    throw new WebperfError('SITE_ID_INVALID', `The site-id header must be a positive integer, got "${value}"`);
  }
  return Number(value);
}

/**
 * Language of readable reports: `lang` query parameter (sv, en, da, no, fi, is), else the first
 * Accept-Language that is one of them, else Swedish. Reports exist in sv and en; da, no, fi and
 * is get English.
 */
export function requestReportLang(request: FastifyRequest): ReportLang {
  const q = (request.query as Record<string, unknown> | undefined)?.lang;
  if (typeof q === 'string') {
    if (!isLang(q)) throw new WebperfError('UNSUPPORTED_LANG', `Unsupported lang "${q}": use one of sv, en, da, no, fi, is`);
    return reportLang(q);
  }
  const accept = request.headers['accept-language'];
  if (typeof accept === 'string') {
    for (const part of accept.split(',')) {
      const tag = part.split(';')[0].trim().slice(0, 2).toLowerCase();
      const lang = tag === 'nb' || tag === 'nn' ? 'no' : tag;
      if (isLang(lang)) return reportLang(lang);
    }
  }
  return 'sv';
}
