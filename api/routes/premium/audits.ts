/**
 * Premium audits: order one (POST /audit/), list the finished ones (POST /audits/) and read their
 * files (GET and POST /audit_file/). Orders go through core/store/audits.ts (the one credit
 * transaction, the one-per-hour rule under the same site lock, the job in the same transaction);
 * files are rows of the audit, read by a name from a fixed list, so no caller input ever names a
 * path. Decisions taken where the spec is silent are in each route's description.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AUDIT_FILES, CSV_FILE } from '../../../core/audit/summaries.js';
import { WebperfError } from '../../../core/errors.js';
import { AUDIT_CREDITS_PER_PAGE, QUOTA_PERIOD_DAYS, plural } from '../../../core/quota.js';
import { FOLDER_PATTERN, getAuditByFolder, listFinishedAudits, placeAudit, readAuditFile, type AuditFormat, type AuditRow } from '../../../core/store/audits.js';
import { checkDeclaredLength, formBody } from '../../plugins/body.js';
import { RATE_LIMIT_HEADERS } from '../../plugins/rate-limit.js';
import { baseUrl, parseStrictInt, INT4_MAX } from '../../request-helpers.js';
import type { PremiumOptions } from './options.js';
import { SITE_HEADERS, SITE_ID_HEADER, errorResponses, premiumDoc, siteHeaderChecks } from './schemas.js';

/** An audit order's body holds a few short fields at most. */
const AUDIT_BODY_BYTES = 16 * 1024;
const FIELD_BYTES = 1024;

/** Formats a caller may order: audit_v2 (the audit report) and csv (axe only); `audit` is the old report, listed but no longer produced. */
const ORDERABLE: readonly AuditFormat[] = ['audit_v2', 'csv'];

/** Every file name a folder can hold: result files of every format, and the csv format's CSV. */
export function filesOf(format: string): readonly string[] {
  return format === 'csv' ? [CSV_FILE] : (AUDIT_FILES[format as AuditFormat] ?? []);
}

async function checkSiteAccess(request: FastifyRequest): Promise<void> {
  await request.requireSiteHeader();
}

/** One text value: a JSON number is taken as its decimal text; a field sent twice becomes an invalid value. */
function one(v: unknown): string | undefined {
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' ? v : Array.isArray(v) ? '\u0000' : undefined;
}

const audits: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const { db, config } = app.deps;
  const doc = premiumDoc(opts, config.rateLimitPerMinute);

  app.post<{ Body: Record<string, unknown> | undefined }>('/audit/', {
    preParsing: [checkSiteAccess, checkDeclaredLength],
    ...formBody({
      maxBytes: AUDIT_BODY_BYTES,
      fieldBytes: FIELD_BYTES,
      tooLarge: () => new WebperfError('REQUEST_TOO_LARGE', `The request body is larger than ${AUDIT_BODY_BYTES} bytes`),
      invalid: () => new WebperfError('PAGES_INVALID'),
    }),
    schema: doc({
      summary: 'Order an audit: crawl the site from its start page and test every page',
      description: [
        'Queues an audit of the site: a crawl from the site\'s start page (the site\'s url; a URL list cannot be supplied), seeded by robots.txt `Sitemap:` lines and the usual sitemap places, following the links of the rendered pages breadth first on the site\'s host and its www twin, honouring robots.txt and noindex/nofollow, until `pages` pages are tested. Each page is loaded once and tested with Lighthouse (performance, accessibility, best practices, SEO), axe-core and the tracking/cookie and analytics checks. An audit is processed within a couple of hours; it appears in /audits/ once finished.',
        [
          '`pages`: the number of pages to audit, an integer of at least 1, as a header or as a form field of the same name (multipart/form-data, application/x-www-form-urlencoded or JSON); the header wins when both are sent. Missing, not a plain decimal integer, or below 1: 400 PAGES_INVALID.',
          '`content` (or `urls`) sent along: 400 AUDIT_CONTENT_NOT_SUPPORTED (no longer supported).',
          '`format` (header or form field, optional): `audit_v2` (default; the audit report with the summary files) or `csv` — an accessibility-only crawl (axe-core on every page, no Lighthouse, much faster) for mainly automated accessibility tests. A csv audit has no result_files (as specified); its CSV (one row per page and violated rule: url, rule, impact, elements, help, help_url; a page with no violation has one row with an empty rule; a failed page one row with its error) is read at /audit_file/?folder=…&file=accessibility.csv, and the folder is in the row\'s content. Anything else: 400 AUDIT_FORMAT_INVALID.',
        ].join(' '),
        `Cost: ${AUDIT_CREDITS_PER_PAGE} credit per page ordered, whatever the format, taken once when the order is accepted (a resumed audit is never charged again; a site with fewer pages than ordered is not refunded). Credits are checked in one transaction over the rolling ${QUOTA_PERIOD_DAYS}-day window; refused as a whole: 400 QUOTA_EXCEEDED, e.g. "The audit needs 50 credits; 7 remain in the current ${QUOTA_PERIOD_DAYS}-day period."`,
        'At most one audit order per site within an hour: a second one is 429 AUDIT_TOO_SOON with `Retry-After` (seconds until the hour is over). Checked under the same site lock as the credits, so two racing orders cannot both pass.',
        'Answer: 200 with JSON whose `message` says the audit will be processed in a couple of hours, with the order id, the audit id, the credits taken and those left.',
        siteHeaderChecks(true),
      ].join('\n\n'),
      consumes: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'],
      headers: {
        type: 'object',
        properties: {
          'site-id': SITE_ID_HEADER,
          pages: { type: 'string', description: 'Pages to audit (integer ≥ 1). Required here or as a form field.' },
          format: { type: 'string', enum: [...ORDERABLE], description: 'audit_v2 (default) or csv' },
        },
        required: ['site-id'],
      },
      body: {
        type: 'object',
        properties: {
          pages: { type: 'string', description: 'Pages to audit (integer ≥ 1), when not sent as a header' },
          format: { type: 'string', enum: [...ORDERABLE], description: 'audit_v2 (default) or csv' },
        },
      },
      response: {
        200: {
          type: 'object',
          headers: RATE_LIMIT_HEADERS,
          properties: {
            api_version: { type: 'string' },
            message: { type: 'string', description: 'The confirmation: the audit will be processed in a couple of hours' },
            site_id: { type: 'integer' },
            order_id: { type: 'integer' },
            audit_id: { type: 'integer', description: 'result_id of the row in /audits/ once finished' },
            format: { type: 'string', enum: [...ORDERABLE] },
            pages: { type: 'integer' },
            credits: { type: 'integer' },
            available: { type: 'integer', description: `Credits remaining in the ${QUOTA_PERIOD_DAYS}-day window after this order` },
          },
          required: ['api_version', 'message', 'site_id', 'order_id', 'audit_id', 'format', 'pages', 'credits', 'available'],
        },
        ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500),
      },
    }),
    // The schema's enum would answer a generic 400; our codes name the field.
    attachValidation: true,
  }, async (request) => {
    const { siteId, key } = await request.requireSiteHeader();
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (body.content !== undefined || body.urls !== undefined) throw new WebperfError('AUDIT_CONTENT_NOT_SUPPORTED');
    const rawPages = one(request.headers.pages) ?? one(body.pages);
    const pages = parseStrictInt(rawPages, 1, INT4_MAX);
    if (pages === null) throw new WebperfError('PAGES_INVALID', rawPages === undefined ? 'The pages header (or form field) is required' : undefined);
    const rawFormat = one(request.headers.format) ?? one(body.format) ?? 'audit_v2';
    if (!(ORDERABLE as readonly string[]).includes(rawFormat)) throw new WebperfError('AUDIT_FORMAT_INVALID');
    const format = rawFormat as AuditFormat;
    const site = await app.resultsCache.site(db, siteId);
    if (!site) throw new WebperfError('SITE_NOT_FOUND');
    const placed = await placeAudit(db, {
      siteId,
      keyId: key.id,
      pages,
      format,
      baseUrl: site.url,
      title: format === 'csv' ? `Accessibility crawl of ${site.title}` : `Audit of ${site.title}`,
    });
    return {
      api_version: opts.version,
      message: `The audit of site ${siteId} (${plural(pages, 'page', 'pages')}, ${plural(placed.credits, 'credit', 'credits')}) will be processed in a couple of hours. It will appear in /audits/ once finished.`,
      site_id: siteId,
      order_id: placed.orderId,
      audit_id: placed.auditId,
      format,
      pages,
      credits: placed.credits,
      available: placed.available,
    };
  });

  const fileAddress = (request: FastifyRequest, folder: string, file: string) =>
    `${baseUrl(request)}${app.prefix}/audit_file/?${new URLSearchParams({ folder, file })}`;

  const auditRow = (request: FastifyRequest, a: AuditRow) => ({
    site_id: a.site_id,
    result_id: a.id,
    title: a.title,
    format: a.format,
    date_modified: new Date(a.date_modified).toISOString(),
    content: JSON.stringify({ date: new Date(a.finished_at ?? a.date_modified).toISOString(), folder: a.folder, base_url: a.base_url, pages_ordered: a.pages, pages_done: a.pages_done }),
    result_files: (AUDIT_FILES[a.format as AuditFormat] ?? []).map((f) => fileAddress(request, a.folder, f)),
  });

  app.post('/audits/', {
    schema: doc({
      summary: 'The site\'s finished audits',
      description: [
        'A JSON array holding one envelope whose `data` lists the site\'s finished audits, newest first. An audit that has not finished (queued, running, failed) is not listed; `data` may be empty.',
        '`content` is a JSON text holding `date` (when the audit finished, ISO 8601), `folder`, `base_url`, `pages_ordered` and `pages_done`. `result_files` are absolute /audit_file/ addresses (same version segment as the request) that take the same api-key and site-id; a csv audit has none.',
        siteHeaderChecks(false),
      ].join('\n\n'),
      headers: SITE_HEADERS,
      response: {
        200: {
          type: 'array',
          headers: RATE_LIMIT_HEADERS,
          minItems: 1,
          maxItems: 1,
          items: {
            type: 'object',
            properties: {
              api_version: { type: 'string' },
              result_count: { type: 'integer' },
              timestamp: { type: 'string', format: 'date-time' },
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    site_id: { type: 'integer' },
                    result_id: { type: 'integer' },
                    title: { type: 'string' },
                    format: { type: 'string', enum: ['csv', 'audit', 'audit_v2'] },
                    date_modified: { type: 'string', format: 'date-time' },
                    content: { type: 'string' },
                    result_files: { type: 'array', items: { type: 'string' } },
                  },
                  required: ['site_id', 'result_id', 'title', 'format', 'date_modified', 'content', 'result_files'],
                },
              },
            },
            required: ['api_version', 'result_count', 'timestamp', 'data'],
          },
        },
        ...errorResponses(400, 401, 403, 429, 500),
      },
    }),
  }, async (request) => {
    const { siteId } = await request.requireSiteHeader();
    const rows = (await listFinishedAudits(db, siteId)).map((a) => auditRow(request, a));
    return [{ api_version: opts.version, result_count: rows.length, timestamp: new Date().toISOString(), data: rows }];
  });

  const fileSchema = (method: 'GET' | 'POST') => doc({
    summary: 'One file of a finished audit',
    description: [
      'The file `file` of the audit in `folder` (both from a result_files address): JSON, or a zip for summaries.zip (and text/csv for a csv audit\'s accessibility.csv).',
      'Checks after the key and site (below): `folder` or `file` missing: 400 AUDIT_FILE_PARAM_MISSING (sent twice: 400 VALIDATION); a folder that is not a folder name (22 characters of A–Z, a–z, 0–9, - and _; so no dots, slashes, percent signs, NUL or absolute paths): 400 AUDIT_FILE_PARAM_INVALID; an unknown folder: 404 AUDIT_FILE_NOT_FOUND; a folder of another site: 403 AUDIT_FOLDER_FORBIDDEN (an admin key too: the folder must belong to the site in site-id); an audit not finished, or a file name its format does not have: 404 AUDIT_FILE_NOT_FOUND. Files are stored with the audit and looked up by a name from a fixed list, never by a path.',
      method === 'POST' ? 'POST takes the same query parameters; a body is ignored.' : '',
      siteHeaderChecks(false),
    ].filter(Boolean).join('\n\n'),
    headers: SITE_HEADERS,
    querystring: {
      type: 'object',
      properties: {
        folder: { type: 'string', description: 'The audit\'s folder name. Required.' },
        file: { type: 'string', description: 'accessibility_summary.json, performance_summary.json, seo_summary.json, best-practices_summary.json; for audit_v2 also crux_summary.json, privacy_summary.json, summaries.zip. Required.' },
      },
    },
    produces: ['application/json', 'application/zip', 'text/csv'],
    response: {
      200: { description: 'The file', headers: RATE_LIMIT_HEADERS },
      ...errorResponses(400, 401, 403, 404, 429, 500),
    },
  });

  const fileHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { siteId } = await request.requireSiteHeader();
    const q = (request.query ?? {}) as Record<string, unknown>;
    const folder = one(q.folder);
    const file = one(q.file);
    if (!folder || !file || folder === '\u0000' || file === '\u0000') throw new WebperfError('AUDIT_FILE_PARAM_MISSING');
    if (!FOLDER_PATTERN.test(folder)) throw new WebperfError('AUDIT_FILE_PARAM_INVALID');
    const audit = await getAuditByFolder(db, folder);
    if (!audit) throw new WebperfError('AUDIT_FILE_NOT_FOUND', 'Unknown audit folder');
    if (audit.site_id !== siteId) throw new WebperfError('AUDIT_FOLDER_FORBIDDEN');
    if (audit.status !== 'done' || !filesOf(audit.format).includes(file)) throw new WebperfError('AUDIT_FILE_NOT_FOUND', `The audit has no file ${JSON.stringify(file.slice(0, 100))}`);
    const found = await readAuditFile(db, audit.id, file);
    if (!found) throw new WebperfError('AUDIT_FILE_NOT_FOUND');
    void reply.header('content-type', found.contentType.startsWith('application/json') || found.contentType.startsWith('text/') ? `${found.contentType}; charset=utf-8` : found.contentType);
    void reply.header('content-disposition', `attachment; filename="${found.name}"`);
    void reply.header('x-content-type-options', 'nosniff');
    return reply.send(found.content);
  };

  app.get('/audit_file/', { schema: fileSchema('GET') }, fileHandler);
  app.post('/audit_file/', { schema: fileSchema('POST') }, fileHandler);
};

export default audits;
