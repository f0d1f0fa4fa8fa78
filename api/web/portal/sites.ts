/**
 * My sites: the list with scores, and per site its trend chart, latest results with reports,
 * quota, orders (re-test, one-off test, audit) with their cost shown before ordering, order
 * history, private results and audits with their files. Orders go through the API's own core
 * functions (parseTestnums / parseOrderUrls, the cost functions, placeOrder / placeAudit), so the
 * rules and the refusals are the API's, word for word.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AUDIT_FILES, CSV_FILE } from '../../../core/audit/summaries.js';
import { WebperfError, isWebperfError } from '../../../core/errors.js';
import { reportLang } from '../../../core/i18n/langs.js';
import {
  AUDIT_CREDITS_PER_PAGE,
  MAX_TEST_ONCE_URLS,
  QUOTA_PERIOD_DAYS,
  RETEST_CREDITS_PER_TEST,
  TEST_ONCE_CREDITS_PER_PAGE,
  auditCost,
  parseOrderUrls,
  parseTestnums,
  quotaExceededMessage,
  retestCost,
  testOnceCost,
} from '../../../core/quota.js';
import { auditQuotaMessage, listAudits, placeAudit, readAuditFile, type AuditFormat } from '../../../core/store/audits.js';
import { listOrders, placeOrder } from '../../../core/store/orders.js';
import { listPrivateTests, listReachableSites, readLatestResults, readMonthlyScores, readPrivateTest, readQuota, readSiteScores } from '../../../core/store/results-read.js';
import { getSite } from '../../../core/store/sites.js';
import { INT4_MAX, parseStrictInt } from '../../request-helpers.js';
import { readChanges } from '../../../core/store/changes-read.js';
import { buildChart } from '../chart.js';
import { CHANGES_SHOWN, changesView } from '../changes.js';
import { translator } from '../i18n/index.js';
import { chooseLang } from '../lang.js';
import { FORM_BYTES, PORTAL, SITE_PARAMS, redirectWith, requireSite, requireUser } from './common.js';

type OrderKind = 'retest' | 'test_once' | 'audit';
const ORDERABLE_FORMATS: readonly AuditFormat[] = ['audit_v2', 'csv'];
const HISTORY = 20;
/** Order statuses that still change (the page's script polls while one is shown). */
export const OPEN_ORDER_STATUSES: readonly string[] = ['queued', 'running'];

/** The allow-list of GET …/orders/status.json. */
const ORDER_STATUS_RESPONSE = {
  type: 'object',
  properties: {
    orders: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'integer' }, status: { type: 'string' }, open: { type: 'boolean' }, label: { type: 'string' }, message: { type: 'string' } },
        required: ['id', 'status', 'open', 'label', 'message'],
      },
    },
  },
  required: ['orders'],
} as const;

/** The order form's fields (a checkbox list arrives as an array). */
interface OrderBody {
  kind: OrderKind;
  testnums?: string | string[];
  urls?: string;
  pages?: string;
  format?: string;
}

/** An order understood: what it holds and what it costs, before anything is placed. */
interface OrderPlan {
  kind: OrderKind;
  credits: number;
  testTypes?: number[];
  urls?: string[];
  pages?: number;
  format?: AuditFormat;
}

const ORDER_SCHEMA = {
  body: {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: ['retest', 'test_once', 'audit'] },
      testnums: { anyOf: [{ type: 'string', maxLength: 20 }, { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 20 } }] },
      urls: { type: 'string', maxLength: 32 * 1024 },
      pages: { type: 'string', maxLength: 20 },
      format: { type: 'string', maxLength: 20 },
      _csrf: { type: 'string', maxLength: 1024 },
    },
    required: ['kind'],
  },
  params: SITE_PARAMS,
} as const;

const sites: FastifyPluginAsync = async (app) => {
  const { db, registry } = app.deps;
  const activeTypes = () => registry.select(null).map((p) => p.meta.id);
  const typeName = (id: number, lang: 'sv' | 'en') => registry.testType(id)?.names[lang] ?? `#${id}`;

  async function existingSite(siteId: number) {
    const site = await getSite(db, siteId);
    if (!site) throw new WebperfError('NOT_FOUND', 'No such site in your account');
    return site;
  }

  /** The order in the form, checked by the API's rules; nothing is written. */
  function planOrder(body: OrderBody, startPage: string): OrderPlan {
    if (body.kind === 'retest') {
      const picked = body.testnums === undefined ? [] : Array.isArray(body.testnums) ? body.testnums : [body.testnums];
      if (picked.length === 0) throw new WebperfError('TESTNUMS_INVALID', 'Choose at least one test type');
      const testTypes = parseTestnums(picked.join(','), registry.ids(), activeTypes());
      return { kind: 'retest', credits: retestCost(testTypes), testTypes };
    }
    if (body.kind === 'test_once') {
      // One address per line in the form; the API's field is comma-separated.
      const urls = parseOrderUrls((body.urls ?? '').split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join(','), startPage);
      return { kind: 'test_once', credits: testOnceCost(urls.length), urls };
    }
    const raw = (body.pages ?? '').trim();
    const pages = parseStrictInt(raw, 1, INT4_MAX);
    if (pages === null) throw new WebperfError('PAGES_INVALID', raw === '' ? 'The pages header (or form field) is required' : undefined);
    const format = (body.format ?? 'audit_v2') as AuditFormat;
    if (!ORDERABLE_FORMATS.includes(format)) throw new WebperfError('AUDIT_FORMAT_INVALID');
    return { kind: 'audit', credits: auditCost(pages), pages, format };
  }

  /** The site page; `problem` re-renders it with a form's error and its status. */
  async function sitePage(request: FastifyRequest, reply: FastifyReply, siteId: number, problem?: { error: WebperfError; form: OrderBody }) {
    requireSite(request, siteId);
    const site = await existingSite(siteId);
    const lang = chooseLang(request);
    const t = translator(lang);
    const [scores, monthly, results, quota, orders, privateTests, audits, changes] = await Promise.all([
      readSiteScores(db, [siteId]),
      readMonthlyScores(db, siteId),
      readLatestResults(db, siteId, reportLang(lang)),
      readQuota(db, siteId),
      listOrders(db, siteId, HISTORY),
      listPrivateTests(db, siteId, null),
      listAudits(db, siteId, HISTORY),
      readChanges(db, siteId, { kind: 'latest', types: null, limit: CHANGES_SHOWN, offset: 0 }),
    ]);
    if (problem) void reply.status(problem.error.status);
    return reply.page('portal/site', {
      title: site.title,
      site,
      scores: scores.get(siteId) ?? null,
      chart: buildChart(monthly?.rows ?? []),
      changes: changesView(changes?.pairs ?? [], lang, (id) => typeName(id, lang)),
      results: (results ?? []).map((r) => ({ ...r, name: typeName(r.typeOfTest, lang) })),
      quota,
      orders: orders.map((o) => ({ ...o, what: orderSummary(o.kind, o.payload, lang) })),
      // While an order is open the history refreshes its statuses in place (static/order-status.js).
      liveOrders: orders.some((o) => OPEN_ORDER_STATUSES.includes(o.status)) ? { url: `${PORTAL}/sites/${siteId}/orders/status.json` } : null,
      privateTests: (privateTests ?? []).slice(0, HISTORY),
      audits: audits.map((a) => ({ ...a, files: a.status === 'done' ? (a.format === 'csv' ? [CSV_FILE] : [...(AUDIT_FILES[a.format as AuditFormat] ?? [])]) : [] })),
      testTypes: activeTypes().map((id) => ({ id, name: typeName(id, lang) })),
      costs: { retest: RETEST_CREDITS_PER_TEST, testOnce: TEST_ONCE_CREDITS_PER_PAGE, audit: AUDIT_CREDITS_PER_PAGE, maxUrls: MAX_TEST_ONCE_URLS, periodDays: QUOTA_PERIOD_DAYS },
      problem: problem ? { code: problem.error.code, message: problem.error.message, kind: problem.form.kind } : null,
      form: problem?.form ?? null,
      t,
    });
  }

  function orderSummary(kind: string, payload: Record<string, unknown>, lang: 'sv' | 'en'): string {
    const t = translator(lang);
    if (kind === 'retest') return t('portal.order.what.retest', { types: ((payload.test_types as number[] | undefined) ?? []).join(', ') });
    if (kind === 'test_once') return t('portal.order.what.testOnce', { count: ((payload.urls as string[] | undefined) ?? []).length });
    return t('portal.order.what.audit', { pages: Number(payload.pages ?? 0), format: String(payload.format ?? '') });
  }

  app.get(`${PORTAL}/`, async (request, reply) => {
    const user = requireUser(request);
    const t = translator(chooseLang(request));
    const list = await listReachableSites(db, user.siteIds);
    const scores = await readSiteScores(db, user.siteIds);
    return reply.page('portal/home', {
      title: t('portal.home.title'),
      agency: user.level === 'agency',
      sites: list.map((s) => ({ ...s, scores: scores.get(s.id) ?? null })),
    });
  });

  app.get<{ Params: { id: number } }>(`${PORTAL}/sites/:id`, { schema: { params: SITE_PARAMS } }, async (request, reply) =>
    sitePage(request, reply, request.params.id));

  app.post<{ Params: { id: number }; Body: OrderBody }>(`${PORTAL}/sites/:id/orders/review`, { bodyLimit: FORM_BYTES, schema: ORDER_SCHEMA }, async (request, reply) => {
    const siteId = request.params.id;
    requireSite(request, siteId);
    const site = await existingSite(siteId);
    const lang = chooseLang(request);
    const t = translator(lang);
    let plan: OrderPlan;
    try {
      plan = planOrder(request.body, site.url);
    } catch (err) {
      if (isWebperfError(err)) return sitePage(request, reply, siteId, { error: err, form: request.body });
      throw err;
    }
    const quota = await readQuota(db, siteId);
    const available = quota?.available ?? 0;
    const fits = plan.credits <= available;
    // The refusal the API would answer, shown before anything is ordered.
    if (!fits) void reply.status(400);
    return reply.page('portal/order-review', {
      title: t('portal.review.title'),
      site,
      plan: { ...plan, testTypes: plan.testTypes?.map((id) => ({ id, name: typeName(id, lang) })) },
      fields: request.body,
      available,
      after: available - plan.credits,
      refusal: fits ? null : { code: 'QUOTA_EXCEEDED', message: plan.kind === 'audit' ? auditQuotaMessage(plan.credits, available) : quotaExceededMessage(plan.credits, available) },
    });
  });

  app.post<{ Params: { id: number }; Body: OrderBody }>(`${PORTAL}/sites/:id/orders`, { bodyLimit: FORM_BYTES, schema: ORDER_SCHEMA }, async (request, reply) => {
    const siteId = request.params.id;
    const user = requireSite(request, siteId);
    const site = await existingSite(siteId);
    const t = translator(chooseLang(request));
    try {
      const plan = planOrder(request.body, site.url);
      let orderId: number;
      if (plan.kind === 'audit') {
        const placed = await placeAudit(db, {
          siteId,
          keyId: null,
          userId: user.id,
          pages: plan.pages!,
          format: plan.format!,
          baseUrl: site.url,
          title: plan.format === 'csv' ? `Accessibility crawl of ${site.title}` : `Audit of ${site.title}`,
        });
        orderId = placed.orderId;
      } else {
        const placed = await placeOrder(db, {
          siteId,
          keyId: null,
          userId: user.id,
          kind: plan.kind,
          credits: plan.credits,
          payload: plan.kind === 'retest'
            ? { url: site.url, test_types: plan.testTypes, testnums: plan.testTypes!.join(',') }
            : { urls: plan.urls, test_types: activeTypes() },
          runs: plan.kind === 'retest'
            ? [{ siteId, url: site.url, private: false, testTypes: plan.testTypes! }]
            : plan.urls!.map((url) => ({ siteId, url, private: true, testTypes: activeTypes() })),
        });
        orderId = placed.orderId;
      }
      return redirectWith(request, reply, `${PORTAL}/sites/${siteId}#orders`, { kind: 'ok', text: t('portal.order.placed', { id: orderId, credits: plan.credits }) });
    } catch (err) {
      if (isWebperfError(err) && err.status < 500) {
        if (err.details?.retryAfter) void reply.header('retry-after', String(err.details.retryAfter));
        return sitePage(request, reply, siteId, { error: err, form: request.body });
      }
      throw err;
    }
  });

  // The order history's live status (static/order-status.js polls it while an order is open): the
  // same listOrders as the page, each status with its label and a sentence for the live region.
  app.get<{ Params: { id: number } }>(`${PORTAL}/sites/:id/orders/status.json`, {
    schema: { params: SITE_PARAMS, response: { 200: ORDER_STATUS_RESPONSE } },
  }, async (request, reply) => {
    const siteId = request.params.id;
    requireSite(request, siteId);
    const t = translator(chooseLang(request));
    const orders = await listOrders(db, siteId, HISTORY);
    return reply.send({
      orders: orders.map((o) => ({
        id: o.id,
        status: o.status,
        open: OPEN_ORDER_STATUSES.includes(o.status),
        label: t(`portal.status.${o.status}`),
        message: o.status === 'done' ? t('portal.orders.liveDone', { id: o.id }) : t('portal.orders.live', { id: o.id, status: t(`portal.status.${o.status}`) }),
      })),
    });
  });

  app.get<{ Params: { id: number; testId: number } }>(`${PORTAL}/sites/:id/private/:testId`, {
    schema: { params: { type: 'object', properties: { ...SITE_PARAMS.properties, testId: { type: 'integer', minimum: 1 } }, required: ['id', 'testId'] } },
  }, async (request, reply) => {
    const { id: siteId, testId } = request.params;
    requireSite(request, siteId);
    const site = await existingSite(siteId);
    const lang = chooseLang(request);
    const t = translator(lang);
    const test = await readPrivateTest(db, siteId, testId, reportLang(lang));
    if (!test) throw new WebperfError('NOT_FOUND', 'No such private test of this site');
    return reply.page('portal/private-test', {
      title: t('portal.private.title', { id: test.id }),
      site,
      test: { ...test, results: test.results.map((r) => ({ ...r, name: typeName(r.typeOfTest, lang) })) },
    });
  });

  app.get<{ Params: { id: number; auditId: number; file: string } }>(`${PORTAL}/sites/:id/audits/:auditId/:file`, {
    schema: { params: { type: 'object', properties: { ...SITE_PARAMS.properties, auditId: { type: 'integer', minimum: 1 }, file: { type: 'string', maxLength: 100 } }, required: ['id', 'auditId', 'file'] } },
  }, async (request, reply) => {
    const { id: siteId, auditId, file } = request.params;
    requireSite(request, siteId);
    // The audit must be this site's and finished, and the file one its format has (never a path).
    const audit = (await listAudits(db, siteId, 1000)).find((a) => a.id === auditId);
    const allowed = audit?.status === 'done' ? (audit.format === 'csv' ? [CSV_FILE] : (AUDIT_FILES[audit.format as AuditFormat] ?? [])) : [];
    if (!audit || !allowed.includes(file)) throw new WebperfError('AUDIT_FILE_NOT_FOUND');
    const found = await readAuditFile(db, audit.id, file);
    if (!found) throw new WebperfError('AUDIT_FILE_NOT_FOUND');
    const textual = found.contentType.startsWith('application/json') || found.contentType.startsWith('text/');
    return reply
      .header('content-type', textual ? `${found.contentType}; charset=utf-8` : found.contentType)
      .header('content-disposition', `attachment; filename="${found.name}"`)
      .send(found.content);
  });
};

export default sites;
