/**
 * The public dashboard: the public-sector websites with their latest scores (sortable,
 * filterable, searchable through query parameters, so without JavaScript), their downloads, and
 * a page per website. Only public-sector websites and public results appear: the queries read
 * site_scores, latest_results and monthly_scores, which runs.ts fills from public runs only, and
 * the site page refuses any website that is not public-sector (404, as /item/{id} does).
 * Both pages are the same for every visitor of a language: rendered once and kept in the page
 * cache (page-cache.ts) until results for what they show land.
 */
import type { FastifyPluginAsync } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { readLatestResults, readMonthlyScores } from '../../../core/store/results-read.js';
import { SCORE_LIST_SORTS, listPublicSectorScores, type ScoreListQuery } from '../../../core/store/public-sector.js';
import { getSite, getSiteScores } from '../../../core/store/sites.js';
import { INT4_MAX } from '../../request-helpers.js';
import { LATEST_VERSION } from '../../envelope.js';
import { DASHBOARD_TAG } from '../../plugins/cache.js';
import { LICENCE } from '../../routes/open-data.js';
import { readChanges } from '../../../core/store/changes-read.js';
import { buildChart } from '../chart.js';
import { CHANGES_SHOWN, changesView } from '../changes.js';
import { translator } from '../i18n/index.js';
import { chooseLang } from '../lang.js';
import downloads, { LIST_QUERY_SCHEMA, listQuery, queryString } from './downloads.js';

/** Columns of the start page's table, in order; each sorts by its own key. */
export const COLUMNS = [
  { sort: 'title', key: 'dashboard.col.title', numeric: false },
  { sort: 'category', key: 'dashboard.col.category', numeric: false },
  { sort: 'overall', key: 'dashboard.col.overall', numeric: true },
  { sort: 'a11y', key: 'dashboard.col.a11y', numeric: true },
  { sort: 'pagespeed', key: 'dashboard.col.pagespeed', numeric: true },
  { sort: 'infosec', key: 'dashboard.col.infosec', numeric: true },
  { sort: 'webstandard', key: 'dashboard.col.webstandard', numeric: true },
  { sort: 'tested', key: 'dashboard.col.tested', numeric: false },
] as const satisfies readonly { sort: (typeof SCORE_LIST_SORTS)[number]; key: string; numeric: boolean }[];

/**
 * Websites per page of the start page. All 310 in one table cost a phone about a second of style
 * and layout work (Lighthouse performance in the 60s–70s); 100 rows scored 82–93 on a loaded
 * machine, 50 keep a margin. Search, filter and order apply to the whole list first, as do the
 * downloads.
 */
export const PAGE_SIZE = 50;

/** Scores rise from 1 to 5: the first click on a score column shows the best first. */
function defaultDir(sort: string): 'asc' | 'desc' {
  return sort === 'title' || sort === 'category' ? 'asc' : 'desc';
}

const dashboard: FastifyPluginAsync = async (app) => {
  await app.register(downloads);
  // Test type names by id, built once (the registry rebuilds its catalogue on each lookup).
  const testTypeNames = new Map(app.deps.registry.testTypes().map((type) => [type.id, type.names]));

  app.get<{ Querystring: ScoreListQuery & { category?: string; page?: number } }>('/', {
    schema: { querystring: { ...LIST_QUERY_SCHEMA, properties: { ...LIST_QUERY_SCHEMA.properties, page: { type: 'integer', minimum: 1, maximum: 1000 } } } },
  }, async (request, reply) => reply.cachedPage([DASHBOARD_TAG], async () => {
    const query = listQuery(request.query);
    const all = await listPublicSectorScores(app.deps.db, query);
    const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
    const current = request.query.page ?? 1;
    if (current > pages) throw new WebperfError('NOT_FOUND', `There are ${pages} page(s) of websites for this query`);
    const rows = all.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
    const pageHref = (n: number) => `/?${queryString(query)}${queryString(query) ? '&' : ''}page=${n}#results`;
    const sort = query.sort ?? 'title';
    const dir = query.dir ?? 'asc';
    const columns = COLUMNS.map((c) => {
      const current = c.sort === sort;
      const nextDir = current ? (dir === 'asc' ? 'desc' : 'asc') : defaultDir(c.sort);
      return { ...c, current, ariaSort: current ? (dir === 'asc' ? 'ascending' : 'descending') : null, href: `/?${queryString({ ...query, sort: c.sort, dir: nextDir })}#results` };
    });
    const t = translator(chooseLang(request));
    return { view: 'dashboard/start', data: {
      title: t('dashboard.title'),
      description: t('dashboard.description'),
      rows,
      total: all.length,
      from: all.length === 0 ? 0 : (current - 1) * PAGE_SIZE + 1,
      to: (current - 1) * PAGE_SIZE + rows.length,
      pagination: pages > 1 ? { current, pages: Array.from({ length: pages }, (_, i) => ({ n: i + 1, href: pageHref(i + 1) })), prev: current > 1 ? pageHref(current - 1) : null, next: current < pages ? pageHref(current + 1) : null } : null,
      query,
      columns,
      filtered: Boolean(query.q || query.category),
      downloadQuery: queryString(query),
      licence: LICENCE,
    } };
  }));

  app.get<{ Params: { id: number } }>('/site/:id', {
    schema: { params: { type: 'object', properties: { id: { type: 'integer', minimum: 1, maximum: INT4_MAX } }, required: ['id'] } },
  }, async (request, reply) => reply.cachedPage([`site:${request.params.id}`], async () => {
    const lang = chooseLang(request);
    const id = request.params.id;
    // In parallel: each query names the site, so that an unknown or non-public one costs no more.
    const [site, scores, monthly, latest, changes] = await Promise.all([
      getSite(app.deps.db, id),
      getSiteScores(app.deps.db, id),
      readMonthlyScores(app.deps.db, id),
      readLatestResults(app.deps.db, id, lang),
      readChanges(app.deps.db, id, { kind: 'latest', types: null, limit: CHANGES_SHOWN, offset: 0 }),
    ]);
    if (!site || !site.public_sector) throw new WebperfError('SITE_NOT_FOUND');
    const results = (latest ?? []).map((r) => ({ ...r, name: testTypeNames.get(r.typeOfTest)?.[lang] ?? String(r.typeOfTest) }));
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return { view: 'dashboard/site', data: {
      title: site.title,
      site: { id: site.id, title: site.title, url: site.url, category: site.org_category, sameAs: site.same_as, code: site.org_code },
      scores: scores ? { overall: num(scores.overall), a11y: num(scores.a11y), pagespeed: num(scores.pagespeed), infosec: num(scores.infosec), webstandard: num(scores.webstandard), updatedAt: scores.updated_at } : null,
      chart: buildChart(monthly?.rows ?? []),
      changes: changesView(changes?.pairs ?? [], lang, (t) => testTypeNames.get(t)?.[lang] ?? String(t)),
      results,
      api: {
        item: `/item/${site.id}`,
        stats: `/stats/${site.id}?lang=${lang}`,
        monthly: `/stats_per_month/${site.id}`,
        list: '/public-sector/',
        version: LATEST_VERSION,
      },
      licence: LICENCE,
    } };
  }));
};

export default dashboard;
