export const generationModes = ['virtual-try-on', 'room-visualizer'] as const;
export type GenerationMode = (typeof generationModes)[number];
export const imageSizes = ['1K', '2K', '4K'] as const;
export type ImageSize = (typeof imageSizes)[number];
export const generationStatuses = ['processing', 'complete', 'failed'] as const;
export type GenerationStatus = (typeof generationStatuses)[number];

/** Credits each output size costs (spec: 1K = 1, 2K = 2, 4K = 3). */
export const creditCost = { '1K': 1, '2K': 2, '4K': 3 } as const;

/** The long side in pixels of each output size. */
export const longSideOf: Record<ImageSize, number> = { '1K': 1024, '2K': 2048, '4K': 4096 };

export interface ProductInput {
  productId: string | number;
  productTitle: string;
  imageUrl: string;
  productUrl?: string;
  dimensions?: { width?: number; height?: number; depth?: number; unit: 'cm' | 'in' };
}

export interface ImageVariant {
  url: string;
  width: number;
}

export interface ImageVariants {
  list: ImageVariant;
  card: ImageVariant;
  detail: ImageVariant;
}

export interface GenerationRecord {
  id: string;
  organizationId: string;
  storeId: string | null;
  apiKeyId: string | null;
  widgetId: string | null;
  status: GenerationStatus;
  mode: GenerationMode;
  imageSize: ImageSize;
  creditsCharged: number;
  /** An https URL to fetch, or `private:<key>` for an upload kept in private blob storage. */
  sourceImage: string;
  products: ProductInput[];
  hint: string | null;
  metadata: Record<string, string> | null;
  imageUrl: string | null;
  imageVariants: ImageVariants | null;
  errorCode: string | null;
  errorMessage: string | null;
  visitorId: string | null;
  sessionId: string | null;
  createdAt: number;
  completedAt: number | null;
}

/**
 * Why a generation was deleted: `deleted` by its organization (`DELETE /v1/generations/{id}`, an
 * admin in the dashboard), `expired` under the organization's render retention, `erased` with
 * everything about a widget visitor. GET answers 404 for `deleted` and `erased`, 410
 * `generation_expired` for `expired`.
 */
export type DeletionReason = 'deleted' | 'expired' | 'erased';

/** What remains of a deleted generation for the API to answer with. */
export interface GenerationTombstone {
  id: string;
  deletedAt: number;
  reason: DeletionReason;
}

export const eventTypes = ['generation.completed', 'generation.failed'] as const;
export type EventType = (typeof eventTypes)[number];

const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());

/** The Generation resource exactly as the API returns it and as events carry it: every field, null where unset. */
export function generationResource(generation: GenerationRecord) {
  return {
    id: generation.id,
    object: 'generation' as const,
    status: generation.status,
    mode: generation.mode,
    imageSize: generation.imageSize,
    imageUrl: generation.status === 'complete' ? generation.imageUrl : null,
    imageVariants: generation.status === 'complete' ? generation.imageVariants : null,
    products: generation.products,
    hint: generation.hint,
    error:
      generation.status === 'failed'
        ? {
            code: generation.errorCode ?? 'render_failed',
            message: generation.errorMessage ?? 'The visualization failed.',
          }
        : null,
    metadata: generation.metadata,
    createdAt: iso(generation.createdAt)!,
    completedAt: iso(generation.completedAt),
  };
}

/** The exact bytes every delivery of an event sends: built once, stored in the outbox. */
export function eventBody(
  event: { id: string; type: EventType; createdAt: number },
  generation: GenerationRecord,
): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: iso(event.createdAt),
    data: generationResource(generation),
  });
}
