import type { GenerationRecord, GenerationStatus, ImageVariants } from '../../domain/generation.ts';

export interface GenerationPage {
  data: GenerationRecord[];
  hasMore: boolean;
}

export interface GenerationRepository {
  create(generation: GenerationRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<GenerationRecord | null>;
  /** The status of any organization's generation, or null when there is none: for sweeps, never for a caller's reads. */
  statusOf(id: string): Promise<GenerationStatus | null>;
  /** Newest first; `startingAfter` is the id of the last item of the previous page. */
  list(organizationId: string, options: { limit: number; startingAfter?: string; status?: GenerationStatus }): Promise<GenerationPage>;
  /** Moves a `processing` generation to `complete`; false (and no change) when it was already terminal. */
  complete(id: string, result: { imageUrl: string; imageVariants: ImageVariants; completedAt: number }): Promise<boolean>;
  /** Moves a `processing` generation to `failed`; false (and no change) when it was already terminal. */
  fail(id: string, error: { code: string; message: string; completedAt: number }): Promise<boolean>;
}
