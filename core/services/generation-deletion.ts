import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import { generationImagesPrefix, uploadPrefix } from '../domain/blob-keys.ts';
import type { QueuedJob } from '../domain/job.ts';
import type { DeletionReason } from '../domain/generation.ts';
import type { Logger } from '../logger.ts';
import type { JobRunContext } from '../metrics/job-outcome.ts';
import { outageRetryDelay, PostponeJob } from '../ports/job-queue.ts';
import type { MarkedDeletion, Repositories } from '../ports/persistence/index.ts';
import type { Visibility } from '../ports/image-cdn.ts';
import { refundGeneration } from './refund-generation.ts';
import type { DeleteGenerations } from './visitors.ts';
import { describeStorageError } from './storage-errors.ts';

/** The job that deletes deleted generations' images and uploaded photos from storage (see `purgeGenerationImages`). */
export const purgeImagesJobKind = 'purge_generation_images';

export interface PurgeImagesJobPayload {
  organizationId: string;
  generationIds: string[];
}

/** Ids one `markDeleted` call is given, at most (one SQL `in` list). */
const markBatchSize = 500;

/** Generations whose images one purge job deletes, at most: a large deletion becomes several short jobs. */
export const purgeBatchSize = 100;

export interface GenerationDeletion {
  organizationId: string;
  /** One or many; duplicates, unknown ids, other organizations' and already deleted ones are skipped. */
  generationIds: readonly string[];
  reason: DeletionReason;
}

export interface GenerationDeletionOutcome {
  /** The generations this call deleted, as they were before (`status: processing` ones were refunded). */
  deleted: MarkedDeletion[];
  /** Credits given back, for generations deleted while `processing`. */
  refunded: number;
}

/**
 * Deletes one or many generations of an organization inside `tx`, the caller's transaction: the
 * one function every deletion goes through (`DELETE /v1/generations/{id}`, the dashboard's admin,
 * the render retention sweep, a visitor's erasure). After the transaction commits, call
 * `queue.notify()` so the images go at once.
 *
 * In that transaction, for each generation of `organizationId` among `generationIds` that is not
 * deleted yet:
 * - its row becomes a tombstone (`GenerationRepository.markDeleted`): `deleted_at` and `reason`
 *   set, everything personal scrubbed (photo reference, products, hint, metadata, image URLs,
 *   error message, visitor and session ids). Reads and lists treat it as gone: GET answers 404
 *   (410 `generation_expired` for `expired`), a replay of its idempotency key 410, the widget's
 *   GET 404. Its id, organization, store, widget, mode, size, credits and times stay, so the
 *   ledger, daily counts and widget caps are unchanged;
 * - one still `processing` becomes `failed` (no render can complete it: the worker checks before
 *   publishing, and a render committing at the same moment finds it no longer `processing` and
 *   deletes what it stored) and its credits are refunded as a `generation_refund` ledger entry. A
 *   `complete` or `failed` one is not refunded (a failed one was refunded when it failed);
 * - a durable purge job is queued (`purge_generation_images`, one per 100 generations) that
 *   deletes everything under `gen/{id}/` (the original and every variant of every run) and the
 *   uploaded photo under `uploads/{id}/`, idempotently, waiting out storage outages. For one
 *   deleted while `processing` a second purge is queued `render.strayImagesAfterMs` later, for a
 *   render that passed its check and died after storing images.
 *
 * Any number of ids may be given; they are marked 500 at a time within `tx`. A very large
 * erasure is better split into several transactions of a few hundred (as the retention sweep
 * does), so no transaction holds its locks long.
 *
 * So a crash anywhere leaves either nothing done (rolled back) or the tombstone with its purge
 * job, which runs, and runs again after a crash, until the images are gone. Events already in the
 * outbox keep their bodies (with URLs that now answer 404); no event is emitted for a deletion.
 */
export async function deleteGenerationsIn(
  tx: Repositories,
  { ids, clock, queue, config }: Pick<Ports, 'ids' | 'clock' | 'queue'> & { config: Config },
  { organizationId, generationIds, reason }: GenerationDeletion,
): Promise<GenerationDeletionOutcome> {
  const at = clock.now();
  const unique = [...new Set(generationIds)];
  const deleted: MarkedDeletion[] = [];
  // Each call's ids are one SQL `in` list: bounded, whatever the caller hands in.
  for (let start = 0; start < unique.length; start += markBatchSize) {
    deleted.push(
      ...(await tx.generations.markDeleted(organizationId, unique.slice(start, start + markBatchSize), { at, reason })),
    );
  }
  let refunded = 0;
  const wereProcessing: string[] = [];
  for (const generation of deleted) {
    if (generation.status !== 'processing') continue;
    wereProcessing.push(generation.id);
    refunded += generation.creditsCharged;
    await refundGeneration(tx, { ...generation, organizationId }, { ledgerEntryId: ids.id('cle_'), at });
  }
  const purge = async (generationIds: string[], runAt: number) => {
    for (let start = 0; start < generationIds.length; start += purgeBatchSize) {
      const payload: PurgeImagesJobPayload = {
        organizationId,
        generationIds: generationIds.slice(start, start + purgeBatchSize),
      };
      await queue.enqueue(tx, { kind: purgeImagesJobKind, payload, runAt, createdAt: at });
    }
  };
  await purge(
    deleted.map((generation) => generation.id),
    at,
  );
  await purge(wereProcessing, at + config.render.strayImagesAfterMs);
  return { deleted, refunded };
}

export type PurgeGenerationImages = ReturnType<typeof purgeGenerationImages>;

/**
 * The purge job: deletes every object under `gen/{id}/` (public) and `uploads/{id}/` (private) of
 * each deleted generation in its payload. Deleting is idempotent (a missing object is fine), so a
 * run cut short by a crash is simply run again; storage failing postpones it (at most a minute
 * apart) for as long as it fails, never giving it up. A generation that is not deleted (a
 * payload that names a live one) is left alone.
 */
export function purgeGenerationImages({
  persistence,
  cdn,
  logger,
}: Pick<Ports, 'persistence' | 'cdn'> & { logger: Logger }) {
  async function deleteUnder(prefix: string, visibility: Visibility): Promise<number> {
    const keys: string[] = [];
    for await (const { key } of cdn.list(prefix, visibility)) keys.push(key);
    await Promise.all(keys.map((key) => cdn.delete(key, visibility)));
    return keys.length;
  }

  /** Called outside the queue (a test), it may get no context. */
  return async function handle(job: QueuedJob, context: Partial<Pick<JobRunContext, 'logger'>> = {}): Promise<void> {
    const log: Logger = context.logger ?? logger;
    const { organizationId, generationIds } = job.payload as PurgeImagesJobPayload;
    let objects = 0;
    for (const generationId of generationIds) {
      if (!(await persistence.generations.tombstone(organizationId, generationId))) {
        log.warn('purge skipped a generation that is not deleted', { generationId });
        continue;
      }
      try {
        objects += await deleteUnder(generationImagesPrefix(generationId), 'public');
        objects += await deleteUnder(`${uploadPrefix}${generationId}/`, 'private');
      } catch (error) {
        // The error's code, not its message, which names the file or key (an uploaded photo's).
        const cause = describeStorageError(error);
        log.warn("deleting a deleted generation's images postponed: image storage failed", {
          generationId,
          error: cause,
        });
        throw new PostponeJob(outageRetryDelay(job.attempts), `image storage failed: ${cause}`);
      }
    }
    if (objects > 0)
      log.info('deleted the images of deleted generations', { generations: generationIds.length, objects });
  };
}

/** How an erasure deletes the visitor's generations: as DELETE /v1/generations/{id} does, as `erased`. */
export function erasureDeletesGenerations(
  deps: Pick<Ports, 'ids' | 'clock' | 'queue'> & { config: Config },
): DeleteGenerations {
  return async (tx, organizationId, generationIds) =>
    void (await deleteGenerationsIn(tx, deps, { organizationId, generationIds, reason: 'erased' }));
}
