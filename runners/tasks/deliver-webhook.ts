/**
 * Task deliver_webhook: one attempt of one queued webhook delivery. What follows a failure (the
 * next attempt at run_at, disabling) is recorded in one transaction by core/store/webhooks.ts.
 * Runs in its own job, so delivery never blocks or slows the test runner.
 */
import type { Task } from 'graphile-worker';
import type { Db } from '../../core/db/database.js';
import { recordWebhookAttempt } from '../../core/metrics.js';
import type { TargetGuard } from '../../core/net/target-guard.js';
import { loadPendingDelivery, recordDeliveryAttempt, retryDelayMs, type DeliveryJob } from '../../core/store/webhooks.js';
import { sendWebhook, WEBHOOK_TIMEOUT_MS } from '../../core/webhooks/send.js';

declare global {
  namespace GraphileWorker {
    interface Tasks {
      deliver_webhook: DeliveryJob;
    }
  }
}

export interface DeliverWebhookDeps {
  db: Db;
  guard: TargetGuard;
  /** Default 10 s. */
  webhookTimeoutMs?: number;
  /** Delay before the next attempt; default the store's exponential schedule with jitter. */
  webhookRetryDelayMs?: (attempt: number) => number | null;
}

function isPayload(p: unknown): p is DeliveryJob {
  if (typeof p !== 'object' || p === null) return false;
  const { deliveryId, attempt } = p as { deliveryId?: unknown; attempt?: unknown };
  return Number.isInteger(deliveryId) && (attempt === undefined || Number.isInteger(attempt));
}

export function deliverWebhookTask(deps: DeliverWebhookDeps): Task<'deliver_webhook'> {
  return async (payload, helpers) => {
    // Old or SQL-added jobs may not match the declared type: check at run time.
    if (!isPayload(payload)) throw new Error(`deliver_webhook: invalid payload ${JSON.stringify(payload)}`);
    const delivery = await loadPendingDelivery(deps.db, payload.deliveryId);
    if (!delivery) return;
    // This job's attempt is recorded already: the job runs again because the record of its end
    // was lost (a database outage); sending now would come early and queue a second next attempt.
    if (payload.attempt !== undefined && delivery.attempts >= payload.attempt) {
      helpers.logger.info(`webhook delivery ${delivery.id} attempt ${payload.attempt}: made already, nothing sent`);
      return;
    }
    const outcome = await sendWebhook(deps.guard, delivery.url, delivery, deps.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS);
    const delay = (deps.webhookRetryDelayMs ?? retryDelayMs)(delivery.attempts + 1);
    const state = await recordDeliveryAttempt(deps.db, delivery, outcome, delay);
    recordWebhookAttempt(state, outcome.durationMs);
    // The address is the owner's; it is not logged, only the delivery and what became of it.
    helpers.logger.info(`webhook delivery ${delivery.id} attempt ${delivery.attempts + 1}: ${state}${outcome.error ? ` (${outcome.error})` : ''}`);
  };
}
