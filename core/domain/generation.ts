import type { GenerationRecord } from '../ports/persistence.ts';

/** Credits each output size costs (spec: 1K = 1, 2K = 2, 4K = 3). */
export const creditCost = { '1K': 1, '2K': 2, '4K': 3 } as const;

/** Long side in pixels of each output size. */
export const longSide = { '1K': 1024, '2K': 2048, '4K': 4096 } as const;

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
    error: generation.status === 'failed' ? { code: generation.errorCode ?? 'render_failed', message: generation.errorMessage ?? 'The visualization failed.' } : null,
    metadata: generation.metadata,
    createdAt: iso(generation.createdAt)!,
    completedAt: iso(generation.completedAt),
  };
}

/** The exact bytes every delivery of an event sends: built once, stored in the outbox. */
export function eventBody(event: { id: string; type: EventType; createdAt: number }, generation: GenerationRecord): string {
  return JSON.stringify({ id: event.id, type: event.type, createdAt: iso(event.createdAt), data: generationResource(generation) });
}
