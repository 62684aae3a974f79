import type {
  DeletionReason,
  GenerationMode,
  GenerationRecord,
  GenerationStatus,
  GenerationTombstone,
  ImageVariants,
} from '../../domain/generation.ts';

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

/** A generation `markDeleted` just deleted, as it was before. */
export interface MarkedDeletion {
  id: string;
  /** Its status before the deletion: a `processing` one is now `failed` (and was charged `creditsCharged`). */
  status: GenerationStatus;
  creditsCharged: number;
  /** The widget that made it and when: a refund gives the credits back to that widget's day too. */
  widgetId: string | null;
  createdAt: number;
}

export interface GenerationRepository {
  create(generation: GenerationRecord): Promise<void>;
  /** The organization's generation, or null when there is none or it was deleted. */
  get(organizationId: string, id: string): Promise<GenerationRecord | null>;
  /** The status of any organization's generation, or null when there is none: for sweeps, never for a caller's reads. */
  statusOf(id: string): Promise<GenerationStatus | null>;
  /**
   * Newest first, deleted generations left out; `startingAfter` is the id of the last item of the previous page. Filters: status,
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
  daily(
    scope: { organizationId: string; storeId?: string },
    range: { from: number; to: number },
  ): Promise<GenerationDay[]>;
  /**
   * Moves a `processing` generation to `complete`, recording the engine that rendered it (by name);
   * false (and no change) when it was already terminal.
   */
  complete(
    id: string,
    result: { imageUrl: string; imageVariants: ImageVariants; completedAt: number; engine?: string },
  ): Promise<boolean>;
  /** The name of the engine that rendered the organization's live generation; null when none did (yet) or there is none. */
  renderEngineOf(organizationId: string, id: string): Promise<string | null>;
  /** Moves a `processing` generation to `failed`; false (and no change) when it was already terminal. */
  fail(id: string, error: { code: string; message: string; completedAt: number }): Promise<boolean>;
  /**
   * Deletes the organization's generations among `ids` that are not deleted yet, and resolves to
   * them as they were: each row is kept as a tombstone (`deletedAt`, `reason`) with everything
   * personal scrubbed (photo reference, products, hint, metadata, result URLs, error message,
   * visitor and session ids), and a `processing` one becomes `failed` (code
   * `generation_deleted`), so no render can complete it any more. Ids of other organizations,
   * unknown ones and ones deleted before are left alone. Meant for a transaction (see
   * core/services/generation-deletion.ts), and on Postgres it locks the rows it reads, so a
   * render committing at the same moment either commits first (the caller sees it `complete`) or
   * finds the generation no longer `processing`.
   */
  markDeleted(
    organizationId: string,
    ids: string[],
    deletion: { at: number; reason: DeletionReason },
  ): Promise<MarkedDeletion[]>;
  /** The tombstone of the organization's deleted generation, or null (live, or never there). */
  tombstone(organizationId: string, id: string): Promise<GenerationTombstone | null>;
  /**
   * Up to `limit` ids of the organization's live generations that ended (`complete` or `failed`)
   * and were created before `before`, oldest first: what its render retention deletes. Served by
   * an index of live generations by age, so tombstones are never read.
   */
  expired(organizationId: string, before: number, limit: number): Promise<string[]>;
}
