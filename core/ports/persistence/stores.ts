import type { Store } from '../../domain/store.ts';

export interface StoreRepository {
  create(store: Store): Promise<Store>;
  get(organizationId: string, storeId: string): Promise<Store | null>;
  /** The store alone, for keyless browser calls that only carry a store id. */
  findById(storeId: string): Promise<Store | null>;
  list(organizationId: string): Promise<Store[]>;
}
