/**
 * Small request helpers shared by the routes: strict integers, the public base URL and the
 * language of readable reports.
 */
import type { FastifyRequest } from 'fastify';
import { isLang, reportLang, type ReportLang } from '../core/i18n/langs.js';

/** The largest PostgreSQL `integer` (int4): ids of sites, keys and categories. */
export const INT4_MAX = 2_147_483_647;

/**
 * A decimal integer written strictly: ASCII digits only, no sign, no leading zero, no spaces,
 * exponent or fraction, within [min, max]; else null. Ajv's coercion would take `1e309`
 * (Infinity), `+1`, ` 1`, `0x10` or `1.0`, and PostgreSQL then fails on them with a 500.
 */
export function parseStrictInt(raw: unknown, min = 1, max = INT4_MAX): number | null {
  if (typeof raw !== 'string' || !/^(0|[1-9][0-9]{0,15})$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}

/** The base of absolute addresses in answers: the configured public URL, else the request's own. */
export function baseUrl(request: FastifyRequest): string {
  return request.server.deps.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * Language of readable reports: `lang` query parameter (sv, en, da, no, fi, is; the route's
 * schema refuses anything else), else the first Accept-Language that is one of them, else Swedish.
 * Reports exist in sv and en; da, no, fi and is get English.
 */
export function requestReportLang(request: FastifyRequest): ReportLang {
  const q = (request.query as Record<string, unknown> | undefined)?.lang;
  if (typeof q === 'string' && isLang(q)) return reportLang(q);
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
