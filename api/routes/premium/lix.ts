/**
 * The LIX tool (GET and POST /tools/lix/): the readability index of a text, in core/lix.ts.
 * Not charged; the text is not stored.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { lix } from '../../../core/lix.js';
import { checkDeclaredLength, formBody } from '../../plugins/body.js';
import { RATE_LIMIT_HEADERS } from '../../plugins/rate-limit.js';
import { requestReportLang } from '../../request-helpers.js';
import type { PremiumOptions } from './options.js';
import { LANG_QUERY, SITE_HEADERS, errorResponses, premiumDoc, siteHeaderChecks } from './schemas.js';

/** Room for multipart boundaries and part headers around the text. */
const MULTIPART_OVERHEAD = 16 * 1024;
/** JSON and URL encoding can grow a text up to six times (\uXXXX escapes). */
const ENCODING_GROWTH = 6;

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

/** preParsing: the key, the site-id header and access (401, 400, 403) before any body is read. */
async function checkSiteAccess(request: FastifyRequest): Promise<void> {
  await request.requireSiteHeader();
}

const lixRoutes: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const doc = premiumDoc(opts, app.deps.config.rateLimitPerMinute);
  const lixMax = app.deps.config.lixMaxBytes;
  // One text for every way of being too large: a multipart field is cut just past the limit, so
  // its true size is not known.
  const tooLarge = () => new WebperfError('TEXT_TOO_LARGE', `The text is larger than the limit of ${lixMax} bytes (UTF-8)`);

  const description = (method: 'GET' | 'POST') => [
    'The readability index LIX of a text (läsbarhetsindex: words / sentences + 100 × long words / words; a long word has more than 6 letters; see core/lix.ts for how words and sentences are counted). Not charged in credits.',
    method === 'POST'
      ? 'Body: `multipart/form-data` with the text field `content` (as specified); `application/x-www-form-urlencoded` and JSON `{"content": "..."}` are accepted too. File parts are refused (400 FILE_NOT_ACCEPTED); any other content type: 415 UNSUPPORTED_MEDIA_TYPE.'
      : 'Query: `content`, the text. The length of a query string is bounded by the server\'s URL limit (about 16 KiB): use POST for longer texts.',
    `Size: at most ${lixMax} bytes of text (UTF-8) — a limit the spec leaves open; larger: 413 TEXT_TOO_LARGE (a request whose declared length already exceeds it is refused before its body is read; the answer waits until the body has been received, so that a client still sending sees it and not a reset). Missing or blank \`content\`: 400 CONTENT_MISSING; a text without any word (only digits or punctuation): 400 CONTENT_NO_WORDS. Where the usage text answers False with an error code on failure, this service answers its error body with the HTTP status.`,
    'The text is not stored.',
    siteHeaderChecks(false),
  ].join('\n\n');

  const schema = (method: 'GET' | 'POST') => doc({
    summary: 'LIX readability index of a text',
    description: description(method),
    headers: SITE_HEADERS,
    querystring: {
      type: 'object',
      properties: {
        lang: { ...LANG_QUERY, description: `Language of \`message\`: ${LANG_QUERY.description}` },
        ...(method === 'GET' ? { content: { type: 'string', description: 'The text to analyse. Required.' } } : {}),
      },
    },
    response: {
      200: { ...LIX_RESPONSE, headers: RATE_LIMIT_HEADERS },
      ...errorResponses(400, 401, 403, 413, 415, 429, 500),
    },
  });

  const handler = async (request: FastifyRequest) => {
    await request.requireSiteHeader();
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

  app.get('/tools/lix/', { preParsing: checkSiteAccess, schema: schema('GET') }, handler);

  app.post('/tools/lix/', {
    preParsing: [checkSiteAccess, checkDeclaredLength],
    ...formBody({
      maxBytes: lixMax * ENCODING_GROWTH + MULTIPART_OVERHEAD,
      maxMultipartBytes: lixMax + MULTIPART_OVERHEAD,
      // One byte over the limit is kept, so that a cut field is still seen to be too large.
      fieldBytes: lixMax + 1,
      tooLarge,
      invalid: () => new WebperfError('CONTENT_MISSING', 'The content field is required, once, as a text field'),
    }),
    schema: {
      ...schema('POST'),
      consumes: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'],
      body: {
        type: 'object',
        properties: { content: { type: 'string', description: 'The text to analyse' } },
        required: ['content'],
      },
    },
  }, handler);
};

export default lixRoutes;
