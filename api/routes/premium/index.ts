/**
 * Premium routes, registered twice by buildApp: without a version segment (the latest version
 * answers) and under /0.1. `opts.version` is the version reached, reported as api_version.
 */
import type { FastifyPluginAsync } from 'fastify';
import results from './results.js';
import orders from './orders.js';

export interface PremiumOptions {
  /** The version reached, e.g. '0.1'. */
  version: string;
  /** Hide this copy from the OpenAPI document (the /0.1 copy is described, not repeated). */
  hidden: boolean;
}

const premium: FastifyPluginAsync<PremiumOptions> = async (app, opts) => {
  await app.register(results, opts);
  await app.register(orders, opts);
};

export default premium;
