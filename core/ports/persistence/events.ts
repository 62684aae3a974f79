import type { OutboxEvent } from '../../domain/outbox-event.ts';

export interface EventRepository {
  append(event: OutboxEvent): Promise<void>;
  get(organizationId: string, id: string): Promise<OutboxEvent | null>;
  /** Newest first; `startingAfter` is the id of the last event of the previous page. */
  list(organizationId: string, options: { limit: number; startingAfter?: string; type?: string }): Promise<OutboxEvent[]>;
}
