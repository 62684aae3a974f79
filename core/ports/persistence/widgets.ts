import type { GenerationRecord } from '../../domain/generation.ts';
import type { WidgetRecord } from '../../domain/widget.ts';

export interface WidgetRepository {
  create(widget: WidgetRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<WidgetRecord | null>;
  /** Changes the given fields; null when the organization has no such widget. */
  update(organizationId: string, id: string, changes: Partial<Pick<WidgetRecord, 'mode' | 'imageSize' | 'allowedOrigins' | 'dailyGenerationCap'>>): Promise<WidgetRecord | null>;
  /** The widget alone, for keyless browser calls that only carry its id. */
  findById(id: string): Promise<WidgetRecord | null>;
  /** Newest first. */
  list(organizationId: string, options: { storeId?: string; limit: number; startingAfter?: string }): Promise<{ data: WidgetRecord[]; hasMore: boolean }>;
  /** Generations the widget created at or after `since`. */
  countGenerationsSince(widgetId: string, since: number): Promise<number>;
  /** The widget's generation made for that visitor, or null. */
  generationForVisitor(widgetId: string, visitorId: string, generationId: string): Promise<GenerationRecord | null>;
}
