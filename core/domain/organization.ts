/** A customer account: it owns stores, keys and credits. */
export interface Organization {
  id: string;
  name: string;
  creditBalance: number;
  /** Days a render is kept after it was made; null keeps renders for ever (the default). */
  renderRetentionDays: number | null;
  createdAt: number;
}
