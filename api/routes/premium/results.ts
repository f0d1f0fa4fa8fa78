/**
 * Premium read routes: stats, monthly scores, private results, categories, quota. Every query is
 * in core/store/results-read.ts; decisions taken where the spec says "not shown" are stated in
 * each route's description (they reach the OpenAPI document).
 */
import type { FastifyPluginAsync } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { round } from '../../../core/rating.js';
import type { ReportLang } from '../../../core/i18n/langs.js';
import {
  listPrivateTests,
  listReachableSites,
  readCategoryScores,
  readLatestResults,
  readMonthlyScores,
  readPrivateTest,
  readQuota,
  type ResultRow,
} from '../../../core/store/results-read.js';
import { siteUri, sqlDateTime } from '../../envelope.js';
import { RATE_LIMIT_HEADERS } from '../../plugins/rate-limit.js';
import { baseUrl, requestReportLang } from '../../request-helpers.js';
import type { PremiumOptions } from './options.js';
import {
  LANG_QUERY,
  NOT_MODIFIED,
  SITE_ID_HEADER,
  SITE_ID_HEADER_OPTIONAL,
  SITE_ID_PARAM,
  TEST_ID_PARAM,
  envelope,
  errorResponses,
  premiumDoc,
} from './schemas.js';

/** Most addresses the `urls` filter of the private test list takes. */
export const MAX_URLS = 10;

const ACCESS = [
  'Access: a standard key reaches the sites linked to it, an agency key its portfolio (the sites linked to it), an admin key every site.',
  'No key or an unknown/revoked key: 401. A key that does not reach the site: 403, whether or not the site exists (ids cannot be probed).',
  'An admin key naming a site that does not exist: 404 SITE_NOT_FOUND. A path id that is not a positive integer: 400.',
].join(' ');

const LANG_DESCRIPTION = 'Language of the readable reports (check_report*): `lang` query parameter (sv, en, da, no, fi, is; anything else 400 UNSUPPORTED_LANG), else the first supported Accept-Language, else sv. Reports are written in sv and en; da, no, fi and is get en.';

const ETAG_NOTE = 'Answers carry a strong `ETag` (and `Cache-Control: private, no-cache`); a request whose `If-None-Match` names the current ETag gets 304 Not Modified without a body, after the same key and access checks.';

const TEST_RESULT_SCHEMA = {
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

function toTestResult(r: ResultRow) {
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

const latest = (dates: Date[], fallback: Date) => dates.reduce((a, b) => (b > a ? b : a), dates.length ? dates[0] : fallback);
/** The latest of ISO 8601 UTC texts of one format (they sort as text), else the fallback. */
const latestIso = (dates: string[], fallback: Date) => (dates.length ? dates.reduce((a, b) => (b > a ? b : a)) : fallback.toISOString());

const nullableRound = (v: number | null, places: number) => (v === null ? null : round(v, places));

/** Parses `urls` (comma-separated absolute http(s) addresses, at most 10); null = no filter. */
export function parseUrlsFilter(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const urls = [...new Set(raw.split(',').map((u) => u.trim()).filter(Boolean))];
  if (urls.length > MAX_URLS) throw new WebperfError('URLS_INVALID', `urls takes at most ${MAX_URLS} addresses, got ${urls.length}`);
  for (const u of urls) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(u).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new WebperfError('URLS_INVALID', `urls: "${u}" is not an absolute http(s) address`);
  }
  return urls;
}

const results: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const version = opts.version;
  const schema = premiumDoc(opts, app.deps.config.rateLimitPerMinute);
  /** 404 for a site that does not exist (only an admin key gets this far with one). */
  const found = <T>(value: T | null, siteId: number): T => {
    if (value === null) throw new WebperfError('SITE_NOT_FOUND', `The website ${siteId} does not exist`);
    return value;
  };

  app.get('/stats/', {
    schema: schema({
      summary: 'The websites the key reaches',
      description: [
        'One object per website the key reaches, sorted by site_id: use it to discover site ids and to check that the key works.',
        'Decided where the spec says "not shown": the fields are site_id, title, url (start page), uri (the /item/{id} address) and latest_test_date (latest public test, ISO 8601; null before the first result).',
        'A standard key lists its linked sites, an agency key its portfolio, an admin key every site. No key or an invalid key: 401.',
      ].join('\n\n'),
      response: {
        200: {
          type: 'array',
          headers: RATE_LIMIT_HEADERS,
          items: {
            type: 'object',
            properties: {
              site_id: { type: 'integer' },
              title: { type: 'string' },
              url: { type: 'string' },
              uri: { type: 'string' },
              latest_test_date: { type: 'string', format: 'date-time', nullable: true },
            },
            required: ['site_id', 'title', 'url', 'uri', 'latest_test_date'],
          },
        },
        ...errorResponses(401, 429),
      },
    }),
  }, async (request) => {
    const key = await request.requireKey();
    const sites = await listReachableSites(app.deps.db, key.siteIds);
    const b = baseUrl(request);
    return sites.map((s) => ({
      site_id: s.id,
      title: s.title,
      url: s.url,
      uri: siteUri(b, s.id),
      latest_test_date: s.latestTestDate === null ? null : s.latestTestDate.toISOString(),
    }));
  });

  app.get<{ Params: { siteId: number }; Querystring: { lang?: string } }>('/stats/:siteId', {
    schema: schema({
      summary: 'Latest results of a website',
      description: [
        'The latest public result per test type, sorted by type_of_test. Private (one-off) results never appear here; see /private_stats/{siteId}.',
        'result_count is the number of entries in data (one per test type). timestamp is the latest test_date in data, or the time of the request when the site has no result yet (data is then empty).',
        'rating -1 means not rated. json_check_data is a string holding JSON, as specified.',
        LANG_DESCRIPTION,
        ACCESS,
        ETAG_NOTE,
      ].join('\n\n'),
      params: { type: 'object', properties: { siteId: SITE_ID_PARAM }, required: ['siteId'] },
      querystring: { type: 'object', properties: { lang: LANG_QUERY } },
      response: {
        200: envelope(TEST_RESULT_SCHEMA),
        304: NOT_MODIFIED,
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
  }, async (request, reply) => {
    const { siteId } = request.params;
    await request.requireSite(siteId);
    const lang = requestReportLang(request);
    const b = baseUrl(request);
    return reply.sendCached(`stats\0${version}\0${b}\0${siteId}\0${lang}`, [`site:${siteId}`], async () => {
      const rows = found(await readLatestResults(app.deps.db, siteId, lang), siteId);
      return {
        payload: {
          api_version: version,
          uri: siteUri(b, siteId),
          result_count: rows.length,
          timestamp: latestIso(rows.map((r) => r.testDate), new Date()),
          data: rows.map(toTestResult),
        },
        cacheable: rows.length > 0,
      };
    });
  });

  app.get<{ Params: { siteId: number } }>('/stats_per_month/:siteId', {
    schema: schema({
      summary: 'Monthly average scores of a website',
      description: [
        'Every monthly score of the website (all months kept), sorted by timeperiod, then type_of_score. result_count is the number of monthly scores (up to five per month), not the number of months.',
        'Decided: score is the mean of the month\'s ratings of that score type (public tests only, not-rated results left out), rounded to 2 decimal places (half away from zero). data_id identifies the stored calculation and stays the same while the month is updated.',
        'timestamp is when the latest of these scores was last updated, or the time of the request when there is none.',
        ACCESS,
        ETAG_NOTE,
      ].join('\n\n'),
      params: { type: 'object', properties: { siteId: SITE_ID_PARAM }, required: ['siteId'] },
      response: {
        200: envelope({
          type: 'object',
          properties: {
            data_id: { type: 'integer' },
            score: { type: 'number', description: '1.0–5.0, 2 decimal places' },
            timeperiod: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$', description: 'yyyy-mm (UTC)' },
            type_of_score: { type: 'string', enum: ['kat-total', 'kat-infosec', 'kat-a11y', 'kat-perf', 'kat-webstandard'] },
          },
          required: ['data_id', 'score', 'timeperiod', 'type_of_score'],
        }),
        304: NOT_MODIFIED,
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
  }, async (request, reply) => {
    const { siteId } = request.params;
    await request.requireSite(siteId);
    const b = baseUrl(request);
    return reply.sendCached(`stats_per_month\0${version}\0${b}\0${siteId}`, [`site:${siteId}`], async () => {
      const { rows, updatedAt } = found(await readMonthlyScores(app.deps.db, siteId), siteId);
      return {
        payload: {
          api_version: version,
          uri: siteUri(b, siteId),
          result_count: rows.length,
          timestamp: updatedAt ?? new Date().toISOString(),
          data: rows.map((r) => ({ data_id: r.dataId, score: r.score, timeperiod: r.timeperiod, type_of_score: r.typeOfScore })),
        },
        cacheable: updatedAt !== null,
      };
    });
  });

  app.get<{ Params: { siteId: number }; Querystring: { urls?: string } }>('/private_stats/:siteId', {
    schema: schema({
      summary: 'The private (one-off) tests of a website',
      description: [
        'One entry per private test (each one-off tested address), newest first, whatever its state (queued, running, done or failed); uri is the address of its details, /private_stats/{siteId}/{testId} (without version segment).',
        'result_count is the number of distinct URLs in data. timestamp is when the newest listed test was requested or finished, whichever is later; the time of the request when the list is empty. date_added is when the test was requested, `yyyy-mm-dd hh:mm:ss` in UTC.',
        `Decided where the spec says "not shown": the \`urls\` input is an optional query parameter, comma-separated, at most ${MAX_URLS} absolute http(s) addresses; it keeps only the tests of exactly those addresses (as ordered). More than ${MAX_URLS} or a malformed address: 400 URLS_INVALID. A request body is ignored.`,
        'The site-id header is optional; when sent it must equal the path id (400 SITE_ID_INVALID otherwise).',
        ACCESS,
      ].join('\n\n'),
      params: { type: 'object', properties: { siteId: SITE_ID_PARAM }, required: ['siteId'] },
      headers: { type: 'object', properties: { 'site-id': SITE_ID_HEADER_OPTIONAL } },
      querystring: {
        type: 'object',
        properties: { urls: { type: 'string', description: `Comma-separated addresses (at most ${MAX_URLS}): only their tests are listed` } },
      },
      response: {
        200: envelope({
          type: 'object',
          properties: {
            date_added: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$', description: 'yyyy-mm-dd hh:mm:ss, UTC' },
            uri: { type: 'string', description: 'Address of the test details' },
            url: { type: 'string', description: 'The address that was evaluated' },
          },
          required: ['date_added', 'uri', 'url'],
        }),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
  }, async (request) => {
    const { siteId } = request.params;
    await request.requireSiteMatchingHeader(siteId);
    const urls = parseUrlsFilter(request.query.urls);
    const rows = found(await listPrivateTests(app.deps.db, siteId, urls), siteId);
    const b = baseUrl(request);
    return {
      api_version: version,
      uri: siteUri(b, siteId),
      result_count: new Set(rows.map((r) => r.url)).size,
      timestamp: latest(rows.map((r) => r.finishedAt ?? r.createdAt), new Date()).toISOString(),
      data: rows.map((r) => ({ date_added: sqlDateTime(r.createdAt), uri: `${b}/private_stats/${siteId}/${r.id}`, url: r.url })),
    };
  });

  app.get<{ Params: { siteId: number; testId: number }; Querystring: { lang?: string } }>('/private_stats/:siteId/:testId', {
    schema: schema({
      summary: 'One private (one-off) test',
      description: [
        'The results of one private test, shaped like /stats/{siteId}: every result of that test, sorted by type_of_test.',
        'Decided: two fields are added: `status` (queued, running, done or failed) and `tested_url` (the address tested). While the test is queued or running the answer is 200 with status queued/running, result_count 0 and empty data; poll until status is done (or failed: data then holds whatever results were stored, possibly none).',
        'timestamp is the latest test_date in data, else when the test finished, else when it was requested.',
        '404 NOT_FOUND when the test id does not exist, is not a private test, or belongs to another website (another site\'s tests are never revealed).',
        'The site-id header is optional; when sent it must equal the path id (400 SITE_ID_INVALID otherwise).',
        LANG_DESCRIPTION,
        ACCESS,
      ].join('\n\n'),
      params: { type: 'object', properties: { siteId: SITE_ID_PARAM, testId: TEST_ID_PARAM }, required: ['siteId', 'testId'] },
      headers: { type: 'object', properties: { 'site-id': SITE_ID_HEADER_OPTIONAL } },
      querystring: { type: 'object', properties: { lang: LANG_QUERY } },
      response: {
        200: envelope(TEST_RESULT_SCHEMA, {
          status: { type: 'string', enum: ['queued', 'running', 'done', 'failed'] },
          tested_url: { type: 'string' },
        }),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
  }, async (request) => {
    const { siteId, testId } = request.params;
    await request.requireSiteMatchingHeader(siteId);
    const lang: ReportLang = requestReportLang(request);
    const test = await readPrivateTest(app.deps.db, siteId, testId, lang);
    if (!test) throw new WebperfError('NOT_FOUND', `No private test ${testId} for the website ${siteId}`);
    const data = test.status === 'queued' || test.status === 'running' ? [] : test.results;
    return {
      api_version: version,
      uri: siteUri(baseUrl(request), siteId),
      result_count: data.length,
      timestamp: latestIso(data.map((r) => r.testDate), test.finishedAt ?? test.createdAt),
      status: test.status,
      tested_url: test.url,
      data: data.map(toTestResult),
    };
  });

  app.get('/categories/', {
    schema: schema({
      summary: 'Category averages',
      description: [
        'Every category, sorted by cat_id, with the averages of the latest scores of its rated websites (kept up to date as results land).',
        'Decided: any valid key may read every category (they are averages over many websites); no key or an invalid key: 401.',
        'rating_a11y, rating_infosec, rating_pagespeed and rating_webstandard are rounded to 2 decimal places, rating_overall to 5 (as the scores of /item/{id}); null while no website of the category is rated in it.',
        'timestamp is when the category averages last changed, or the time of the request when none is stored.',
        ETAG_NOTE,
      ].join('\n\n'),
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: {
            api_version: { type: 'string' },
            timestamp: { type: 'string', format: 'date-time' },
            categories: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  cat_id: { type: 'integer' },
                  title: { type: 'string' },
                  rating_a11y: { type: 'number', nullable: true, description: '2 decimal places' },
                  rating_infosec: { type: 'number', nullable: true, description: '2 decimal places' },
                  rating_pagespeed: { type: 'number', nullable: true, description: '2 decimal places' },
                  rating_webstandard: { type: 'number', nullable: true, description: '2 decimal places' },
                  rating_overall: { type: 'number', nullable: true, description: '5 decimal places' },
                },
                required: ['cat_id', 'title', 'rating_a11y', 'rating_infosec', 'rating_pagespeed', 'rating_webstandard', 'rating_overall'],
              },
            },
          },
          required: ['api_version', 'timestamp', 'categories'],
        },
        304: NOT_MODIFIED,
        ...errorResponses(401, 429),
      },
    }),
  }, async (request, reply) => {
    await request.requireKey();
    return reply.sendCached(`categories\0${version}`, ['categories'], async () => {
      const rows = await readCategoryScores(app.deps.db);
      const updated = rows.map((r) => r.updatedAt).filter((d): d is Date => d !== null);
      return {
        payload: {
          api_version: version,
          timestamp: latest(updated, new Date()).toISOString(),
          categories: rows.map((r) => ({
            cat_id: r.id,
            title: r.title,
            rating_a11y: nullableRound(r.a11y, 2),
            rating_infosec: nullableRound(r.infosec, 2),
            rating_pagespeed: nullableRound(r.pagespeed, 2),
            rating_webstandard: nullableRound(r.webstandard, 2),
            rating_overall: nullableRound(r.overall, 5),
          })),
        },
        cacheable: updated.length > 0,
      };
    });
  });

  app.get('/quota/', {
    schema: schema({
      summary: 'Credit quota of a website',
      description: [
        'The credit quota of the website in the site-id header (required). All numbers are integers.',
        'monthly_quota (and effective_limit, the same value, kept for backwards compatibility) is the website\'s own ceiling, else its premium level\'s, else 0. used is the sum of the credits booked for the website over the rolling window of the last 30 days (a booking counts until exactly 30 days after it was made; orders of every key count). available = max(0, monthly_quota − used). timestamp is the server time.',
        'Order of checks: no key or an invalid key 401 (decided, rather than the 400 the spec also mentions); site-id missing or not a positive integer 400; a key that does not reach the site 403, whether or not it exists; an admin key naming a website that does not exist 404 SITE_NOT_FOUND.',
      ].join('\n\n'),
      headers: { type: 'object', properties: { 'site-id': { ...SITE_ID_HEADER, description: 'The website id (required; a positive integer)' } } },
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: {
            api_version: { type: 'string' },
            site_id: { type: 'integer' },
            monthly_quota: { type: 'integer' },
            effective_limit: { type: 'integer' },
            used: { type: 'integer' },
            available: { type: 'integer' },
            period_days: { type: 'integer' },
            timestamp: { type: 'string', format: 'date-time' },
          },
          required: ['api_version', 'site_id', 'monthly_quota', 'effective_limit', 'used', 'available', 'period_days', 'timestamp'],
        },
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
  }, async (request) => {
    const { siteId } = await request.requireSiteHeader();
    const q = found(await readQuota(app.deps.db, siteId), siteId);
    return {
      api_version: version,
      site_id: q.siteId,
      monthly_quota: q.monthlyQuota,
      effective_limit: q.monthlyQuota,
      used: q.used,
      available: q.available,
      period_days: q.periodDays,
      timestamp: new Date().toISOString(),
    };
  });
};

export default results;
