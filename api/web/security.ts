/**
 * Security headers of every page (@fastify/helmet): a strict Content-Security-Policy that allows
 * only our own stylesheets, scripts and images, no inline script or style, no framing, forms
 * posting only to us. Registered in the pages' scope only: the API and its Swagger UI keep theirs.
 */
import type { FastifyHelmetOptions } from '@fastify/helmet';

export const PAGE_CSP = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
} as const;

export const HELMET_OPTIONS: FastifyHelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: Object.fromEntries(Object.entries(PAGE_CSP).map(([k, v]) => [k, [...v]])) },
  referrerPolicy: { policy: 'same-origin' },
};
