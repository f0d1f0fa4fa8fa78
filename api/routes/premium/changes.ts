/**
 * GET /changes/{siteId}: what changed between runs of a website, told by the findings that
 * changed (issue 31). The read is core/store/changes-read.ts, the diff core/changes.ts. Decisions
 * taken where the issue is silent are stated in the route's description (they reach the OpenAPI
 * document).
 */
import type { FastifyPluginAsync } from 'fastify';
import { changeJson, VALUE_TOLERANCE, UNIT_FLOOR } from '../../../core/changes.js';
import { WebperfError } from '../../../core/errors.js';
import type { ReportLang } from '../../../core/i18n/langs.js';
import { parseTestnums } from '../../../core/quota.js';
import { ratingChange, readChanges, type ChangePair, type ChangesQuery, type ResultSide } from '../../../core/store/changes-read.js';
import { siteUri } from '../../envelope.js';
import { baseUrl, requestReportLang } from '../../request-helpers.js';
import type { PremiumOptions } from './options.js';
import { ACCESS, LANG_DESCRIPTION, found, latestIso } from './result-shapes.js';
import { LANG_QUERY, NOT_MODIFIED, SITE_ID_PARAM, envelope, errorResponses, premiumDoc } from './schemas.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const CHANGES_PER_PAGE = 20;
export const CHANGES_MAX_PER_PAGE = 100;

const SEVERITIES = ['critical', 'error', 'warning'];
const STATE = { type: 'object', nullable: true, properties: { severity: { type: 'string', enum: SEVERITIES }, count: { type: 'integer' } }, required: ['severity', 'count'] } as const;
const RATINGS = {
  type: 'object',
  properties: Object.fromEntries(['overall', 'a11y', 'infosec', 'pagespeed', 'webstandard'].map((k) => [k, { type: 'number', nullable: true }])),
  required: ['overall', 'a11y', 'infosec', 'pagespeed', 'webstandard'],
} as const;
const SIDE = {
  type: 'object',
  properties: { run_id: { type: 'integer' }, result_id: { type: 'integer' }, test_date: { type: 'string', format: 'date-time' }, url: { type: 'string' }, ratings: RATINGS },
  required: ['run_id', 'result_id', 'test_date', 'url', 'ratings'],
} as const;
const CHANGE = {
  type: 'object',
  properties: {
    change: { type: 'string', enum: ['added', 'resolved', 'changed'] },
    key: { type: 'string', description: 'The finding\'s identity across runs: category, rule and (when the rule can fire more than once) what it points at' },
    rule: { type: 'string' },
    category: { type: 'string', enum: ['a11y', 'pagespeed', 'infosec', 'webstandard'] },
    locator: { type: 'string', nullable: true },
    before: STATE,
    after: STATE,
    text: { type: 'string', description: 'The finding in the report language (the later run\'s words; the earlier one\'s when resolved)' },
  },
  required: ['change', 'key', 'rule', 'category', 'locator', 'before', 'after', 'text'],
} as const;
const PAIR = {
  type: 'object',
  properties: {
    type_of_test: { type: 'integer' },
    from: SIDE,
    to: SIDE,
    rating_change: { ...RATINGS, description: 'to − from per rating, 2 decimals; null where either is not rated' },
    findings_known: { type: 'boolean', description: 'false when either result was stored before findings were kept: changes is then empty' },
    changes: { type: 'array', items: CHANGE },
  },
  required: ['type_of_test', 'from', 'to', 'rating_change', 'findings_known', 'changes'],
} as const;

/** GET /changes/12?lang=en: an accessibility score that fell from 4.6 to 3.9, and why. */
export const CHANGES_EXAMPLE = {
  api_version: '0.1',
  uri: 'https://webperf.example/item/12',
  result_count: 1,
  timestamp: '2026-11-20T08:03:11.000Z',
  total: 1,
  page: 1,
  per_page: 20,
  data: [{
    type_of_test: 18,
    from: { run_id: 5210, result_id: 88410, test_date: '2026-11-01T08:02:40.000Z', url: 'https://www.kommun.se/', ratings: { overall: 4.6, a11y: 4.6, infosec: null, pagespeed: null, webstandard: null } },
    to: { run_id: 5634, result_id: 95521, test_date: '2026-11-20T08:03:05.000Z', url: 'https://www.kommun.se/', ratings: { overall: 3.9, a11y: 3.9, infosec: null, pagespeed: null, webstandard: null } },
    rating_change: { overall: -0.7, a11y: -0.7, infosec: null, pagespeed: null, webstandard: null },
    findings_known: true,
    changes: [
      { change: 'changed', key: 'a11y color-contrast', rule: 'color-contrast', category: 'a11y', locator: null, before: { severity: 'error', count: 2 }, after: { severity: 'error', count: 16 }, text: 'Elements must meet minimum color contrast ratio thresholds (16)' },
      { change: 'added', key: 'a11y image-alt', rule: 'image-alt', category: 'a11y', locator: null, before: null, after: { severity: 'critical', count: 1 }, text: 'Images must have alternative text' },
    ],
  }],
};

function parseDay(raw: string, name: string): Date {
  const date = DAY.test(raw) ? new Date(`${raw}T00:00:00Z`) : new Date(NaN);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw) {
    throw new WebperfError('CHANGES_QUERY_INVALID', `${name} must be a date as YYYY-MM-DD (UTC), got "${raw}"`);
  }
  return date;
}

function positive(raw: string, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[1-9][0-9]{0,15}$/.test(raw) || Number(raw) > max) throw new WebperfError('CHANGES_QUERY_INVALID', `${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` of at most ${max}` : ''}, got "${raw}"`);
  return Number(raw);
}

interface Query {
  since?: string;
  until?: string;
  from_run?: string;
  to_run?: string;
  testnums?: string;
  page?: string;
  per_page?: string;
  lang?: string;
}

/** The query as the read takes it; CHANGES_QUERY_INVALID (or TESTNUMS_INVALID) when it is not one. */
export function changesQuery(q: Query, runnable: readonly number[]): ChangesQuery & { page: number; perPage: number } {
  const page = q.page === undefined ? 1 : positive(q.page, 'page');
  const perPage = q.per_page === undefined ? CHANGES_PER_PAGE : positive(q.per_page, 'per_page', CHANGES_MAX_PER_PAGE);
  const types = q.testnums === undefined || q.testnums.trim() === '' ? null : parseTestnums(q.testnums, runnable, []);
  const common = { types, limit: perPage, offset: (page - 1) * perPage, page, perPage };
  const byDate = q.since !== undefined || q.until !== undefined;
  const byRun = q.from_run !== undefined || q.to_run !== undefined;
  if (byDate && byRun) throw new WebperfError('CHANGES_QUERY_INVALID', 'Give either since/until or from_run and to_run, not both');
  if (byRun) {
    if (q.from_run === undefined || q.to_run === undefined) throw new WebperfError('CHANGES_QUERY_INVALID', 'from_run and to_run go together: give both');
    return { kind: 'runs', fromRun: positive(q.from_run, 'from_run'), toRun: positive(q.to_run, 'to_run'), ...common };
  }
  if (byDate) {
    const since = q.since === undefined ? new Date(0) : parseDay(q.since, 'since');
    // until is inclusive: the whole day.
    const until = q.until === undefined ? new Date(8.64e15) : new Date(parseDay(q.until, 'until').getTime() + 86_400_000);
    if (since >= until) throw new WebperfError('CHANGES_QUERY_INVALID', `since (${q.since}) is after until (${q.until})`);
    return { kind: 'range', since, until, ...common };
  }
  return { kind: 'latest', ...common };
}

const sideOut = (s: ResultSide) => ({
  run_id: s.runId,
  result_id: s.resultId,
  test_date: s.testDate.toISOString(),
  url: s.url,
  ratings: { overall: s.rating < 1 ? null : s.rating, ...s.ratings },
});

export function pairOut(p: ChangePair, lang: ReportLang) {
  const from = sideOut(p.from);
  const to = sideOut(p.to);
  const rating = Object.fromEntries((['overall', 'a11y', 'infosec', 'pagespeed', 'webstandard'] as const).map((k) => [k, ratingChange(from.ratings[k], to.ratings[k])]));
  return { type_of_test: p.typeOfTest, from, to, rating_change: rating, findings_known: p.changes !== null, changes: (p.changes ?? []).map((c) => changeJson(c, lang)) };
}

const changes: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  const version = opts.version;
  const schema = premiumDoc(opts, app.deps.config.rateLimitPerMinute);

  app.get<{ Params: { siteId: number }; Querystring: Query }>('/changes/:siteId', {
    schema: schema({
      summary: 'What changed between runs of a website',
      description: [
        'For a website and its test types, the change between two results of a type: the ratings before and after, and the findings added, resolved and changed (another severity or count), so that a drop is explained by what caused it. Costs no credits.',
        'Which pairs: `from_run` and `to_run` (two run ids of this website, e.g. a one-off test against the last public run): per test type present in both, that pair. `since` and/or `until` (dates, YYYY-MM-DD, UTC, both inclusive): every consecutive pair of the website\'s public results of a type whose later result falls in the range, newest first (its earlier result may be older than `since`: it is the one before). Neither: per test type, its latest public result against the one before it ("what changed since the last test"). Only judgements are compared: a result with an error (the page could not be loaded, the test failed, the type was not available on the runner) is left out, and the pair is the judgements either side of it. Dates and run ids together: 400 CHANGES_QUERY_INVALID; a run of another website or no run at all: 404 RUN_NOT_FOUND (ids cannot be probed).',
        '`testnums` (`[30,21]`, `30,21` or `30`, any type of /v1/tests, retired ones too: their results are in the history; as the re-test\'s header, 400 TESTNUMS_INVALID otherwise) keeps only those types. Paginated: `page` (from 1) and `per_page` (default ' + CHANGES_PER_PAGE + ', at most ' + CHANGES_MAX_PER_PAGE + '); `total` is the number of pairs in all.',
        `A finding's identity (\`key\`) is its category, its rule and, for a rule that can fire more than once in a result, what it points at (a header, a cookie, a DNS name, a URL without its volatile query parts). Only problems are compared (critical, error, warning): a passed check or a note coming or going is no change. Noise kept out: a measured finding (a Lighthouse timing or size) within ${VALUE_TOLERANCE * 100} % of the other run's value, or within its unit's floor (${Object.entries(UNIT_FLOOR).map(([u, v]) => `${v} ${u}`).join(', ')}), is no change; in the pagespeed category counts are not compared. Results stored before findings were kept: \`findings_known\` false and no changes.`,
        LANG_DESCRIPTION.replace('(check_report*)', '(the changes\' text)'),
        ACCESS,
        'timestamp is the latest later result\'s test_date in data, or the time of the request when data is empty. Answers carry a strong `ETag` (and `Cache-Control: private, no-cache`); a request whose `If-None-Match` names the current ETag gets 304 Not Modified without a body, after the same key and access checks.',
      ].join('\n\n'),
      params: { type: 'object', properties: { siteId: SITE_ID_PARAM }, required: ['siteId'] },
      querystring: {
        type: 'object',
        properties: {
          since: { type: 'string', description: 'YYYY-MM-DD (UTC), inclusive' },
          until: { type: 'string', description: 'YYYY-MM-DD (UTC), inclusive' },
          from_run: { type: 'string', description: 'A run id of this website' },
          to_run: { type: 'string', description: 'A run id of this website' },
          testnums: { type: 'string', description: 'Test types: `[30,21]`, `30,21` or `30`; all when absent' },
          page: { type: 'string', description: 'From 1 (default 1)' },
          per_page: { type: 'string', description: `Default ${CHANGES_PER_PAGE}, at most ${CHANGES_MAX_PER_PAGE}` },
          lang: LANG_QUERY,
        },
      },
      response: {
        200: { ...envelope(PAIR, { total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' } }), example: CHANGES_EXAMPLE },
        304: NOT_MODIFIED,
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
  }, async (request, reply) => {
    const { siteId } = request.params;
    await request.requireSite(siteId);
    // Any type of the catalogue: a retired one has results in the history too.
    const query = changesQuery(request.query, app.deps.registry.testTypes().map((x) => x.id));
    const lang = requestReportLang(request);
    const b = baseUrl(request);
    // Kept as /stats/ is, until the site's results change (the cache's site tag).
    const which = query.kind === 'runs' ? `runs ${query.fromRun} ${query.toRun}` : query.kind === 'range' ? `range ${query.since.getTime()} ${query.until.getTime()}` : 'latest';
    return reply.sendCached(`changes\0${version}\0${b}\0${siteId}\0${which}\0${query.types?.join(',') ?? ''}\0${query.page}\0${query.perPage}\0${lang}`, [`site:${siteId}`], async () => {
      const { total, pairs } = found(await readChanges(app.deps.db, siteId, query), siteId);
      return {
        payload: {
          api_version: version,
          uri: siteUri(b, siteId),
          result_count: pairs.length,
          timestamp: latestIso(pairs.map((p) => p.to.testDate.toISOString()), new Date()),
          total,
          page: query.page,
          per_page: query.perPage,
          data: pairs.map((p) => pairOut(p, lang)),
        },
        cacheable: pairs.length > 0,
      };
    });
  });
};

export default changes;
