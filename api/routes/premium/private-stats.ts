/**
 * The private (one-off) test results of a website: the list and one test. Every query is in
 * core/store/results-read.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import type { ReportLang } from '../../../core/i18n/langs.js';
import { listPrivateTests, readPrivateTest } from '../../../core/store/results-read.js';
import { siteUri, sqlDateTime } from '../../envelope.js';
import { baseUrl, requestReportLang } from '../../request-helpers.js';
import type { PremiumOptions } from './options.js';
import { ACCESS, LANG_DESCRIPTION, TEST_RESULT_SCHEMA, found, latest, latestIso, toTestResult } from './result-shapes.js';
import { LANG_QUERY, SITE_ID_HEADER_OPTIONAL, SITE_ID_PARAM, TEST_ID_PARAM, envelope, errorResponses, premiumDoc } from './schemas.js';

/** Most addresses the `urls` filter of the private test list takes. */
export const MAX_URLS = 10;

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

const privateStats: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const version = opts.version;
  const schema = premiumDoc(opts, app.deps.config.rateLimitPerMinute);

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
};

export default privateStats;
