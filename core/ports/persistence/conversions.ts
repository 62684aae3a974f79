import type { ConversionRecord } from '../../domain/conversion.ts';

export interface ConversionRepository {
  /** Inserts the conversion unless its (storeId, orderId) exists; true when this call inserted it. */
  insertIfAbsent(conversion: ConversionRecord): Promise<boolean>;
  /** The store's conversion for the order; inside a transaction `forUpdate` locks it (where the database can) until commit. */
  findByOrder(storeId: string, orderId: string, options?: { forUpdate?: boolean }): Promise<ConversionRecord | null>;
  update(conversion: ConversionRecord): Promise<void>;
  /** Newest `orderCreatedAt` first; `from` inclusive, `to` exclusive; `startingAfter` is a conversion id. */
  list(
    organizationId: string,
    options: { storeId?: string; from?: number; to?: number; limit: number; startingAfter?: string },
  ): Promise<{ data: ConversionRecord[]; hasMore: boolean }>;
  /** Counts over the store's conversions with `orderCreatedAt` in [from, to), refunded and cancelled ones left out. */
  totals(
    storeId: string,
    range: { from: number; to: number },
  ): Promise<{ conversions: number; attributedConversions: number; attributedRevenue: Record<string, number> }>;
  /**
   * Per UTC day (days since the epoch, of `orderCreatedAt`) and currency, over [from, to): the
   * conversions, the attributed ones and their attributed revenue (minor units), refunded and
   * cancelled ones left out, as `totals` counts them. The organization's, or only the store's when
   * `storeId` is given (the caller has checked the store is the organization's). Days without any
   * are left out. One grouped query on an index by (organization or store, orderCreatedAt).
   */
  daily(
    scope: { organizationId: string; storeId?: string },
    range: { from: number; to: number },
  ): Promise<
    Array<{
      day: number;
      currency: string;
      conversions: number;
      attributedConversions: number;
      attributedRevenue: number;
    }>
  >;
  /** Distinct non-empty visitor ids of the store's conversions in [from, to): all of them, and those still counting. */
  visitors(storeId: string, range: { from: number; to: number }): Promise<{ seen: string[]; converted: string[] }>;
}
