/**
 * The agency's analytics CSV (core/analytics-csv.ts, the same stream GET /webanalytics sends):
 * for agency accounts only; a standard account gets 403 ADMIN_REQUIRED like a standard key.
 */
import type { FastifyPluginAsync } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { sendAnalyticsCsv } from '../../routes/webanalytics.js';
import { PORTAL, requireUser } from './common.js';

const agency: FastifyPluginAsync = async (app) => {
  const { db } = app.deps;
  app.get(`${PORTAL}/webanalytics.csv`, async (request, reply) => {
    const user = requireUser(request);
    if (user.level !== 'agency') throw new WebperfError('ADMIN_REQUIRED', 'The analytics CSV is for agency accounts');
    return sendAnalyticsCsv(reply, db);
  });
};

export default agency;
