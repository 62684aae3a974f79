import type { OutboxEvent } from '../../domain/outbox-event.ts';

/** Where a read of the event log in creation order starts: at `createdAt`, or just after the event `(createdAt, id)`. */
export interface EventPosition {
  createdAt: number;
  /** When set, events at `createdAt` are read only if their id sorts after this one. */
  afterId?: string;
}

export interface EventRepository {
  append(event: OutboxEvent): Promise<void>;
  get(organizationId: string, id: string): Promise<OutboxEvent | null>;
  /**
   * Newest first; `startingAfter` is the id of the last event of the previous page. With
   * `generationId`, only the events reporting that generation (an index on it serves them).
   */
  list(
    organizationId: string,
    options: { limit: number; startingAfter?: string; type?: string; generationId?: string },
  ): Promise<OutboxEvent[]>;
  /**
   * Oldest first (by `createdAt`, then `id`): the organization's events from `from` on, only of
   * `types` when given (an empty list matches nothing), at most `limit`. The event stream polls
   * with it, so it must be served by an index on (organization, created_at, id).
   */
  since(
    organizationId: string,
    options: { from: EventPosition; types?: readonly string[]; limit: number },
  ): Promise<OutboxEvent[]>;
}
