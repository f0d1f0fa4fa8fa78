/**
 * The agency's analytics CSV (core/analytics-csv.ts, the same stream GET /webanalytics sends):
 * for agency accounts only; a standard account gets 403 ADMIN_REQUIRED like a standard key.
 */
import type { FastifyPluginAsync } from 'fastify';
import { analyticsCsv } from '../../../core/analytics-csv.js';
import { WebperfError } from '../../../core/errors.js';
import { streamAnalyticsSites } from '../../../core/store/webanalytics.js';
import { PORTAL, requireUser } from './common.js';

const agency: FastifyPluginAsync = async (app) => {
  const { db } = app.deps;
  app.get(`${PORTAL}/webanalytics.csv`, async (request, reply) => {
    const user = requireUser(request);
    if (user.level !== 'agency') throw new WebperfError('ADMIN_REQUIRED', 'The analytics CSV is for agency accounts');
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="webanalytics-${day}.csv"`)
      .send(analyticsCsv(streamAnalyticsSites(db)));
  });
};

export default agency;
