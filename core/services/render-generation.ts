import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import type { GuardedClient } from '../outbound/guarded-client.ts';
import type { MemoryBudget } from '../imaging/memory-budget.ts';
import type { EngineRouter } from './engine-router.ts';
import { generationImagesPrefix } from '../domain/blob-keys.ts';
import {
  eventBody,
  longSideOf,
  type EventType,
  type GenerationRecord,
  type ImageVariants,
} from '../domain/generation.ts';
import { resizeMemory } from '../imaging/decode-memory.ts';
import { prepareInputImage } from '../imaging/input-images.ts';
import {
  fileExtension as extension,
  variantWidths,
  type EncodedVariant,
  type OriginalFormat,
} from '../imaging/variants.ts';
import { credentialedRender, CredentialsFailure } from './credentialed-render.ts';
import { fetchImage, ImageFetchError, inspectImage, type FetchedImage } from '../outbound/fetch-image.ts';
import { outageRetryDelay, PostponeJob, RetryJob } from '../ports/job-queue.ts';
import type { QueuedJob } from '../domain/job.ts';
import { isRenderErrorCode, RenderError, renderErrorCodes } from '../ports/render-engine.ts';
import { ownCdnKey, type RenderJobPayload } from './generations.ts';
import { describeStorageError } from './storage-errors.ts';
import { strayImagesJobKind, type StrayImagesJobPayload } from './stray-images.ts';
import { emitEvent } from './webhook-delivery.ts';
import type { JobRunContext, ReportedOutcome } from '../metrics/job-outcome.ts';
import type { Logger } from '../logger.ts';
import { refundGeneration } from './refund-generation.ts';

/** A failure that ends the generation, with the code and message its `error` object shows. */
class GenerationFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/**
 * Image storage failing under a render (unreachable, full, refusing): our outage, not the
 * generation's failure. The keys a render uses are ours and checked, so any error from the store
 * is the store's.
 */
class StorageOutage extends Error {
  constructor(cause: unknown) {
    // Logged and stored as the postponed job's reason: the cause's code, not its message (a path).
    super(`image storage failed: ${describeStorageError(cause)}`, { cause });
  }
}

const fromStorage = <T>(operation: Promise<T>): Promise<T> =>
  operation.catch((error: unknown) => {
    throw new StorageOutage(error);
  });

function classify(error: unknown): GenerationFailure {
  if (error instanceof GenerationFailure) return error;
  if (error instanceof ImageFetchError) return new GenerationFailure(error.code, error.message, error.transient);
  if (error instanceof RenderError) {
    // A code outside the vocabulary (a third party's own) reaches shops as `render_failed`; an
    // engine's own words (quota, key, model errors) are for the operator's log unless the code shows them.
    const code = isRenderErrorCode(error.code) ? error.code : 'render_failed';
    const { showsMessage, publicMessage } = renderErrorCodes[code];
    return new GenerationFailure(code, showsMessage ? error.message : publicMessage, error.transient);
  }
  // The engine's image is made and paid for: a run again would pay for another that meets the
  // same signer (see credentialedRender, which has signed again already).
  if (error instanceof CredentialsFailure) return notCompleted(false);
  // Anything else (a bug, an engine's unexpected answer) is retried; if it persists the generation fails without leaking details.
  return notCompleted();
}

/** The longest Retry-After of an engine's vendor a render waits out before its next attempt. */
const maxVendorWaitMs = 5 * 60_000;

/** A failure no retry can mend: the generation fails at once. */
const isFinal = (error: unknown) =>
  (error instanceof GenerationFailure || error instanceof ImageFetchError) && !error.transient;

/**
 * Every input image, or the failure that decides: one that no retry can mend rejects at once and
 * wins over transient ones (a photo's 404 over a product host's 503), which are held until every
 * load has settled. Otherwise a 503 answered first would spend the render's retries on a
 * generation that cannot succeed, and fail it with the wrong cause.
 */
async function loadAll<T>(loads: Promise<T>[]): Promise<T[]> {
  const held: unknown[] = [];
  const values = await Promise.all(
    loads.map((load) =>
      load.catch((error: unknown) => {
        if (isFinal(error)) throw error;
        held.push(error);
        return undefined as T;
      }),
    ),
  );
  if (held.length > 0) throw held[0];
  return values;
}

/** The failure shown for causes that stay in the server log (a bug, runs that kept dying). */
const notCompleted = (transient = true) =>
  new GenerationFailure('render_failed', 'The visualization could not be completed.', transient);

export type RenderGeneration = ReturnType<typeof renderGeneration>;

export interface RenderGenerationDeps
  extends Pick<Ports, 'persistence' | 'ids' | 'clock' | 'cdn' | 'credentials' | 'queue'> {
  engineRouter: EngineRouter;
  outbound: GuardedClient;
  logger: Logger;
  config: Config;
  imageMemory: MemoryBudget;
}

/** The worker's side of a generation: fetch the images, render, store the variants, complete. */
export function renderGeneration({
  persistence,
  ids,
  clock,
  cdn,
  engineRouter,
  credentials,
  outbound,
  logger,
  config,
  queue,
  imageMemory,
}: RenderGenerationDeps) {
  /**
   * The image as the engine gets it: every pixel decoded and at most the output's long side, within
   * the process's image memory (see prepareInputImage).
   */
  async function prepare(image: FetchedImage, longSide: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
    try {
      return await prepareInputImage(image, longSide, imageMemory, signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ImageFetchError(
        'invalid_image',
        'The image is damaged or truncated: its pixels could not be decoded',
        false,
      );
    }
  }

  // `signal`: a stopping worker aborts its fetches too, so its job is released within the grace period.
  async function loadPhoto(source: string, longSide: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
    if (!source.startsWith('private:'))
      return prepare(await fetchImage(outbound, source, { signal }), longSide, signal);
    const stored = await fromStorage(cdn.get(source.slice('private:'.length), 'private'));
    if (!stored) throw new GenerationFailure('image_fetch_failed', 'The uploaded photo is no longer available.', false);
    return prepare(await inspectImage(stored.body), longSide, signal);
  }

  async function loadProduct(
    url: string,
    index: number,
    longSide: number,
    signal: AbortSignal | undefined,
  ): Promise<Uint8Array> {
    try {
      const ownKey = ownCdnKey({ cdn, config }, url);
      if (ownKey) {
        const stored = await fromStorage(cdn.get(ownKey, 'public'));
        // The URL is this service's own: the file it names is what is missing.
        if (!stored)
          throw new ImageFetchError('image_fetch_failed', `No image at this CDN path: ${new URL(url).pathname}`, false);
        return await prepare(await inspectImage(stored.body), longSide, signal);
      }
      return await prepare(await fetchImage(outbound, url, { signal }), longSide, signal);
    } catch (error) {
      if (error instanceof ImageFetchError)
        throw new ImageFetchError(error.code, `products[${index}].imageUrl: ${error.message}`, error.transient);
      throw error;
    }
  }

  /** Public, permanent, unguessable: under `base`, the generation id plus a random token no one can derive. */
  async function publish(
    base: string,
    render: { bytes: Uint8Array; format: OriginalFormat },
    variants: EncodedVariant[],
  ) {
    const original = await fromStorage(
      cdn.put(`${base}/original.${extension[render.format]}`, render.bytes, {
        contentType: `image/${render.format}`,
        visibility: 'public',
      }),
    );
    // Every write settles before a failure is reported, so deleting what was stored misses none.
    const writes = await Promise.allSettled(
      variants.map((variant) =>
        cdn.put(`${base}/${variant.name}.${extension[variant.format]}`, variant.bytes, {
          contentType: `image/${variant.format}`,
          visibility: 'public',
        }),
      ),
    );
    const failed = writes.find((write) => write.status === 'rejected');
    if (failed) throw new StorageOutage(failed.reason);
    // The spec's `width` is the surface's maximum, not the pixels: a render narrower than that is never upscaled.
    const jpeg = (name: keyof ImageVariants) => ({
      url: cdn.publicUrl(`${base}/${name}.jpg`),
      width: variantWidths[name],
    });
    return {
      imageUrl: original.url!,
      imageVariants: { list: jpeg('list'), card: jpeg('card'), detail: jpeg('detail') },
    };
  }

  async function storageAnswers(generationId: string) {
    for await (const _ of cdn.list(generationImagesPrefix(generationId), 'public')) break;
  }

  /** Deletes whatever this run stored under `base`, for a run whose images nothing will refer to. */
  async function discard(base: string, log: Logger) {
    try {
      for await (const { key } of cdn.list(`${base}/`, 'public')) await cdn.delete(key, 'public');
    } catch (error) {
      log.warn("could not delete a run's uncommitted images", { base, error: String(error) });
    }
  }

  /**
   * Applies `change` and its event in one transaction; false when the generation was already
   * terminal. When runs may have left images nobody refers to (`strays`), a job to delete them is
   * queued in the same transaction.
   */
  async function finish(
    generation: GenerationRecord,
    strays: boolean,
    type: EventType,
    log: Logger,
    change: (tx: Parameters<Parameters<typeof persistence.transaction>[0]>[0]) => Promise<boolean>,
  ) {
    const applied = await persistence.transaction(async (tx) => {
      if (!(await change(tx))) return false; // already terminal: a duplicate run after a lost lease
      const finished = (await tx.generations.get(generation.organizationId, generation.id))!;
      const now = clock.now();
      const event = { id: ids.id('evt_'), type, createdAt: now };
      await emitEvent(
        tx,
        { ids, config, queue },
        {
          id: event.id,
          organizationId: generation.organizationId,
          type,
          body: eventBody(event, finished),
          createdAt: event.createdAt,
          generationId: generation.id,
        },
      );
      if (strays) {
        const payload: StrayImagesJobPayload = {
          generationId: generation.id,
          organizationId: generation.organizationId,
        };
        await queue.enqueue(tx, {
          kind: strayImagesJobKind,
          payload,
          runAt: now + config.render.strayImagesAfterMs,
          createdAt: now,
        });
      }
      return true;
    });
    if (applied) queue.notify(); // the first delivery attempt starts now, not at the next poll
    // The customer's photo is kept only while it is needed.
    if (generation.sourceImage.startsWith('private:')) {
      await cdn
        .delete(generation.sourceImage.slice('private:'.length), 'private')
        .catch((error) =>
          log.warn('could not delete upload', { generationId: generation.id, error: describeStorageError(error) }),
        );
    }
    return applied;
  }

  /** Fails the generation; 'failed' when this run did, nothing when it was already terminal. */
  async function fail(
    generation: GenerationRecord,
    strays: boolean,
    failure: GenerationFailure,
    log: Logger,
  ): Promise<ReportedOutcome | undefined> {
    const at = clock.now();
    const applied = await finish(generation, strays, 'generation.failed', log, async (tx) => {
      if (
        !(await tx.generations.fail(generation.id, { code: failure.code, message: failure.message, completedAt: at }))
      )
        return false;
      // A failed generation gives its credits back, as a ledger entry of its own (and to its widget's day).
      await refundGeneration(tx, generation, { ledgerEntryId: ids.id('cle_'), at });
      return true;
    });
    return applied ? 'failed' : undefined;
  }

  /**
   * `context.signal` aborts the engine's render when the worker is stopping (see `JobQueue.stop`).
   * Called outside the queue (a test), it may get no context.
   */
  return async function handle(
    job: QueuedJob,
    context: Partial<Pick<JobRunContext, 'signal' | 'logger'>> = {},
  ): Promise<ReportedOutcome | undefined> {
    const log = context.logger ?? logger;
    const { generationId, organizationId } = job.payload as RenderJobPayload;
    const generation = await persistence.generations.get(organizationId, generationId);
    if (generation?.status !== 'processing') return undefined;
    // An earlier run may have stored images and died before committing them.
    let strays = job.attempts > 1;
    if (job.failures >= config.render.maxAttempts) {
      // Only runs that died can bring it here (a failing run ends the generation at its last retry):
      // a render that kills its worker each time ends rather than taking worker after worker down.
      log.error('render given up: its runs kept losing their worker', {
        generationId,
        attempts: job.attempts,
        failures: job.failures,
      });
      return fail(generation, strays, notCompleted(), log);
    }
    /** Where this run stores its images, while it is storing them. */
    let storing: string | undefined;
    // An engine's slot is taken before the inputs are fetched, so a render that must wait fetches nothing yet.
    const engineRun = await engineRouter.begin(generation, job, log);
    try {
      // A retry (perhaps after storage failed) first checks that storage answers, so an outage
      // costs one cheap listing per retry rather than another render (paid, with a real engine).
      if (job.attempts > 1) await fromStorage(storageAnswers(generation.id));
      const signal = context.signal;
      const longSide = longSideOf[generation.imageSize];
      const [photo, ...products] = await loadAll([
        loadPhoto(generation.sourceImage, longSide, signal),
        ...generation.products.map((product, index) => loadProduct(product.imageUrl, index, longSide, signal)),
      ]);
      // Held for the whole call, across engines: an engine may decode and encode an image of the output's size here.
      const { engine, result } = await imageMemory.reserve(
        resizeMemory(longSide, longSide),
        () =>
          engineRun.render(
            (engine, engineSignal) =>
              engine.render({
                mode: generation.mode,
                imageSize: generation.imageSize,
                photo: photo!,
                products: generation.products.map((product, index) => ({
                  productId: product.productId,
                  productTitle: product.productTitle,
                  image: products[index]!,
                  dimensions: product.dimensions ?? null,
                })),
                hint: generation.hint,
                signal: engineSignal,
              }),
            signal,
          ),
        signal,
      );
      await engineRun.release();
      // The engine's contentType is not trusted to name the format: the bytes decide (see storableOriginal).
      // Every image carries Content Credentials and XMP stating how the engine made it.
      const { original, variants } = await credentialedRender(result.image, {
        credentials,
        engine,
        generationId: generation.id,
        budget: imageMemory,
        signal,
        logger: log,
      });
      // A generation deleted while it rendered is never published: its result is discarded here. One
      // deleted after this check is no longer `processing` when this run commits, so the run deletes
      // what it stored (below), and a run that dies first is covered by the deletion's later purge.
      if ((await persistence.generations.get(organizationId, generationId))?.status !== 'processing') {
        log.info('render discarded: the generation was deleted (or ended) while it rendered', { generationId });
        return undefined;
      }
      const base = `${generationImagesPrefix(generation.id)}${ids.secret(24)}`;
      storing = base;
      const published = await publish(base, original, variants);
      // From here a failure may have committed after all (say, a connection lost at COMMIT), so the
      // images stay; if they were not committed, whichever run ends the generation queues their deletion.
      storing = undefined;
      strays = true;
      if (
        await finish(generation, job.attempts > 1, 'generation.completed', log, (tx) =>
          tx.generations.complete(generation.id, { ...published, engine: engine.name, completedAt: clock.now() }),
        )
      )
        return 'completed';
      // Another run of this job (its lease had expired) finished first: nothing refers to these images.
      await discard(base, log);
      return undefined;
    } catch (error) {
      if (storing) await discard(storing, log); // a store that failed halfway
      // The worker is stopping and took the run back: the queue releases the job, not failed.
      if (context.signal?.aborted) throw error;
      // Our outage is not the render's failure: the queue retries the job until the database is back.
      if (persistence.isUnavailable(error)) throw error;
      // Nor is storage's; it is waited out the same way, at least once a minute, and spends no retry.
      if (error instanceof StorageOutage) {
        log.warn('render postponed: image storage failed', {
          generationId,
          attempt: job.attempts,
          error: error.message,
        });
        throw new PostponeJob(outageRetryDelay(job.attempts, config.render.retryBaseDelayMs), error.message);
      }
      const failure = classify(error);
      const expected = error instanceof GenerationFailure || error instanceof ImageFetchError;
      if (!expected) {
        log.error('render failed', {
          generationId,
          attempt: job.attempts,
          code: failure.code,
          error: error instanceof Error ? error.stack : String(error),
        });
      }
      // This run is failure number `failures + 1`; runs an outage postponed are not counted.
      if (failure.transient && job.failures + 1 < config.render.maxAttempts) {
        // Not sooner than the last engine's vendor asked (Retry-After), bounded like any retry.
        const asked = error instanceof RenderError ? Math.min(error.retryAfterMs ?? 0, maxVendorWaitMs) : 0;
        throw new RetryJob(
          Math.max(config.render.retryBaseDelayMs * 2 ** job.failures, asked),
          `${failure.code}: ${failure.message}`,
        );
      }
      return await fail(generation, strays, failure, log);
    } finally {
      await engineRun.release();
    }
  };
}
