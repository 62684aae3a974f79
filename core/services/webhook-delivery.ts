import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import type { Logger } from '../logger.ts';
import { activeSecrets } from '../domain/webhook-secrets.ts';
import { signatureHeader } from '../domain/webhook-signature.ts';
import { RetryJob, type JobContext } from '../ports/job-queue.ts';
import type { JobRunContext, ReportedOutcome } from '../metrics/job-outcome.ts';
import { slotLeaseMs, slotOrPostpone } from './cluster-slots.ts';
import type { DeliveryRecord } from '../domain/delivery.ts';
import type { QueuedJob } from '../domain/job.ts';
import type { OutboxEvent } from '../domain/outbox-event.ts';
import type { WebhookEndpointRecord } from '../domain/webhook-endpoint.ts';
import type { Repositories } from '../ports/persistence/index.ts';

export const deliverJobKind = 'deliver_webhook';

interface DeliverJobPayload {
  deliveryId: string;
}

/**
 * Appends an event to the outbox and, in the same transaction, one delivery (and its job) per
 * enabled endpoint subscribed to it: if the change that caused the event commits, its deliveries
 * exist; if it rolls back, none do.
 */
export async function emitEvent(
  tx: Repositories,
  deps: Pick<Ports, 'ids' | 'queue'> & { config: Config },
  event: OutboxEvent,
): Promise<number> {
  await tx.events.append(event);
  const endpoints = await tx.webhookEndpoints.subscribedTo(event.organizationId, event.type);
  for (const endpoint of endpoints) await scheduleDelivery(tx, deps, event, endpoint, event.createdAt);
  return endpoints.length;
}

export async function scheduleDelivery(
  tx: Repositories,
  { ids, config, queue }: Pick<Ports, 'ids' | 'queue'> & { config: Config },
  event: OutboxEvent,
  endpoint: WebhookEndpointRecord,
  now: number,
) {
  const firstAt = now + config.webhooks.retrySchedule[0]!;
  const delivery: DeliveryRecord = {
    id: ids.id('whd_'),
    eventId: event.id,
    endpointId: endpoint.id,
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: firstAt,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
  await tx.deliveries.create(delivery);
  await queue.enqueue(tx, {
    kind: deliverJobKind,
    payload: { deliveryId: delivery.id } satisfies DeliverJobPayload,
    runAt: firstAt,
    createdAt: now,
  });
  return delivery;
}

/** ±20 % so that many deliveries failing together do not retry together. */
const jitter = (delay: number) => Math.round(delay * (0.8 + Math.random() * 0.4));

/** A delivery that found its endpoint's slots all taken comes back after about this. */
const endpointBusyWaitMs = 1_000;

export type DeliverWebhook = ReturnType<typeof deliverWebhook>;

/** The worker's side of a delivery: one signed attempt, logged, then success, retry or failure. */
export function deliverWebhook({
  persistence,
  transport,
  ids,
  clock,
  config,
  logger,
  limits,
}: Pick<Ports, 'persistence' | 'transport' | 'ids' | 'clock' | 'limits'> & { config: Config; logger: Logger }) {
  // A slow receiver gets a few connections from the whole cluster, not every worker's.
  const endpointSlots = limits.concurrency('webhook-endpoint', config.webhooks.maxConcurrentPerEndpoint, slotLeaseMs);
  const schedule = config.webhooks.retrySchedule;

  async function abandon(delivery: DeliveryRecord, reason: string): Promise<ReportedOutcome> {
    await persistence.deliveries.update({
      ...delivery,
      status: 'failed',
      nextAttemptAt: null,
      lastError: reason,
      updatedAt: clock.now(),
    });
    return 'abandoned';
  }

  /** Called outside the queue (a test), its context may have no logger of its own. */
  return async function handle(
    job: QueuedJob,
    context: JobContext & Partial<Pick<JobRunContext, 'logger'>>,
  ): Promise<ReportedOutcome | undefined> {
    const log = context.logger ?? logger;
    const { deliveryId } = job.payload as DeliverJobPayload;
    const found = await persistence.deliveries.forAttempt(deliveryId);
    if (found?.delivery.status !== 'pending') return undefined;
    const { delivery, endpoint, event } = found;
    if (!endpoint || endpoint.deleted || endpoint.status !== 'enabled') return abandon(delivery, 'endpoint_disabled');
    if (!event) return abandon(delivery, 'event_missing');

    const slot = await slotOrPostpone(endpointSlots, endpoint.id, job, {
      waitMs: endpointBusyWaitMs,
      what: 'webhook delivery',
      logger: log,
    });
    let outcome;
    const attemptedAt = clock.now();
    try {
      const timestamp = Math.floor(attemptedAt / 1000);
      // Encoded once: the signature covers exactly the bytes sent.
      const body = Buffer.from(event.body, 'utf8');
      outcome = await transport.send({
        url: endpoint.url,
        headers: {
          'content-type': 'application/json',
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(activeSecrets(endpoint, attemptedAt), event.id, timestamp, body),
        },
        body,
        timeoutMs: config.webhooks.timeoutMs,
      });
    } finally {
      await slot.release();
    }

    const attemptCount = delivery.attemptCount + 1;
    const succeeded = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const gone = outcome.status === 410;
    let delay: number | null = null;
    if (!succeeded && !gone && attemptCount < schedule.length) {
      delay = jitter(schedule[attemptCount]!);
      if ((outcome.status === 429 || outcome.status === 503) && outcome.retryAfterMs !== null) {
        delay = Math.max(delay, Math.min(outcome.retryAfterMs, config.webhooks.maxRetryAfterMs));
      }
    }
    const now = clock.now();
    const lastError = succeeded ? null : (outcome.error ?? `HTTP ${outcome.status}`);
    await persistence.transaction(async (tx) => {
      await tx.deliveries.recordAttempt({
        id: ids.id('wha_'),
        deliveryId,
        attemptedAt,
        statusCode: outcome.status,
        error: outcome.error,
        durationMs: outcome.durationMs,
        responseBody: outcome.responseBody,
      });
      await tx.deliveries.update({
        ...delivery,
        attemptCount,
        status: succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending',
        nextAttemptAt: delay === null ? null : now + delay,
        lastError,
        updatedAt: now,
      });
      // Only a change of health is written; the common case (healthy stays healthy) costs nothing.
      if (succeeded && endpoint.failingSince !== null) await tx.webhookEndpoints.markHealthy(endpoint.id);
      if (!succeeded && endpoint.failingSince === null) await tx.webhookEndpoints.markFailing(endpoint.id, attemptedAt);
      // 410 Gone is the receiver saying it will never want these again.
      if (gone) await tx.webhookEndpoints.disable(endpoint.id, 'gone', now);
      if (delay === null) await context.completeIn(tx);
    });
    if (gone) log.warn('webhook endpoint disabled: it answered 410 Gone', { endpointId: endpoint.id });
    if (delay !== null) throw new RetryJob(delay, `attempt ${attemptCount} failed: ${lastError}`);
    return succeeded ? 'delivered' : 'failed';
  };
}
