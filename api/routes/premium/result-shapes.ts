/**
 * What the premium result routes share: the test result's schema and mapping, the access and
 * language notes of their descriptions, and the latest of a list of dates.
 */
import { WebperfError } from '../../../core/errors.js';
import type { ResultRow } from '../../../core/store/results-read.js';

export const ACCESS = [
  'Access: a standard key reaches the sites linked to it, an agency key its portfolio (the sites linked to it), an admin key every site.',
  'No key or an unknown/revoked key: 401. A key that does not reach the site: 403, whether or not the site exists (ids cannot be probed).',
  'An admin key naming a site that does not exist: 404 SITE_NOT_FOUND. A path id that is not a positive integer: 400.',
].join(' ');

export const LANG_DESCRIPTION = 'Language of the readable reports (check_report*): `lang` query parameter (sv, en, da, no, fi, is; anything else 400 UNSUPPORTED_LANG), else the first supported Accept-Language, else sv. Reports are written in sv and en; da, no, fi and is get en.';

export const TEST_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    type_of_test: { type: 'integer', description: 'The test type (see /v1/tests)' },
    rating: { type: 'number', description: '1.0 (worst) to 5.0 (best), up to 5 decimal places; -1 = not rated' },
    test_date: { type: 'string', format: 'date-time', description: 'When the test ran (ISO 8601, UTC)' },
    check_report: { type: 'string' },
    check_report_a11y: { type: 'string', description: 'May be empty' },
    check_report_perf: { type: 'string', description: 'May be empty' },
    check_report_sec: { type: 'string', description: 'May be empty' },
    check_report_stand: { type: 'string', description: 'May be empty' },
    json_check_data: { type: 'string', description: 'The result as JSON text (a string, parse it); "{}" when the test stores nothing' },
  },
  required: ['type_of_test', 'rating', 'test_date', 'check_report', 'check_report_a11y', 'check_report_perf', 'check_report_sec', 'check_report_stand', 'json_check_data'],
} as const;

export function toTestResult(r: ResultRow) {
  return {
    type_of_test: r.typeOfTest,
    rating: r.rating,
    test_date: r.testDate,
    check_report: r.report.overall,
    check_report_a11y: r.report.a11y,
    check_report_perf: r.report.perf,
    check_report_sec: r.report.sec,
    check_report_stand: r.report.stand,
    json_check_data: r.jsonCheckData,
  };
}

/** The latest date, else the fallback. */
export const latest = (dates: Date[], fallback: Date) => dates.reduce((a, b) => (b > a ? b : a), dates.length ? dates[0] : fallback);
/** The latest of ISO 8601 UTC texts of one format (they sort as text), else the fallback. */
export const latestIso = (dates: string[], fallback: Date) => (dates.length ? dates.reduce((a, b) => (b > a ? b : a)) : fallback.toISOString());

/** 404 for a site that does not exist (only an admin key gets this far with one). */
export function found<T>(value: T | null, siteId: number): T {
  if (value === null) throw new WebperfError('SITE_NOT_FOUND', `The website ${siteId} does not exist`);
  return value;
}
