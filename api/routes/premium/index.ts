/**
 * Premium routes, registered twice by buildApp: without a version segment (the latest version
 * answers) and under /0.1. `opts.version` is the version reached, reported as api_version.
 * Every premium route is rate-limited per api-key (api/plugins/rate-limit.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import rateLimit from '../../plugins/rate-limit.js';
import results from './results.js';
import privateStats from './private-stats.js';
import orders from './orders.js';
import audits from './audits.js';
import lix from './lix.js';
import webhook from './webhook.js';
import whoami from './whoami.js';
import changes from './changes.js';
import type { PremiumOptions } from './options.js';

export type { PremiumOptions } from './options.js';

const premium: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  // First, so that its onRoute hook reaches every premium route (and only those).
  await app.register(rateLimit);
  // The key before the request is validated: 401 comes before a 400 for a bad header or body,
  // and before 403 (the routes check the key's access to the site they name). Not onRequest:
  // the rate limit (a route-level onRequest hook) must count requests with invented keys too.
  app.addHook('preValidation', async (request) => {
    await request.requireKey();
  });
  // Not `opts` itself: it carries buildApp's `prefix`, which the children would add a second time.
  const childOpts: PremiumOptions = { version: opts.version, hidden: opts.hidden };
  await app.register(results, childOpts);
  await app.register(privateStats, childOpts);
  await app.register(orders, childOpts);
  await app.register(audits, childOpts);
  await app.register(lix, childOpts);
  await app.register(webhook, childOpts);
  await app.register(whoami, childOpts);
  await app.register(changes, childOpts);
};

export default premium;
