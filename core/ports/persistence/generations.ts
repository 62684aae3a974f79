import type { GenerationMode, GenerationRecord, GenerationStatus, ImageVariants } from '../../domain/generation.ts';

export interface GenerationPage {
  data: GenerationRecord[];
  hasMore: boolean;
}

export interface GenerationListOptions {
  limit: number;
  startingAfter?: string;
  status?: GenerationStatus;
  mode?: GenerationMode;
  /** `createdAt` at or after, epoch ms. */
  from?: number;
  /** `createdAt` before, epoch ms. */
  to?: number;
}

export interface GenerationDay {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  status: GenerationStatus;
  count: number;
  /** The credits charged for these generations (a failed one's were refunded). */
  credits: number;
}

export interface GenerationRepository {
  create(generation: GenerationRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<GenerationRecord | null>;
  /** The status of any organization's generation, or null when there is none: for sweeps, never for a caller's reads. */
  statusOf(id: string): Promise<GenerationStatus | null>;
  /**
   * Newest first; `startingAfter` is the id of the last item of the previous page. Filters: status,
   * mode and `createdAt` in [from, to). Served by an index on (organization, time) or on
   * (organization, status, time), whatever the list's length.
   */
  list(organizationId: string, options: GenerationListOptions): Promise<GenerationPage>;
  /**
   * Per UTC day (days since the epoch) and status, the number of generations created in [from, to)
   * and the credits charged for them: the organization's, or only the store's when `storeId` is
   * given (the caller has checked the store is the organization's). Days without any are left out.
   * One grouped query on an index by (organization or store, createdAt).
   */
  daily(scope: { organizationId: string; storeId?: string }, range: { from: number; to: number }): Promise<GenerationDay[]>;
  /** Moves a `processing` generation to `complete`; false (and no change) when it was already terminal. */
  complete(id: string, result: { imageUrl: string; imageVariants: ImageVariants; completedAt: number }): Promise<boolean>;
  /** Moves a `processing` generation to `failed`; false (and no change) when it was already terminal. */
  fail(id: string, error: { code: string; message: string; completedAt: number }): Promise<boolean>;
}
