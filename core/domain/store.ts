/** One shop of an organization; conversions and widgets belong to a store. */
export interface Store {
  id: string;
  organizationId: string;
  name: string;
  /** Days before a conversion in which a visualization earns it; 7 unless the store says otherwise. */
  attributionWindowDays: number;
  createdAt: number;
}
