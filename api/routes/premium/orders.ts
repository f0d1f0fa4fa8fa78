/**
 * Premium orders: re-test of the start page and one-off private tests. Orders go through
 * core/store/orders.ts (one transaction: credit check, order, ledger row, runs, jobs); the rules
 * of what an order may hold and cost are in core/quota.ts. Decisions taken where the spec says
 * "not shown" are stated in each route's description (they reach the OpenAPI document).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import {
  MAX_TEST_ONCE_URLS,
  QUOTA_PERIOD_DAYS,
  RETEST_CREDITS_PER_TEST,
  TEST_ONCE_CREDITS_PER_PAGE,
  parseOrderUrls,
  parseTestnums,
  plural,
  retestCost,
  testOnceCost,
} from '../../../core/quota.js';
import { checkDeclaredLength, formBody } from '../../plugins/body.js';
import { RATE_LIMIT_HEADERS } from '../../plugins/rate-limit.js';
import { baseUrl } from '../../request-helpers.js';
import type { PremiumOptions } from './options.js';
import { SITE_HEADERS, SITE_ID_HEADER, errorResponses, premiumDoc, siteHeaderChecks } from './schemas.js';

/** Largest form field of a one-off order (10 addresses of 2048 characters fit well below). */
const URLS_FIELD_BYTES = 32 * 1024;
/** Largest request body of a one-off order. */
const TEST_ONCE_BODY_BYTES = 64 * 1024;

const QUOTA_RULE = `Credits: the order is accepted or refused as a whole in one transaction that checks the site's rolling ${QUOTA_PERIOD_DAYS}-day window (ceiling: the site's own quota, else its premium level's, else 0; racing orders for one site are serialised, so they can never together spend more than remains). Refused: 400 QUOTA_EXCEEDED with a message such as "The order needs 15 credits; 7 remain in the current ${QUOTA_PERIOD_DAYS}-day period." and nothing is queued or charged. Once a site has been refused, an order needing more than it then had left is refused again at once, without that transaction, for as long as the refusal must stand: until the oldest booking in the window leaves it, the site's or its premium level's quota changes, or an order for the site is accepted (the number quoted is always the one the transaction last gave). An order that may fit always goes through the transaction.`;

const ORDER_COMMON = {
  api_version: { type: 'string', description: 'The version reached' },
  message: { type: 'string', description: 'The confirmation text' },
  site_id: { type: 'integer' },
  order_id: { type: 'integer', description: 'The accepted order' },
  credits: { type: 'integer', description: 'Credits the order cost' },
  available: { type: 'integer', description: `Credits remaining in the ${QUOTA_PERIOD_DAYS}-day window after this order` },
} as const;

/** preParsing: the key, the site-id header and access (401, 400, 403) before any body is read. */
async function checkSiteAccess(request: FastifyRequest): Promise<void> {
  await request.requireSiteHeader();
}

const orders: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const { db, config, registry } = app.deps;
  const doc = premiumDoc(opts, config.rateLimitPerMinute);
  const activeTypes = () => registry.select(null).map((p) => p.meta.id);

  async function existingSite(siteId: number) {
    const site = await app.resultsCache.site(db, siteId);
    if (!site) throw new WebperfError('SITE_NOT_FOUND');
    return site;
  }

  app.post('/retest/', {
    preParsing: checkSiteAccess,
    schema: doc({
      summary: 'Re-test the site\'s start page',
      description: [
        'Queues one public test of the site\'s start page (the site\'s url) for the test types asked for; results appear later via /stats/{siteId}. Answers at once.',
        [
          '`testnums` header, parsed strictly. Accepted forms: `[30,21]`, `30,21` or `30` (spaces around numbers, commas and brackets are allowed; numbers are decimal digits without sign or leading zero).',
          'Every number must be a test type this service runs (see /v1/tests, `available`). Duplicates count once.',
          'Anything else (letters, an empty entry, `[]`, an unmatched bracket, a test type not run here) is 400 TESTNUMS_INVALID with a message naming the bad value.',
          'Omitted or blank (the spec lists it as optional in the usage text and required in the machine description): every test type the service runs that is active, each charged.',
        ].join(' '),
        `Cost: ${RETEST_CREDITS_PER_TEST} credit per distinct test type, taken when the order is accepted; a type the runner that takes the run cannot run (a program it needs is not installed there, \`requires\` in /v1/tests) is stored not rated, with \`data.code\` TEST_TYPE_UNAVAILABLE, and its credit is given back when the run is stored (a ledger row of minus its credits). ${QUOTA_RULE}`,
        'Answer: 200 with JSON whose `message` is the text confirmation that the site will be retested in a couple of minutes (JSON rather than text/plain so that the order id, run id and credits can be read too).',
        siteHeaderChecks(true),
      ].join('\n\n'),
      headers: {
        type: 'object',
        properties: {
          'site-id': SITE_ID_HEADER,
          testnums: { type: 'string', description: 'Test types to run: `[30,21]`, `30,21` or `30`. Optional: omitted means every active test type of the service.' },
        },
        required: ['site-id'],
      },
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: {
            ...ORDER_COMMON,
            run_id: { type: 'integer', description: 'The queued test run of the start page' },
            url: { type: 'string', description: 'The start page that will be tested' },
            test_types: { type: 'array', items: { type: 'integer' }, description: 'The test types that will run, ascending' },
          },
          required: ['api_version', 'message', 'site_id', 'order_id', 'run_id', 'url', 'test_types', 'credits', 'available'],
        },
        ...errorResponses(400, 401, 403, 404, 415, 429, 500),
      },
    }),
  }, async (request) => {
    const { siteId, key } = await request.requireSiteHeader();
    const raw = request.headers.testnums;
    const testnums = Array.isArray(raw) ? raw.join(',') : raw;
    let testTypes: number[];
    try {
      testTypes = parseTestnums(testnums, registry.ids(), activeTypes());
      if (testTypes.length === 0) throw new WebperfError('TESTNUMS_INVALID', 'This service has no active test type to run');
    } catch (err) {
      // A missing site is answered before a bad testnums header (the site is read only here:
      // an order reads it under its lock, so that a re-test costs one round trip).
      await existingSite(siteId);
      throw err;
    }
    const credits = retestCost(testTypes);
    // url null: the site's start page, read by the order itself (SITE_NOT_FOUND when there is no site).
    const placed = await app.resultsCache.placeOrder(db, {
      siteId,
      keyId: key.id,
      kind: 'retest',
      credits,
      payload: { url: null, test_types: testTypes, testnums: testnums ?? null },
      runs: [{ siteId, url: null, private: false, testTypes }],
    });
    return {
      api_version: opts.version,
      message: `Site ${siteId} will be retested in a couple of minutes (${plural(testTypes.length, 'test type', 'test types')}: ${testTypes.join(', ')}; ${plural(credits, 'credit', 'credits')}). The results will appear at /stats/${siteId}.`,
      site_id: siteId,
      order_id: placed.orderId,
      run_id: placed.runIds[0],
      url: placed.siteUrl,
      test_types: testTypes,
      credits,
      available: placed.available,
    };
  });

  app.post<{ Body: { urls?: string } }>('/test_once/', {
    preParsing: [checkSiteAccess, checkDeclaredLength],
    ...formBody({
      maxBytes: TEST_ONCE_BODY_BYTES,
      fieldBytes: URLS_FIELD_BYTES,
      tooLarge: () => new WebperfError('REQUEST_TOO_LARGE', `The request body is larger than ${TEST_ONCE_BODY_BYTES} bytes`),
      invalid: () => new WebperfError('URLS_INVALID', `The urls field is required, once, as a text field: 1 to ${MAX_TEST_ONCE_URLS} comma-separated addresses`),
    }),
    schema: doc({
      summary: 'Order private one-off tests of chosen pages',
      description: [
        'Queues one private test per address (every active test type of the service on that page). Results are private: they appear only under /private_stats/{siteId} and never in /stats, the scores or the open data. A one-off test typically finishes within 15 to 30 minutes.',
        [
          'Body: `multipart/form-data` with the text field `urls` (as specified); `application/x-www-form-urlencoded` and JSON `{"urls": "..."}` are accepted too. File parts are refused (400 FILE_NOT_ACCEPTED); any other content type: 415 UNSUPPORTED_MEDIA_TYPE; a body over 64 KiB: 413 REQUEST_TOO_LARGE (answered once the body has been received, so that a client still sending sees the answer and not a reset).',
          `\`urls\`: 1 to ${MAX_TEST_ONCE_URLS} addresses separated by commas (split at every comma: a comma inside an address must be sent as %2C; spaces around entries are ignored; an empty entry is an error).`,
          'Each address: absolute http or https, at most 2048 characters, without user name or password, on the site\'s own domain: its host equals the start page\'s host or shares its registrable domain (the apex and every subdomain; an IP-address start page allows only that address), on the scheme\'s default port or the start page\'s own port.',
          'Addresses are normalised (WHATWG URL), the #fragment is dropped, and duplicates are tested and charged once. Anything else: 400 URLS_INVALID with a message naming the bad address.',
          'The address is not resolved at order time: the target guard (private, loopback, link-local and metadata addresses refused) runs when the runner loads the page, redirects included; a refused page ends as a failed private test.',
        ].join(' '),
        `Cost: ${TEST_ONCE_CREDITS_PER_PAGE} credits per distinct address. ${QUOTA_RULE}`,
        'Answer: 200 with JSON: `message` states the number of addresses and the site id; `results` maps each new private test id (test_runs id) to the absolute address of its private result, /private_stats/{siteId}/{testId} (with the same version segment as the request; the base is the service\'s public URL, else the request\'s host); `urls` maps the same ids to the address each one tests.',
        siteHeaderChecks(true),
      ].join('\n\n'),
      consumes: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'],
      headers: SITE_HEADERS,
      body: {
        type: 'object',
        properties: { urls: { type: 'string', description: `1 to ${MAX_TEST_ONCE_URLS} comma-separated addresses on the site's own domain` } },
        required: ['urls'],
      },
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: {
            ...ORDER_COMMON,
            url_count: { type: 'integer', description: 'Number of distinct addresses queued' },
            results: { type: 'object', additionalProperties: { type: 'string' }, description: 'Private test id → absolute address of its result' },
            urls: { type: 'object', additionalProperties: { type: 'string' }, description: 'Private test id → the address it tests' },
          },
          required: ['api_version', 'message', 'site_id', 'order_id', 'url_count', 'credits', 'available', 'results', 'urls'],
        },
        ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500),
      },
    }),
  }, async (request) => {
    const { siteId, key } = await request.requireSiteHeader();
    const site = await existingSite(siteId);
    const urls = parseOrderUrls(request.body?.urls, site.url);
    const testTypes = activeTypes();
    if (testTypes.length === 0) throw new WebperfError('URLS_INVALID', 'This service has no active test type to run');
    const credits = testOnceCost(urls.length);
    const placed = await app.resultsCache.placeOrder(db, {
      siteId,
      keyId: key.id,
      kind: 'test_once',
      credits,
      payload: { urls, test_types: testTypes },
      runs: urls.map((url) => ({ siteId, url, private: true, testTypes })),
    });
    const prefix = `${baseUrl(request)}${app.prefix}`;
    const results: Record<string, string> = {};
    const tested: Record<string, string> = {};
    placed.runIds.forEach((id, i) => {
      results[id] = `${prefix}/private_stats/${siteId}/${id}`;
      tested[id] = urls[i];
    });
    return {
      api_version: opts.version,
      message: `${plural(urls.length, 'URL', 'URLs')} will be tested for site ${siteId} (${plural(credits, 'credit', 'credits')}). The results are private; a one-off test typically finishes within 15 to 30 minutes.`,
      site_id: siteId,
      order_id: placed.orderId,
      url_count: urls.length,
      credits,
      available: placed.available,
      results,
      urls: tested,
    };
  });
};

export default orders;
