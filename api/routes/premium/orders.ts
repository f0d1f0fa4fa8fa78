/**
 * Premium orders: re-test of the start page, one-off private tests, and the LIX tool. Orders go
 * through core/store/orders.ts (one transaction: credit check, order, ledger row, runs, jobs);
 * the rules of what an order may hold and cost are in core/quota.ts. Decisions taken where the
 * spec says "not shown" are stated in each route's description (they reach the OpenAPI document).
 */
import type { FastifyError, FastifyPluginAsync, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { WebperfError, isWebperfError } from '../../../core/errors.js';
import { lix } from '../../../core/lix.js';
import {
  MAX_TEST_ONCE_URLS,
  QUOTA_PERIOD_DAYS,
  RETEST_CREDITS_PER_TEST,
  TEST_ONCE_CREDITS_PER_PAGE,
  parseOrderUrls,
  parseTestnums,
  retestCost,
  testOnceCost,
} from '../../../core/quota.js';
import { placeOrder } from '../../../core/store/orders.js';
import { getSite } from '../../../core/store/sites.js';
import type { ResolvedKey } from '../../../core/store/keys.js';
import { errorResponses } from '../../envelope.js';
import { requestReportLang, siteIdHeader } from '../../request-helpers.js';
import { RATE_LIMIT_HEADERS, rateLimitNote } from '../../plugins/rate-limit.js';
import type { PremiumOptions } from './options.js';

const SECURITY: { [scheme: string]: string[] }[] = [{ ApiKeyAuth: [] }, { AdminApiKey: [] }];

/** Largest form field of a one-off order (10 addresses of 2048 characters fit well below). */
const URLS_FIELD_BYTES = 32 * 1024;
/** Largest request body of a one-off order. */
const TEST_ONCE_BODY_BYTES = 64 * 1024;
/** Room for multipart boundaries and part headers around the LIX text. */
const MULTIPART_OVERHEAD = 16 * 1024;
/** JSON and URL encoding can grow a text up to six times (\uXXXX escapes). */
const ENCODING_GROWTH = 6;

/** The access checks every order route makes, for its description. */
function checks(siteMustExist: boolean): string {
  return [
    'Checks, in this order: no api-key or an unknown/revoked one: 401 (KEY_MISSING, KEY_INVALID; the spec\'s errors table also lists 400 for a missing api-key on re-test: 401 is answered, as on every premium route); missing site-id header: 400 SITE_ID_MISSING, not a positive integer: 400 SITE_ID_INVALID; a key that does not reach the site: 403 FORBIDDEN_SITE',
    siteMustExist ? '; an admin key naming a site that does not exist: 404 SITE_NOT_FOUND.' : ' (the site itself is not read: an admin key may name any id).',
    ' The key and site are checked before the body is read.',
  ].join('');
}

const QUOTA_RULE = `Credits: the order is accepted or refused as a whole in one transaction that checks the site's rolling ${QUOTA_PERIOD_DAYS}-day window (ceiling: the site's own quota, else its premium level's, else 0; racing orders for one site are serialised, so they can never together spend more than remains). Refused: 400 QUOTA_EXCEEDED with a message such as "The order needs 15 credits; 7 remain in the current ${QUOTA_PERIOD_DAYS}-day period." and nothing is queued or charged.`;

const SITE_ID_HEADER = { type: 'string', description: 'The website id (a positive integer). Required.' } as const;
const LANG_QUERY = { type: 'string', description: 'Language of `message`: sv, en, da, no, fi or is (anything else: 400); else the first supported Accept-Language; else sv. da, no, fi and is get en.' } as const;

const ORDER_COMMON = {
  api_version: { type: 'string', description: 'The version reached' },
  message: { type: 'string', description: 'The confirmation text' },
  site_id: { type: 'integer' },
  order_id: { type: 'integer', description: 'The accepted order' },
  credits: { type: 'integer', description: 'Credits the order cost' },
  available: { type: 'integer', description: `Credits remaining in the ${QUOTA_PERIOD_DAYS}-day window after this order` },
} as const;

const LIX_RESPONSE = {
  type: 'object',
  description: [
    'One shape serving both descriptions in the spec: `lix` is the machine description\'s number; `message` is the usage text\'s two-element array [integer LIX, classification text].',
    'The usage text\'s outer array ([{message}, 200]) is the body plus its status code: the body is this object and the status is the HTTP status.',
  ].join(' '),
  properties: {
    api_version: { type: 'string' },
    lix: { type: 'number', description: 'LIX = words / sentences + 100 × long words / words, one decimal (half away from zero)' },
    message: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      items: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      description: '[LIX truncated to an integer, classification in the requested language]. Truncated, not rounded, so that the integer always lies in the band of its classification (29.6 gives 29, "very easy"; 30.0 gives 30, "easy").',
    },
    band: { type: 'string', enum: ['very-easy', 'easy', 'medium', 'difficult', 'very-difficult'], description: 'Bands: < 30, 30–39.9, 40–49.9, 50–59.9, ≥ 60 (each includes its lower edge)' },
    classification: { type: 'object', properties: { sv: { type: 'string' }, en: { type: 'string' } }, required: ['sv', 'en'], description: 'The band\'s text in Swedish and English' },
    lang: { type: 'string', enum: ['sv', 'en'], description: 'Language of message[1]' },
    words: { type: 'integer' },
    sentences: { type: 'integer' },
    long_words: { type: 'integer', description: 'Words of more than 6 letters' },
    short_text: { type: 'boolean', description: 'Fewer than 200 words: the value is unstable' },
  },
  required: ['api_version', 'lix', 'message', 'band', 'classification', 'lang', 'words', 'sentences', 'long_words', 'short_text'],
} as const;

/** The key, the site-id header and the key's access to the site; 401, 400, 403 in that order. */
async function siteAccess(request: FastifyRequest): Promise<{ siteId: number; key: ResolvedKey }> {
  await request.requireKey();
  const siteId = siteIdHeader(request);
  return { siteId, key: await request.requireSite(siteId) };
}

/** preParsing: refuse before any of the body is read. */
async function checkAccess(request: FastifyRequest): Promise<void> {
  await siteAccess(request);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

function contentLength(request: FastifyRequest): number | null {
  const v = request.headers['content-length'];
  return v === undefined || !/^[0-9]+$/.test(v) ? null : Number(v);
}

const isMultipartRequest = (request: FastifyRequest) => /^multipart\/form-data/i.test(request.headers['content-type'] ?? '');

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** application/x-www-form-urlencoded: a field sent twice becomes an array (and fails the schema). */
function parseUrlencoded(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(body)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return { ...out };
}

const orders: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const { db, config, registry } = app.deps;
  const doc = <T extends object>(schema: T): T => (opts.hidden ? { ...schema, hide: true } : schema);
  const limitNote = rateLimitNote(config.rateLimitPerMinute);
  const describe = (...parts: string[]) => [...parts, limitNote].filter(Boolean).join('\n\n');
  const lixMax = config.lixMaxBytes;
  // One text for every way of being too large: a multipart field is cut just past the limit, so
  // its true size is not known.
  const tooLarge = () => new WebperfError('TEXT_TOO_LARGE', `The text is larger than the limit of ${lixMax} bytes (UTF-8)`);

  // Form fields only: a file part is refused with 400 FILE_NOT_ACCEPTED. Limits per route below.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fields: 10, files: 1, fileSize: 1, parts: 20, fieldSize: 1024 },
    async onFile(part) {
      part.file.resume();
      throw new WebperfError('FILE_NOT_ACCEPTED', `The form part "${part.fieldname}" is a file; send it as a plain text field`);
    },
  });
  // Fastify's own text/plain parser would hand a bare string to the routes: not a form.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, parseUrlencoded(body as string));
  });

  // Framework and multipart errors of these routes, mapped to catalogue errors; rethrown, the
  // application's error handler answers them.
  app.setErrorHandler((err: FastifyError, request) => {
    if (isWebperfError(err)) throw err;
    const isLix = request.routeOptions.url?.endsWith('/tools/lix/') ?? false;
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        throw isLix ? tooLarge() : new WebperfError('REQUEST_TOO_LARGE', `The request body is larger than ${TEST_ONCE_BODY_BYTES} bytes`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        throw new WebperfError('UNSUPPORTED_MEDIA_TYPE');
      case 'FST_FILES_LIMIT':
      case 'FST_REQ_FILE_TOO_LARGE':
        throw new WebperfError('FILE_NOT_ACCEPTED');
      case 'FST_PARTS_LIMIT':
      case 'FST_FIELDS_LIMIT':
        throw new WebperfError('VALIDATION', 'The form has too many fields');
    }
    if (err.validation && err.validationContext === 'body') {
      throw isLix
        ? new WebperfError('CONTENT_MISSING', 'The content field is required, once, as a text field')
        : new WebperfError('URLS_INVALID', `The urls field is required, once, as a text field: 1 to ${MAX_TEST_ONCE_URLS} comma-separated addresses`);
    }
    throw err;
  });

  const runnable = () => registry.ids();
  const activeTypes = () => registry.select(null).map((p) => p.meta.id);
  const base = (request: FastifyRequest) => config.publicUrl ?? `${request.protocol}://${request.host}`;

  async function existingSite(siteId: number) {
    const site = await getSite(db, siteId);
    if (!site) throw new WebperfError('SITE_NOT_FOUND');
    return site;
  }

  app.post<{ Headers: { 'site-id'?: string; testnums?: string } }>('/retest/', {
    preParsing: checkAccess,
    schema: doc({
      tags: ['premium'],
      summary: 'Re-test the site\'s start page',
      description: describe(
        'Queues one public test of the site\'s start page (the site\'s url) for the test types asked for; results appear later via /stats/{siteId}. Answers at once.',
        [
          '`testnums` header, parsed strictly. Accepted forms: `[30,21]`, `30,21` or `30` (spaces around numbers, commas and brackets are allowed; numbers are decimal digits without sign or leading zero).',
          'Every number must be a test type this service runs (see /v1/tests, `available`). Duplicates count once.',
          'Anything else (letters, an empty entry, `[]`, an unmatched bracket, a test type not run here) is 400 TESTNUMS_INVALID with a message naming the bad value.',
          'Omitted or blank (the spec lists it as optional in the usage text and required in the machine description): every test type the service runs that is active, each charged.',
        ].join(' '),
        `Cost: ${RETEST_CREDITS_PER_TEST} credit per distinct test type. ${QUOTA_RULE}`,
        'Answer: 200 with JSON whose `message` is the text confirmation that the site will be retested in a couple of minutes (JSON rather than text/plain so that the order id, run id and credits can be read too).',
        checks(true),
      ),
      security: SECURITY,
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
    const { siteId, key } = await siteAccess(request);
    const site = await existingSite(siteId);
    const raw = header(request, 'testnums');
    const testTypes = parseTestnums(raw, runnable(), activeTypes());
    if (testTypes.length === 0) throw new WebperfError('TESTNUMS_INVALID', 'This service has no active test type to run');
    const credits = retestCost(testTypes);
    const placed = await placeOrder(db, {
      siteId,
      keyId: key.id,
      kind: 'retest',
      credits,
      payload: { url: site.url, test_types: testTypes, testnums: raw ?? null },
      runs: [{ siteId, url: site.url, private: false, testTypes }],
    });
    return {
      api_version: opts.version,
      message: `Site ${siteId} will be retested in a couple of minutes (${plural(testTypes.length, 'test type', 'test types')}: ${testTypes.join(', ')}; ${plural(credits, 'credit', 'credits')}). The results will appear at /stats/${siteId}.`,
      site_id: siteId,
      order_id: placed.orderId,
      run_id: placed.runIds[0],
      url: site.url,
      test_types: testTypes,
      credits,
      available: placed.available,
    };
  });

  app.post<{ Body: { urls?: string } }>('/test_once/', {
    preParsing: [
      checkAccess,
      async (request) => {
        const length = contentLength(request);
        if (length !== null && length > TEST_ONCE_BODY_BYTES) throw new WebperfError('REQUEST_TOO_LARGE', `The request body is larger than ${TEST_ONCE_BODY_BYTES} bytes`);
      },
    ],
    bodyLimit: TEST_ONCE_BODY_BYTES,
    config: { multipartOptions: { limits: { fieldSize: URLS_FIELD_BYTES, fields: 10, files: 1, fileSize: 1, parts: 20 } } },
    schema: doc({
      tags: ['premium'],
      summary: 'Order private one-off tests of chosen pages',
      description: describe(
        'Queues one private test per address (every active test type of the service on that page). Results are private: they appear only under /private_stats/{siteId} and never in /stats, the scores or the open data. A one-off test typically finishes within 15 to 30 minutes.',
        [
          'Body: `multipart/form-data` with the text field `urls` (as specified); `application/x-www-form-urlencoded` and JSON `{"urls": "..."}` are accepted too. File parts are refused (400 FILE_NOT_ACCEPTED); any other content type: 415 UNSUPPORTED_MEDIA_TYPE; a body over 64 KiB: 413 REQUEST_TOO_LARGE.',
          `\`urls\`: 1 to ${MAX_TEST_ONCE_URLS} addresses separated by commas (split at every comma: a comma inside an address must be sent as %2C; spaces around entries are ignored; an empty entry is an error).`,
          'Each address: absolute http or https, at most 2048 characters, without user name or password, on the site\'s own domain: its host equals the start page\'s host or shares its registrable domain (the apex and every subdomain; an IP-address start page allows only that address), on the scheme\'s default port or the start page\'s own port.',
          'Addresses are normalised (WHATWG URL), the #fragment is dropped, and duplicates are tested and charged once. Anything else: 400 URLS_INVALID with a message naming the bad address.',
          'The address is not resolved at order time: the target guard (private, loopback, link-local and metadata addresses refused) runs when the runner loads the page, redirects included; a refused page ends as a failed private test.',
        ].join(' '),
        `Cost: ${TEST_ONCE_CREDITS_PER_PAGE} credits per distinct address. ${QUOTA_RULE}`,
        'Answer: 200 with JSON: `message` states the number of addresses and the site id; `results` maps each new private test id (test_runs id) to the absolute address of its private result, /private_stats/{siteId}/{testId} (with the same version segment as the request; the base is the service\'s public URL, else the request\'s host); `urls` maps the same ids to the address each one tests.',
        checks(true),
      ),
      security: SECURITY,
      consumes: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'],
      headers: { type: 'object', properties: { 'site-id': SITE_ID_HEADER }, required: ['site-id'] },
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
    const { siteId, key } = await siteAccess(request);
    const site = await existingSite(siteId);
    const urls = parseOrderUrls(request.body?.urls, site.url);
    const testTypes = activeTypes();
    if (testTypes.length === 0) throw new WebperfError('URLS_INVALID', 'This service has no active test type to run');
    const credits = testOnceCost(urls.length);
    const placed = await placeOrder(db, {
      siteId,
      keyId: key.id,
      kind: 'test_once',
      credits,
      payload: { urls, test_types: testTypes },
      runs: urls.map((url) => ({ siteId, url, private: true, testTypes })),
    });
    const prefix = `${base(request)}${app.prefix}`;
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

  const lixDescription = (method: 'GET' | 'POST') => describe(
    'The readability index LIX of a text (läsbarhetsindex: words / sentences + 100 × long words / words; a long word has more than 6 letters; see core/lix.ts for how words and sentences are counted). Not charged in credits.',
    method === 'POST'
      ? `Body: \`multipart/form-data\` with the text field \`content\` (as specified); \`application/x-www-form-urlencoded\` and JSON \`{"content": "..."}\` are accepted too. File parts are refused (400 FILE_NOT_ACCEPTED); any other content type: 415 UNSUPPORTED_MEDIA_TYPE.`
      : 'Query: `content`, the text. The length of a query string is bounded by the server\'s URL limit (about 16 KiB): use POST for longer texts.',
    `Size: at most ${lixMax} bytes of text (UTF-8) — a limit the spec leaves open; larger: 413 TEXT_TOO_LARGE (a request whose declared length already exceeds it is refused before its body is read). Missing or blank \`content\`: 400 CONTENT_MISSING; a text without any word (only digits or punctuation): 400 CONTENT_NO_WORDS. Where the usage text answers False with an error code on failure, this service answers its error body with the HTTP status.`,
    'The text is not stored.',
    checks(false),
  );

  const lixHandler = async (request: FastifyRequest) => {
    await siteAccess(request);
    const content = request.method === 'GET'
      ? (request.query as { content?: unknown } | undefined)?.content
      : (request.body as { content?: unknown } | undefined)?.content;
    if (typeof content !== 'string' || content.trim() === '') throw new WebperfError('CONTENT_MISSING');
    if (Buffer.byteLength(content, 'utf8') > lixMax) throw tooLarge();
    const lang = requestReportLang(request);
    const r = lix(content, lang);
    if (r.lix === null || r.band === null || r.classification === null) throw new WebperfError('CONTENT_NO_WORDS');
    return {
      api_version: opts.version,
      lix: r.lix,
      message: [Math.trunc(r.lix), r.classification[lang]],
      band: r.band,
      classification: r.classification,
      lang,
      words: r.words,
      sentences: r.sentences,
      long_words: r.longWords,
      short_text: r.short,
    };
  };

  const lixSchema = (method: 'GET' | 'POST') => ({
    tags: ['premium'],
    summary: 'LIX readability index of a text',
    description: lixDescription(method),
    security: SECURITY,
    headers: { type: 'object', properties: { 'site-id': SITE_ID_HEADER }, required: ['site-id'] },
    querystring: {
      type: 'object',
      properties: {
        lang: LANG_QUERY,
        ...(method === 'GET' ? { content: { type: 'string', description: 'The text to analyse. Required.' } } : {}),
      },
    },
    response: {
      200: { ...LIX_RESPONSE, headers: RATE_LIMIT_HEADERS },
      ...errorResponses(400, 401, 403, 413, 415, 429, 500),
    },
  });

  app.get<{ Querystring: { content?: string; lang?: string } }>('/tools/lix/', {
    preParsing: checkAccess,
    schema: doc(lixSchema('GET')),
  }, lixHandler);

  app.post<{ Body: { content?: string }; Querystring: { lang?: string } }>('/tools/lix/', {
    preParsing: [
      checkAccess,
      async (request) => {
        const length = contentLength(request);
        const cap = isMultipartRequest(request) ? lixMax + MULTIPART_OVERHEAD : lixMax * ENCODING_GROWTH + MULTIPART_OVERHEAD;
        if (length !== null && length > cap) throw tooLarge();
      },
    ],
    bodyLimit: lixMax * ENCODING_GROWTH + MULTIPART_OVERHEAD,
    // One byte over the limit is kept, so that a truncated field is still seen to be too large.
    config: { multipartOptions: { limits: { fieldSize: lixMax + 1, fields: 10, files: 1, fileSize: 1, parts: 20 } } },
    schema: doc({
      ...lixSchema('POST'),
      consumes: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'],
      body: {
        type: 'object',
        properties: { content: { type: 'string', description: 'The text to analyse' } },
        required: ['content'],
      },
    }),
  }, lixHandler);
};

export default orders;
