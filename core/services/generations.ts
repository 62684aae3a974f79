import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import { isSafeKey, uploadPrefix } from '../domain/blob-keys.ts';
import { ApiError, notFound, unavailable } from '../domain/errors.ts';
import { creditCost, type GenerationTombstone } from '../domain/generation.ts';
import { deleteGenerationsIn } from './generation-deletion.ts';
import {
  dataUriBytes,
  decodeDataUri,
  maxIdempotencyKeyLength,
  maxImageBytes,
  type CreateGenerationInput,
} from '../domain/generation-input.ts';
import { inspectImage, ImageFetchError } from '../outbound/fetch-image.ts';
import type { GenerationRecord } from '../domain/generation.ts';
import { capPassed, dailyCapReached, utcDayOf, type WidgetCaps } from '../domain/widget.ts';
import type { GenerationListOptions } from '../ports/persistence/generations.ts';

export const renderJobKind = 'render_generation';

export interface RenderJobPayload {
  generationId: string;
  organizationId: string;
}

/** Who asks for a generation: an API key, or a widget on behalf of a visitor. */
export interface GenerationRequester {
  organizationId: string;
  apiKeyId?: string | null;
  storeId?: string | null;
  widgetId?: string | null;
  /** A widget's daily caps: its generation counts in the widget's UTC day only within them. */
  widgetCaps?: WidgetCaps;
  visitorId?: string | null;
  sessionId?: string | null;
}

/** Thrown inside the creation transaction when a concurrent request bound the same key first. */
class LostIdempotencyRace extends Error {}

export type GenerationService = ReturnType<typeof generationService>;

export function validateIdempotencyKey(key: string | null): string | null {
  if (key === null) return null;
  if (key.length === 0 || key.length > maxIdempotencyKeyLength || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError(
      'invalid_request_error',
      'idempotency_key_invalid',
      `Idempotency-Key must be 1 to ${maxIdempotencyKeyLength} printable ASCII characters without spaces.`,
      'Idempotency-Key',
    );
  }
  return key;
}

/**
 * An image already on this service's own CDN, read from storage rather than fetched over the
 * network. A path no key could have (`%2F`, `//`, a query) names nothing there.
 */
export function ownCdnKey({ cdn, config }: Pick<Ports, 'cdn'> & { config: Config }, url: string): string | null {
  const prefix = `${config.publicUrl}/cdn/`;
  const key = cdn.servedByApp && url.startsWith(prefix) ? url.slice(prefix.length) : null;
  return key !== null && isSafeKey(key) ? key : null;
}

/**
 * What a deleted generation answers. GET: 404 `resource_missing`, as for an id that never was
 * (an erased visitor's generation must not be told apart), except 410 `generation_expired` for
 * one its organization's render retention deleted. The replay of an idempotency key bound to a
 * deleted one: 410 `generation_deleted` or `generation_expired`, never new work or a charge.
 */
export function goneError(tombstone: GenerationTombstone, use: 'get' | 'replay') {
  if (tombstone.reason === 'expired') {
    return new ApiError(
      'not_found_error',
      'generation_expired',
      `Generation '${tombstone.id}' has expired: its organization keeps renders for a limited time, and it was deleted with its images.`,
      'id',
    );
  }
  if (use === 'get') return notFound('generation', tombstone.id);
  return new ApiError(
    'not_found_error',
    'generation_deleted',
    `This Idempotency-Key made generation '${tombstone.id}', which was deleted with its images. Nothing new was made or charged; send a new key to create another.`,
    'Idempotency-Key',
  );
}

export function generationService({
  persistence,
  ids,
  clock,
  cdn,
  queue,
  config,
}: Pick<Ports, 'persistence' | 'ids' | 'clock' | 'cdn' | 'queue'> & { config: Config }) {
  async function replay(organizationId: string, generationId: string) {
    const generation = await persistence.generations.get(organizationId, generationId);
    if (!generation) {
      // A key bound to a generation that was deleted since: it still never makes new work.
      const tombstone = await persistence.generations.tombstone(organizationId, generationId);
      if (tombstone) throw goneError(tombstone, 'replay');
      throw new Error(`idempotency key bound to missing generation ${generationId}`);
    }
    return { generation, replayed: true };
  }

  /** Keeps an uploaded photo in private storage and returns how the worker finds it again. */
  async function storeUpload(generationId: string, dataUri: string): Promise<string> {
    if (dataUriBytes(dataUri) > maxImageBytes)
      throw new ApiError(
        'invalid_request_error',
        'image_too_large',
        'image: must be at most 10 MB (decoded).',
        'image',
      );
    const bytes = decodeDataUri(dataUri);
    let format: string;
    try {
      format = (await inspectImage(bytes)).format;
    } catch (error) {
      if (error instanceof ImageFetchError)
        throw new ApiError('invalid_request_error', 'invalid_image', `image: ${error.message}`, 'image');
      throw error;
    }
    const key = `${uploadPrefix}${generationId}/${ids.secret(24)}.${format === 'jpeg' ? 'jpg' : format}`;
    try {
      await cdn.put(key, bytes, { contentType: `image/${format}`, visibility: 'private' });
    } catch (error) {
      // The key is ours and valid, so this is the storage failing (unreachable, full): our outage.
      throw unavailable('storage_unavailable', 'The photo could not be stored just now.', undefined, error);
    }
    return `private:${key}`;
  }

  return {
    /**
     * The generation an idempotency key is bound to, or null. The API asks before it reads the
     * body, since a bound key returns its generation whatever the new body is (even invalid).
     */
    async boundTo(organizationId: string, idempotencyKey: string) {
      const bound = await persistence.idempotencyKeys.find(organizationId, idempotencyKey);
      return bound ? (await replay(organizationId, bound)).generation : null;
    },

    /**
     * Accepts a generation: debits its credits, counts it in its widget's day (within the widget's
     * caps), records it, binds the idempotency key and queues the render — all in one transaction,
     * so either everything happened or nothing did. A key bound before the request is the caller's
     * to answer (boundTo); one bound by a concurrent request is found when binding it here fails.
     */
    async create(requester: GenerationRequester, input: CreateGenerationInput, idempotencyKey: string | null) {
      const { organizationId } = requester;
      input.products.forEach((product, index) => {
        if (!product.imageUrl.startsWith('https://') && !ownCdnKey({ cdn, config }, product.imageUrl)) {
          throw new ApiError(
            'invalid_request_error',
            'parameter_invalid',
            `products[${index}].imageUrl: must be an https URL`,
            `products[${index}].imageUrl`,
          );
        }
      });
      const id = ids.id('agen_');
      const sourceImage = input.image.startsWith('data:') ? await storeUpload(id, input.image) : input.image;
      const cost = creditCost[input.imageSize];
      const now = clock.now();
      const generation: GenerationRecord = {
        id,
        organizationId,
        storeId: requester.storeId ?? null,
        apiKeyId: requester.apiKeyId ?? null,
        widgetId: requester.widgetId ?? null,
        status: 'processing',
        mode: input.mode,
        imageSize: input.imageSize,
        creditsCharged: cost,
        sourceImage,
        products: input.products,
        hint: input.hint ?? null,
        metadata: input.metadata ?? null,
        imageUrl: null,
        imageVariants: null,
        errorCode: null,
        errorMessage: null,
        visitorId: requester.visitorId ?? null,
        sessionId: requester.sessionId ?? null,
        createdAt: now,
        completedAt: null,
      };
      try {
        await persistence.transaction(async (tx) => {
          const balance = await tx.credits.debit({
            organizationId,
            amount: cost,
            reason: 'generation',
            reference: id,
            ledgerEntryId: ids.id('cle_'),
            at: now,
          });
          if (balance === null) {
            throw new ApiError(
              'authorization_error',
              'insufficient_credits',
              `A ${input.imageSize} generation costs ${cost} credit${cost > 1 ? 's' : ''}; the balance is too low.`,
              'imageSize',
            );
          }
          // After the debit, as a refund does it: every transaction locks the organization's row before the widget's day.
          if (generation.widgetId) {
            const caps = requester.widgetCaps ?? { generations: null, credits: null };
            const day = await tx.widgets.countGeneration({
              widgetId: generation.widgetId,
              day: utcDayOf(now),
              credits: cost,
              caps,
            });
            if (!day.counted) throw dailyCapReached(capPassed(caps, day.usage, cost) ?? 'credits', caps, now);
          }
          await tx.generations.create(generation);
          if (idempotencyKey && !(await tx.idempotencyKeys.bind(organizationId, idempotencyKey, id, now)))
            throw new LostIdempotencyRace();
          await queue.enqueue(tx, {
            kind: renderJobKind,
            payload: { generationId: id, organizationId } satisfies RenderJobPayload,
            runAt: now,
            createdAt: now,
          });
        });
      } catch (error) {
        // A database that failed may have committed after all (a connection lost at COMMIT): a
        // retry with the key then replays this generation, which needs its photo. The upload sweep
        // deletes the photo later if nothing was committed.
        if (sourceImage.startsWith('private:') && !persistence.isUnavailable(error)) {
          await cdn.delete(sourceImage.slice('private:'.length), 'private').catch(() => {});
        }
        // A request that lost its key's race gets the winner's generation, also when the winner's
        // debit left too little for its own (the key is bound: it always returns its generation).
        if (
          idempotencyKey &&
          (error instanceof LostIdempotencyRace || (error instanceof ApiError && error.code === 'insufficient_credits'))
        ) {
          const bound = await persistence.idempotencyKeys.find(organizationId, idempotencyKey);
          if (bound) return replay(organizationId, bound);
          // The winner's transaction failed too (a shared SQLite commit that failed): nothing was made.
          if (error instanceof LostIdempotencyRace)
            throw unavailable('database_unavailable', 'The service is briefly unavailable.');
        }
        throw error;
      }
      queue.notify();
      return { generation, replayed: false };
    },

    async get(organizationId: string, id: string) {
      const generation = await persistence.generations.get(organizationId, id);
      if (generation) return generation;
      const tombstone = await persistence.generations.tombstone(organizationId, id);
      throw tombstone ? goneError(tombstone, 'get') : notFound('generation', id);
    },

    /**
     * Deletes the organization's generation with its images (see deleteGenerationsIn). Deleting
     * one deleted before succeeds again (the request is idempotent); an unknown id is 404.
     */
    async delete(organizationId: string, id: string): Promise<{ refunded: number }> {
      const outcome = await persistence.transaction(async (tx) => {
        const outcome = await deleteGenerationsIn(
          tx,
          { ids, clock, queue, config },
          { organizationId, generationIds: [id], reason: 'deleted' },
        );
        if (outcome.deleted.length === 0 && !(await tx.generations.tombstone(organizationId, id)))
          throw notFound('generation', id);
        return outcome;
      });
      if (outcome.deleted.length > 0) queue.notify();
      return { refunded: outcome.refunded };
    },

    list: (organizationId: string, options: GenerationListOptions) =>
      persistence.generations.list(organizationId, options),
  };
}
