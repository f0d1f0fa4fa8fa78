/**
 * Sends one signed webhook request (Standard Webhooks: webhook-id, webhook-timestamp,
 * webhook-signature v1 HMAC-SHA256 with each active secret). The address passes the target guard
 * on every attempt, at connect time (DNS rebinding); redirects are not followed; the whole
 * exchange is limited by an AbortSignal timeout.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { TargetGuard } from '../net/target-guard.js';
import type { AttemptOutcome } from '../store/webhooks.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_USER_AGENT = 'webperf-webhooks/1.0';

export interface SignedMessage {
  eventId: string;
  payload: string;
  secrets: readonly string[];
}

/** The three Standard Webhooks headers; one `v1,` signature per secret, space-separated. */
export function signatureHeaders(msg: SignedMessage, now = new Date()): Record<string, string> {
  return {
    'webhook-id': msg.eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': msg.secrets.map((s) => new Webhook(s).sign(msg.eventId, now, msg.payload)).join(' '),
  };
}

/** POSTs the message; never throws: a refused or failed attempt is an outcome with an error. */
export async function sendWebhook(guard: TargetGuard, rawUrl: string, msg: SignedMessage, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    // The whole check (scheme, internal names, every address of the name) on every attempt; the
    // guarded lookup below checks again the address actually connected (DNS rebinding).
    const url = await guard.assertUrl(rawUrl);
    const status = await post(guard, url, msg, AbortSignal.timeout(timeoutMs));
    return { status, error: status >= 200 && status < 300 ? null : `HTTP ${status}`, durationMs: elapsed() };
  } catch (err) {
    const e = err as Error;
    const message = e.name === 'TimeoutError' || e.name === 'AbortError' ? `No answer within ${timeoutMs / 1000} s` : e.message;
    return { status: null, error: message, durationMs: elapsed() };
  }
}

function post(guard: TargetGuard, url: URL, msg: SignedMessage, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(msg.payload, 'utf8');
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'POST',
      lookup: guard.lookupFor(url) as any,
      ...(url.protocol === 'https:' ? { secureContext: guard.trust.secureContext(), agent: guard.trust.httpsAgent } : {}),
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': WEBHOOK_USER_AGENT,
        ...signatureHeaders(msg),
      },
    } as https.RequestOptions, (res) => {
      // Only the status matters; the body is drained (up to the timeout) and dropped. A 3xx is
      // a failure: redirects are not followed.
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
