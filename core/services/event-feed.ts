import type { OutboxEvent } from '../domain/outbox-event.ts';
import type { Clock } from '../ports/clock.ts';
import type { EventPosition, EventRepository } from '../ports/persistence/events.ts';

export interface EventFeedOptions {
  /** Only these types; every type when absent. */
  types?: readonly string[];
  /** Resume just after this event (a stream's `Last-Event-ID`); from now when absent. */
  after?: OutboxEvent;
  /**
   * How far before the previous read each read looks again. Events are stamped when their
   * transaction writes them but become visible when it commits, so one stamped earlier can appear
   * after a later one; it is still sent if it commits within this long.
   */
  overlapMs: number;
  /** Events per query. */
  pageSize: number;
  /** Most event ids remembered as sent; past it the oldest are forgotten (and could be sent again). */
  maxRemembered: number;
}

export type EventFeed = ReturnType<typeof eventFeed>;

/**
 * One organization's event log as it grows, read by polling: each `poll()` yields, page by page
 * and in creation order, the events that appeared since the previous poll, each once. The first
 * poll only notes what already exists (and, when resuming, yields everything after `after`).
 */
export function eventFeed(
  events: Pick<EventRepository, 'since'>,
  clock: Clock,
  organizationId: string,
  options: EventFeedOptions,
) {
  const { types, after, overlapMs, pageSize, maxRemembered } = options;
  /** Ids already yielded or already there at the start, with their creation time, oldest first (roughly). */
  const seen = new Map<string, number>();
  /** When the previous read began; events stamped later than (that − overlap) may still be unseen. */
  let previousRead: number | null = null;

  function remember(event: OutboxEvent) {
    seen.set(event.id, event.createdAt);
    if (seen.size > maxRemembered) seen.delete(seen.keys().next().value!);
  }

  /** Every event from `from` on, a page at a time, so memory holds one page whatever the backlog. */
  async function* pages(from: EventPosition): AsyncGenerator<OutboxEvent[]> {
    for (;;) {
      const page = await events.since(organizationId, { from, types, limit: pageSize });
      if (page.length) yield page;
      if (page.length < pageSize) return;
      const last = page.at(-1)!;
      from = { createdAt: last.createdAt, afterId: last.id };
    }
  }

  return {
    async *poll(): AsyncGenerator<OutboxEvent[]> {
      const startedAt = clock.now();
      const first = previousRead === null;
      const windowStart = (first ? startedAt : previousRead!) - overlapMs;
      previousRead = startedAt;

      if (first) {
        // What is already there is not news; only ids later reads could meet again are kept.
        for await (const page of pages({ createdAt: windowStart })) for (const event of page) remember(event);
        // Resuming: everything after the last event the client had, even what was just noted above.
        // Positions are compared by the database, whose id order is the one `since` pages by.
        if (after) {
          for await (const page of pages({ createdAt: after.createdAt, afterId: after.id })) {
            for (const event of page) remember(event);
            yield page;
          }
        }
      } else {
        for await (const page of pages({ createdAt: windowStart })) {
          const fresh = page.filter((event) => !seen.has(event.id));
          for (const event of fresh) remember(event);
          if (fresh.length) yield fresh;
        }
      }

      // The next read starts at (this read's start − overlap): older ids cannot come back.
      const keepFrom = startedAt - overlapMs;
      for (const [id, createdAt] of seen) if (createdAt < keepFrom) seen.delete(id);
    },
  };
}
