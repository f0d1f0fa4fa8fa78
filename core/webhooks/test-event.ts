/**
 * A test event, sent now (POST /webhook/test and the portal's "send a test event"): signed and
 * guarded exactly like a delivery, never retried, recorded among the deliveries as kind "test".
 */
import type { Db } from '../db/database.js';
import { WebperfError } from '../errors.js';
import type { TargetGuard } from '../net/target-guard.js';
import { buildTestPayload, currentSigningSecrets, newEventId, recordTestDelivery } from '../store/webhooks.js';
import { sendWebhook } from './send.js';

export interface TestEventOutcome {
  eventId: string;
  delivered: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** Sends the site's test event; WEBHOOK_NOT_FOUND when the site has no webhook. */
export async function sendTestEvent(db: Db, guard: TargetGuard, siteId: number): Promise<TestEventOutcome> {
  const built = await buildTestPayload(db, siteId);
  const secrets = await currentSigningSecrets(db, siteId);
  if (!built || !secrets) throw new WebperfError('WEBHOOK_NOT_FOUND');
  const eventId = newEventId();
  const payload = JSON.stringify(built.payload);
  const outcome = await sendWebhook(guard, built.url, { eventId, payload, secrets });
  await recordTestDelivery(db, siteId, eventId, built.url, built.typeOfTest, payload, outcome);
  return { eventId, delivered: outcome.error === null, status: outcome.status, error: outcome.error, durationMs: outcome.durationMs };
}
