import type { Ports } from '../ports/index.ts';
import { notFound } from '../domain/errors.ts';
import { visitorAccessLimit, type ErasureRequester, type VisitorErasure } from '../domain/visitor-erasure.ts';
import type { Repositories, VisitorPageOptions } from '../ports/persistence/index.ts';

export type { VisitorPage, VisitorPageOptions } from '../ports/persistence/index.ts';

/** The job that erases a visitor (see `eraseVisitor`, core/services/visitor-erasure.ts). */
export const eraseVisitorJobKind = 'erase_visitor';

/** Nothing about the visitor: the job reads the visitor id from the pending erasure, which forgets it when done. */
export interface EraseVisitorJobPayload {
  erasureId: string;
  organizationId: string;
}

/**
 * Deletes generations of an organization inside the caller's transaction: tombstones with nothing
 * personal left, their images deleted by a durable job queued in the same transaction (see
 * core/services/generation-deletion.ts). The caller calls `queue.notify()` after the commit.
 */
export type DeleteGenerations = (tx: Repositories, organizationId: string, generationIds: string[]) => Promise<void>;

export type VisitorService = ReturnType<typeof visitorService>;

/** What a shop answers a visitor's access and erasure requests with (GDPR Articles 15 and 17). */
export function visitorService({
  persistence,
  ids,
  clock,
  queue,
}: Pick<Ports, 'persistence' | 'ids' | 'clock' | 'queue'>) {
  return {
    /**
     * Everything the organization holds about the visitor: the first `visitorAccessLimit` of each
     * kind, newest first, with the total count of each (a crafted visitor id may have made many
     * generations; the `list…` methods page through the rest), and the erasure of the visitor
     * still under way, if any.
     */
    async access(organizationId: string, visitorId: string) {
      const { visitorData, visitorErasures } = persistence;
      const first = { limit: visitorAccessLimit };
      const [generations, identities, conversions, totals, pendingErasure] = await Promise.all([
        visitorData.generations(organizationId, visitorId, first),
        visitorData.identities(organizationId, visitorId, first),
        visitorData.conversions(organizationId, visitorId, first),
        visitorData.counts(organizationId, visitorId),
        visitorErasures.pendingFor(organizationId, visitorId),
      ]);
      return {
        visitorId,
        limit: visitorAccessLimit,
        generations: { ...generations, total: totals.generations },
        identities: { ...identities, total: totals.identities },
        conversions: { ...conversions, total: totals.conversions },
        pendingErasure,
      };
    },

    /** Each kind of what is held about the visitor, a page at a time: with them a shop hands over a complete copy. */
    listGenerations: (organizationId: string, visitorId: string, page: VisitorPageOptions) =>
      persistence.visitorData.generations(organizationId, visitorId, page),
    listIdentities: (organizationId: string, visitorId: string, page: VisitorPageOptions) =>
      persistence.visitorData.identities(organizationId, visitorId, page),
    listConversions: (organizationId: string, visitorId: string, page: VisitorPageOptions) =>
      persistence.visitorData.conversions(organizationId, visitorId, page),

    /**
     * Records an erasure of the visitor and queues its job, in one transaction; a request for a
     * visitor whose erasure is still pending answers that erasure (`created: false`) instead, and
     * queues its job again if the queue no longer has it (given up after `maxAttempts` failures, or
     * gone), so that asking again is how a stuck erasure is finished.
     */
    async requestErasure(
      organizationId: string,
      visitorId: string,
      requestedBy: ErasureRequester,
    ): Promise<{ erasure: VisitorErasure; created: boolean }> {
      const now = clock.now();
      const erasure: VisitorErasure = {
        id: ids.id('vera_'),
        organizationId,
        status: 'pending',
        requestedBy,
        requestedAt: now,
        completedAt: null,
        generationsDeleted: 0,
        identitiesDeleted: 0,
        conversionsUnlinked: 0,
      };
      const outcome = await persistence.transaction(async (tx) => {
        const requested = await tx.visitorErasures.request(erasure, visitorId);
        const erasureId = requested.erasure.id;
        if (!requested.created) {
          // Held until this transaction ends, so of two requests finding the job gone one queues it
          // again, and the other sees that job; gone means the erasure completed meanwhile.
          if (!(await tx.visitorErasures.subject(erasureId, { forUpdate: true })))
            return { ...requested, queued: false };
          if (await queue.hasUnfinished(tx, eraseVisitorJobKind, { erasureId })) return { ...requested, queued: false };
        }
        const payload: EraseVisitorJobPayload = { erasureId, organizationId };
        await queue.enqueue(tx, { kind: eraseVisitorJobKind, payload, runAt: now, createdAt: now });
        return { ...requested, queued: true };
      });
      if (outcome.queued) queue.notify();
      return { erasure: outcome.erasure, created: outcome.created };
    },

    async getErasure(organizationId: string, id: string) {
      const erasure = await persistence.visitorErasures.get(organizationId, id);
      if (!erasure) throw notFound('visitor erasure', id);
      return erasure;
    },

    listErasures: (organizationId: string, options: { limit: number; startingAfter?: string }) =>
      persistence.visitorErasures.list(organizationId, options),
  };
}
