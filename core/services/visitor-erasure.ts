import { setTimeout as sleep } from 'node:timers/promises';
import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import type { Logger } from '../logger.ts';
import type { DeleteGenerations } from './visitors.ts';
import type { QueuedJob } from '../domain/job.ts';
import type { ErasureProgress } from '../domain/visitor-erasure.ts';
import type { JobRunContext } from '../metrics/job-outcome.ts';
import type { Repositories } from '../ports/persistence/index.ts';
import type { EraseVisitorJobPayload } from './visitors.ts';

export type EraseVisitor = ReturnType<typeof eraseVisitor>;

/**
 * The erasure job: deletes a visitor's generations (with their images) and identities, and
 * unlinks its conversions, in bounded batches (`visitorErasures.batchSize`), each batch with its
 * count in a transaction of its own, then completes the erasure, forgetting the visitor's ids,
 * in the transaction that finishes the job.
 *
 * Every batch takes only what is still there, so a run cut short anywhere (a crash, a stop) is
 * resumed by the next run of the job where the last commit left it, and never does anything twice:
 *
 * 1. generations: a batch's session ids are recorded with the erasure in the transaction that
 *    deletes them, so none is lost before the conversions are unlinked by it;
 * 2. identities: the same;
 * 3. conversions with the visitor id: both ids removed, the conversion kept (revenue figures), a
 *    batch's session ids recorded in its transaction (an order reported without the visitor id
 *    may carry one of them);
 * 4. conversions with one of the recorded session ids: the same; a batch of session ids is
 *    forgotten in the transaction that unlinks its last conversions;
 * 5. the erasure is marked complete and its visitor id and any session id left are deleted.
 *
 * Each batch first locks the erasure's pending work (`subject` for update) and stops if it is gone,
 * so a run that outlived its lease while another ran the job never records anything after the
 * completion, and batches of two runs never overlap (on SQLite transactions run one at a time).
 *
 * What arrives for the visitor after a step has passed it (a generation made meanwhile, say) is
 * not erased: the visitor's browser still has its id. A new erasure request takes it.
 */
export function eraseVisitor({
  persistence,
  clock,
  queue,
  config,
  logger,
  deleteGenerations,
}: Pick<Ports, 'persistence' | 'clock' | 'queue'> & {
  config: Config;
  logger: Logger;
  deleteGenerations: DeleteGenerations;
}) {
  const { batchSize, batchPauseMs } = config.visitorErasures;

  /** Called outside the queue (a test), it may get no context. */
  return async function handle(
    job: QueuedJob,
    context: Partial<Pick<JobRunContext, 'logger' | 'signal' | 'completeIn'>> = {},
  ): Promise<void> {
    const log = context.logger ?? logger;
    const { erasureId } = job.payload as EraseVisitorJobPayload;
    const subject = await persistence.visitorErasures.subject(erasureId);
    // Completed already: the run that completed it committed with the job's removal, so this is a
    // stray rerun (an engine that completes jobs apart), with nothing left to do.
    if (!subject) return;
    const { organizationId, visitorId } = subject;
    const done: Required<ErasureProgress> = { generationsDeleted: 0, identitiesDeleted: 0, conversionsUnlinked: 0 };

    /** Runs `batch` in a transaction of its own, with the counts it reports, until it says nothing is left. */
    async function repeat(
      batch: (tx: Repositories) => Promise<{ progress?: ErasureProgress; more: boolean }>,
      afterCommit?: () => void,
    ) {
      for (;;) {
        // A stopping worker gives the job back between batches; the next run resumes here.
        context.signal?.throwIfAborted();
        const { progress, more } = await persistence.transaction(async (tx) => {
          // Still pending, and held so until this batch commits: a run of the job that outlived its
          // lease stops here once another run completed the erasure, rather than record session
          // ids after the completion deleted them.
          if (!(await tx.visitorErasures.subject(erasureId, { forUpdate: true })))
            throw new ErasureCompletedElsewhere();
          const outcome = await batch(tx);
          if (outcome.progress) await tx.visitorErasures.progress(erasureId, outcome.progress);
          return outcome;
        });
        for (const [name, n] of Object.entries(progress ?? {})) done[name as keyof ErasureProgress] += n ?? 0;
        afterCommit?.();
        if (!more) return;
        // Leaves the database to other writers for a moment between batches of a large erasure.
        if (batchPauseMs > 0)
          await sleep(batchPauseMs, undefined, context.signal ? { signal: context.signal } : undefined);
      }
    }

    const sessionIdsOf = (rows: Array<{ sessionId: string | null }>) =>
      rows.flatMap((row) => (row.sessionId ? [row.sessionId] : []));

    /** The steps, in order; each repeats its batch until it finds nothing left. */
    const steps = [
      () =>
        repeat(
          async (tx) => {
            const taken = await tx.visitorData.detachGenerations(organizationId, visitorId, batchSize);
            if (taken.length === 0) return { more: false };
            await tx.visitorErasures.addSessions(erasureId, sessionIdsOf(taken));
            await deleteGenerations(
              tx,
              organizationId,
              taken.map((generation) => generation.id),
            );
            return { progress: { generationsDeleted: taken.length }, more: true };
          },
          // The deletion queued the jobs that delete the images: wake this process's workers for them.
          () => queue.notify(),
        ),
      () =>
        repeat(async (tx) => {
          const deleted = await tx.visitorData.deleteIdentities(organizationId, visitorId, batchSize);
          if (deleted.length === 0) return { more: false };
          await tx.visitorErasures.addSessions(erasureId, sessionIdsOf(deleted));
          return { progress: { identitiesDeleted: deleted.length }, more: true };
        }),
      () =>
        repeat(async (tx) => {
          const unlinked = await tx.visitorData.unlinkConversionsOfVisitor(
            organizationId,
            visitorId,
            batchSize,
            clock.now(),
          );
          if (unlinked.length === 0) return { more: false };
          await tx.visitorErasures.addSessions(erasureId, sessionIdsOf(unlinked));
          return { progress: { conversionsUnlinked: unlinked.length }, more: true };
        }),
      () =>
        repeat(async (tx) => {
          const sessionIds = await tx.visitorErasures.sessions(erasureId, batchSize);
          if (sessionIds.length === 0) return { more: false };
          const unlinked = await tx.visitorData.unlinkConversionsOfSessions(
            organizationId,
            sessionIds,
            batchSize,
            clock.now(),
          );
          // Fewer than a batch: none of these sessions has a linked conversion left.
          if (unlinked < batchSize) await tx.visitorErasures.removeSessions(erasureId, sessionIds);
          return { progress: { conversionsUnlinked: unlinked }, more: true };
        }),
    ];

    try {
      for (const step of steps) await step();
      context.signal?.throwIfAborted();
      await persistence.transaction(async (tx) => {
        if (!(await tx.visitorErasures.complete(erasureId, clock.now()))) throw new ErasureCompletedElsewhere();
        // The job goes with the same commit, so a crash leaves either both or neither.
        await context.completeIn?.(tx);
      });
    } catch (error) {
      if (error instanceof ErasureCompletedElsewhere) return;
      throw error;
    }
    // Counts of this run only (an earlier, interrupted run did the rest); never the visitor's ids.
    log.info('visitor erasure complete', { erasureId, organizationId, ...done });
  };
}

/** Another run of the same job completed the erasure (this one had outlived its lease): nothing is left to do. */
class ErasureCompletedElsewhere extends Error {}
