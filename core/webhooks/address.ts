/**
 * The rules of a webhook's receiving address, shared by the API (PUT /webhook/) and the portal.
 */
import { WebperfError, isWebperfError } from '../errors.js';
import type { TargetGuard } from '../net/target-guard.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The address as stored, or 400: public http(s) without credentials (the guard, at set time). */
export async function checkWebhookAddress(guard: TargetGuard, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WebperfError('WEBHOOK_URL_INVALID', `The webhook address is not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebperfError('WEBHOOK_URL_INVALID', 'The webhook address must be http or https');
  if (url.username || url.password) throw new WebperfError('WEBHOOK_URL_INVALID', 'The webhook address must not carry credentials');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) throw new WebperfError('WEBHOOK_URL_INVALID', `The webhook address is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  try {
    await guard.assertUrl(url.href);
  } catch (err) {
    if (isWebperfError(err) && err.code === 'TARGET_UNREACHABLE') throw new WebperfError('WEBHOOK_URL_INVALID', `The webhook host ${url.hostname} could not be resolved`);
    if (isWebperfError(err) && err.code === 'TARGET_BLOCKED') throw new WebperfError('TARGET_BLOCKED', `${err.message}: a webhook address must be public`);
    throw err;
  }
  return url.href;
}
