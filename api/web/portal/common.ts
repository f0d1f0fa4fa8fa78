/**
 * What the portal's route modules share: paths, limits, access checks and the redirect after a form.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebperfError } from '../../../core/errors.js';
import { canReach } from '../../../core/store/keys.js';
import type { PortalUser } from '../../../core/store/users.js';
import type { PortalSessionData } from './session-store.js';

export const PORTAL = '/portal';
export const SESSION_COOKIE = 'webperf_session';
/** A session ends after this long without a request (the cookie is renewed on each one). */
export const SESSION_MAX_AGE_MS = 8 * 3600_000;
/** Sign-in attempts per client address and minute (the account lockout is per account). */
export const SIGN_IN_PER_MINUTE = 20;
/** Largest form the portal accepts. */
export const FORM_BYTES = 64 * 1024;

/** The signed-in user or 401 SIGN_IN_REQUIRED (the error page links to the sign-in form). */
export function requireUser(request: FastifyRequest): PortalUser {
  if (!request.portalUser) throw new WebperfError('SIGN_IN_REQUIRED');
  return request.portalUser;
}

/**
 * The user and a site they reach, or 404 — also for a site that exists but is not theirs, so
 * that another account learns nothing about it. Access is decided by the API's `canReach`.
 */
export function requireSite(request: FastifyRequest, siteId: number): PortalUser {
  const user = requireUser(request);
  if (!canReach(user, siteId)) throw new WebperfError('NOT_FOUND', 'No such site in your account');
  return user;
}

/** Redirects after a POST (303: the browser follows with GET), with a message for the next page. */
export function redirectWith(request: FastifyRequest, reply: FastifyReply, to: string, flash?: PortalSessionData['flash']): FastifyReply {
  if (flash) request.session.flash = flash;
  return reply.redirect(to, 303);
}

/** Route schema of a portal site id in the path: a positive int4. */
export const SITE_PARAMS = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } },
  required: ['id'],
} as const;

