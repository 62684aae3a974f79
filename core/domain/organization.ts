/** A customer account: it owns stores, keys and credits. */
export interface Organization {
  id: string;
  name: string;
  creditBalance: number;
  createdAt: number;
}
