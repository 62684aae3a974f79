import type { GenerationRecord } from '../../domain/generation.ts';
import type { WidgetCaps, WidgetDayUsage, WidgetRecord } from '../../domain/widget.ts';

export interface WidgetRepository {
  create(widget: WidgetRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<WidgetRecord | null>;
  /** Changes the given fields; null when the organization has no such widget. */
  update(
    organizationId: string,
    id: string,
    changes: Partial<
      Pick<WidgetRecord, 'mode' | 'imageSize' | 'allowedOrigins' | 'dailyGenerationCap' | 'dailyCreditCap'>
    >,
  ): Promise<WidgetRecord | null>;
  /** The widget alone, for keyless browser calls that only carry its id. */
  findById(id: string): Promise<WidgetRecord | null>;
  /** Newest first. */
  list(
    organizationId: string,
    options: { storeId?: string; limit: number; startingAfter?: string },
  ): Promise<{ data: WidgetRecord[]; hasMore: boolean }>;
  /**
   * Counts a generation of the widget on `day` (UTC days since the epoch): one more generation and
   * `credits` more credits, only if the day then stays within `caps` (null: no cap); otherwise
   * changes nothing. Answers whether it counted, and the day's usage after (or as it stands when
   * refused). One atomic check-and-set: calls racing for a widget's day, from any number of
   * processes, are ordered (the row's lock on Postgres, the write lock on SQLite), so no two can
   * both take the last of a cap. Called in the transaction that debits the generation's credits.
   */
  countGeneration(count: {
    widgetId: string;
    day: number;
    credits: number;
    caps: WidgetCaps;
  }): Promise<{ counted: boolean; usage: WidgetDayUsage }>;
  /** Gives `credits` back to the widget's `day` (a failed generation's refund); never below zero. */
  refundCredits(widgetId: string, day: number, credits: number): Promise<void>;
  /** What the widgets used on `day`; a widget that made nothing that day is left out. */
  usageOn(widgetIds: string[], day: number): Promise<Map<string, WidgetDayUsage>>;
  /** The widget's generation made for that visitor, or null. */
  generationForVisitor(widgetId: string, visitorId: string, generationId: string): Promise<GenerationRecord | null>;
}
