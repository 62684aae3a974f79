import type { Ports } from '../ports/index.ts';
import { generationImagesPrefix } from '../domain/blob-keys.ts';
import { outageRetryDelay, PostponeJob } from '../ports/job-queue.ts';
import type { QueuedJob } from '../domain/job.ts';
import type { Logger } from '../logger.ts';
import type { JobRunContext } from '../metrics/job-outcome.ts';

/** The job that deletes a terminal generation's stray images (see `sweepStrayImages`). */
export const strayImagesJobKind = 'delete_stray_images';

export interface StrayImagesJobPayload {
  generationId: string;
  organizationId: string;
}

export type SweepStrayImages = ReturnType<typeof sweepStrayImages>;

/**
 * Each run of a render stores its images under a fresh random folder and then commits. A run that
 * dies or fails between the two leaves a folder nothing refers to: public bytes of a customer's
 * photo at a URL nobody was given. When a generation that needed more than one attempt becomes
 * terminal, this job is queued (delayed by `render.strayImagesAfterMs`) and deletes every folder
 * of the generation but the one its `imageUrl` points into.
 */
export function sweepStrayImages({
  persistence,
  cdn,
  logger,
}: Pick<Ports, 'persistence' | 'cdn'> & { logger: Logger }) {
  /** Every key under the generation's folder but those of the folder `imageUrl` points into (none when that folder cannot be told). */
  async function strayKeys(generationId: string, imageUrl: string | null, log: Logger): Promise<string[]> {
    const listed: string[] = [];
    for await (const { key } of cdn.list(generationImagesPrefix(generationId), 'public')) listed.push(key);
    if (!imageUrl) return listed;
    const kept = listed.find((key) => cdn.publicUrl(key) === imageUrl);
    if (!kept) {
      // Public URLs changed since (a new CDN domain, say): which folder is live cannot be told, so none is touched.
      log.warn("stray image sweep skipped: the generation's image is not among its listed images", { generationId });
      return [];
    }
    const keptFolder = kept.slice(0, kept.lastIndexOf('/') + 1);
    return listed.filter((key) => !key.startsWith(keptFolder));
  }

  /** Called outside the queue (a test), it may get no context. */
  return async function handle(job: QueuedJob, context: Partial<Pick<JobRunContext, 'logger'>> = {}): Promise<void> {
    const log = context.logger ?? logger;
    const { generationId, organizationId } = job.payload as StrayImagesJobPayload;
    const generation = await persistence.generations.get(organizationId, generationId);
    if (generation?.status === 'processing') return; // never queued for one; nothing is certain to be stray
    let stray: string[];
    try {
      stray = await strayKeys(generationId, generation?.imageUrl ?? null, log);
      await Promise.all(stray.map((key) => cdn.delete(key, 'public')));
    } catch (error) {
      // Storage failing is waited out, at least once a minute, rather than the job given up with the images left.
      log.warn('stray image sweep postponed: image storage failed', { generationId, error: String(error) });
      throw new PostponeJob(outageRetryDelay(job.attempts), `image storage failed: ${String(error)}`);
    }
    if (stray.length > 0)
      log.info('deleted images no run of the generation committed', { generationId, deleted: stray.length });
  };
}
