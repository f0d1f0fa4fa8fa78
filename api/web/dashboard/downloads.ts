/**
 * The start page's data as files: CSV and JSON of the public-sector websites with their latest
 * scores, for the same filter and order as the page (the links carry its query), with the
 * open-data licence (CC BY-SA 4.0) and credit line inside each file.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { writeToString } from 'fast-csv';
import { neutralise } from '../../../core/analytics-csv.js';
import { round } from '../../../core/rating.js';
import { SCORE_LIST_SORTS, listPublicSectorScores, type ScoreListQuery, type ScoreListRow } from '../../../core/store/public-sector.js';
import { LATEST_VERSION, siteUri } from '../../envelope.js';
import { baseUrl } from '../../request-helpers.js';
import { LICENCE } from '../../routes/open-data.js';

export const CSV_PATH = '/download/public-sector-scores.csv';
export const JSON_PATH = '/download/public-sector-scores.json';

/** The query of the start page and its downloads; an empty category or search means "all". */
export const LIST_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 100 },
    category: { type: 'string', enum: ['', 'Municipality', 'Region'] },
    sort: { type: 'string', enum: [...SCORE_LIST_SORTS] },
    dir: { type: 'string', enum: ['asc', 'desc'] },
  },
} as const;

/** The validated query with empty values dropped. */
export function listQuery(raw: ScoreListQuery & { category?: string }): ScoreListQuery {
  const out: ScoreListQuery = {};
  if (raw.q?.trim()) out.q = raw.q.trim();
  if (raw.category === 'Municipality' || raw.category === 'Region') out.category = raw.category;
  if (raw.sort) out.sort = raw.sort;
  if (raw.dir) out.dir = raw.dir;
  return out;
}

/** The query as a URL query string (without "?"), in a stable order. */
export function queryString(query: ScoreListQuery): string {
  const p = new URLSearchParams();
  for (const key of ['q', 'category', 'sort', 'dir'] as const) if (query[key]) p.set(key, query[key]);
  return p.toString();
}

/** Rounded as /item/{id} rounds them: overall to 5 places, the categories to 2. */
function scores(r: ScoreListRow) {
  const at = (v: number | null, places: number) => (v === null ? null : round(v, places));
  return { overall: at(r.overall, 5), a11y: at(r.a11y, 2), pagespeed: at(r.pagespeed, 2), infosec: at(r.infosec, 2), webstandard: at(r.webstandard, 2) };
}

export const CSV_COLUMNS = ['id', 'title', 'category', 'url', 'same_as', 'overall', 'a11y', 'pagespeed', 'infosec', 'webstandard', 'last_tested', 'uri', 'licence', 'attribution'] as const;

const downloads: FastifyPluginAsync = async (app) => {
  const read = (request: FastifyRequest<{ Querystring: ScoreListQuery & { category?: string } }>) =>
    listPublicSectorScores(app.deps.db, listQuery(request.query));

  app.get<{ Querystring: ScoreListQuery & { category?: string } }>(CSV_PATH, { schema: { querystring: LIST_QUERY_SCHEMA } }, async (request, reply) => {
    const rows = await read(request);
    const b = baseUrl(request);
    const licence = `${LICENCE.name} ${LICENCE.url}`;
    const cells = rows.map((r) => {
      const s = scores(r);
      const n = (v: number | null) => (v === null ? '' : String(v));
      return [
        String(r.id), neutralise(r.title), r.category ?? '', neutralise(r.url), r.sameAs ?? '',
        n(s.overall), n(s.a11y), n(s.pagespeed), n(s.infosec), n(s.webstandard),
        r.lastTested ? r.lastTested.toISOString() : '', siteUri(b, r.id), licence, LICENCE.attribution,
      ];
    });
    // A byte order mark first, so that spreadsheets read å, ä and ö right.
    const text = '\uFEFF' + (await writeToString([[...CSV_COLUMNS], ...cells], { headers: false, rowDelimiter: '\r\n' })) + '\r\n';
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="public-sector-scores.csv"')
      .header('link', `<${LICENCE.url}>; rel="license"`)
      .send(text);
  });

  app.get<{ Querystring: ScoreListQuery & { category?: string } }>(JSON_PATH, { schema: { querystring: LIST_QUERY_SCHEMA } }, async (request, reply) => {
    const rows = await read(request);
    const b = baseUrl(request);
    const newest = rows.reduce<number>((m, r) => Math.max(m, r.lastTested?.getTime() ?? 0), 0);
    return reply
      .header('content-disposition', 'attachment; filename="public-sector-scores.json"')
      .header('link', `<${LICENCE.url}>; rel="license"`)
      .send({
        api_version: LATEST_VERSION,
        timestamp: new Date(newest || Date.now()).toISOString(),
        licence: LICENCE,
        source: 'webperf open data',
        result_count: rows.length,
        data: rows.map((r) => ({
          id: r.id,
          title: r.title,
          category: r.category,
          url: r.url,
          sameAs: r.sameAs,
          uri: siteUri(b, r.id),
          scores: scores(r),
          last_tested: r.lastTested ? r.lastTested.toISOString() : null,
        })),
      });
  });
};

export default downloads;
