import type { DeliveryAttempt, DeliveryRecord } from '../../domain/delivery.ts';
import type { OutboxEvent } from '../../domain/outbox-event.ts';
import type { WebhookEndpointRecord } from '../../domain/webhook-endpoint.ts';

/** Everything one delivery attempt needs, read together. */
export interface DeliveryForAttempt {
  delivery: DeliveryRecord;
  /** Deleted endpoints too (`deleted: true`): the worker abandons their deliveries. */
  endpoint: (WebhookEndpointRecord & { deleted: boolean }) | null;
  /** Null only if the event is gone or belongs to another organization than the endpoint. */
  event: OutboxEvent | null;
}

export interface DeliveryRepository {
  create(delivery: DeliveryRecord): Promise<void>;
  /** The delivery with its endpoint and event, in one read, for the worker. */
  forAttempt(id: string): Promise<DeliveryForAttempt | null>;
  forEvent(eventId: string): Promise<DeliveryRecord[]>;
  update(delivery: DeliveryRecord): Promise<void>;
  recordAttempt(attempt: DeliveryAttempt): Promise<void>;
  /** Every attempt at the event's deliveries, oldest first, with the endpoint each went to. */
  attemptsForEvent(eventId: string): Promise<Array<DeliveryAttempt & { endpointId: string }>>;
}
