import type { Store } from '../../domain/store.ts';

export interface StoreRepository {
  create(store: Store): Promise<Store>;
  get(organizationId: string, storeId: string): Promise<Store | null>;
  /** The store alone, for keyless browser calls that only carry a store id. */
  findById(storeId: string): Promise<Store | null>;
  /** Newest first (by createdAt, then id); `startingAfter` is the id of the previous page's last store. */
  list(
    organizationId: string,
    options: { limit: number; startingAfter?: string },
  ): Promise<{ data: Store[]; hasMore: boolean }>;
}
