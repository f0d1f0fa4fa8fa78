/**
 * Premium orders: re-test, one-off tests, LIX.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { PremiumOptions } from './index.js';

const orders: FastifyPluginAsync<PremiumOptions> = async () => {};

export default orders;
