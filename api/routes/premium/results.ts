/**
 * Premium read routes: stats, monthly scores, private results, categories, quota.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { PremiumOptions } from './index.js';

const results: FastifyPluginAsync<PremiumOptions> = async () => {};

export default results;
