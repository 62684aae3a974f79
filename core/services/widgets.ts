import type { Cradle } from '../cradle.ts';
import { dayMs } from '../domain/attribution.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import type { CreateWidgetInput, UpdateWidgetInput, WidgetGenerationInput } from '../domain/widget-input.ts';
import type { WidgetRecord } from '../domain/widget.ts';

export type WidgetService = ReturnType<typeof widgetService>;

/** Widgets (a store's keyless entry point for shoppers' generations) and the generations they make. */
export function widgetService({ persistence, ids, clock, generations }: Pick<Cradle, 'persistence' | 'ids' | 'clock' | 'generations'>) {
  return {
    async create(organizationId: string, input: CreateWidgetInput): Promise<WidgetRecord> {
      const store = await persistence.stores.get(organizationId, input.storeId);
      if (!store) throw notFound('store', input.storeId, 'storeId');
      const widget: WidgetRecord = {
        id: ids.id('wdg_'),
        organizationId,
        storeId: store.id,
        mode: input.mode,
        imageSize: input.imageSize,
        allowedOrigins: input.allowedOrigins,
        dailyGenerationCap: input.dailyGenerationCap,
        createdAt: clock.now(),
      };
      await persistence.widgets.create(widget);
      return widget;
    },

    async get(organizationId: string, id: string) {
      const widget = await persistence.widgets.get(organizationId, id);
      if (!widget) throw notFound('widget', id);
      return widget;
    },

    /** Changes what the body names; keyless calls read the widget afresh each time, so they see it at once. */
    async update(organizationId: string, id: string, input: UpdateWidgetInput) {
      const widget = await persistence.widgets.update(organizationId, id, input);
      if (!widget) throw notFound('widget', id);
      return widget;
    },

    async list(organizationId: string, options: { storeId?: string; limit: number; startingAfter?: string }) {
      if (options.storeId && !(await persistence.stores.get(organizationId, options.storeId))) throw notFound('store', options.storeId, 'storeId');
      return persistence.widgets.list(organizationId, options);
    },

    /** A widget for a keyless call, which carries only the widget id. */
    async findPublic(id: string) {
      const widget = await persistence.widgets.findById(id);
      if (!widget) throw notFound('widget', id, 'widgetId');
      return widget;
    },

    /**
     * A generation for a shopper: the widget fixes store, mode and size; credits come from the
     * widget's organization and webhooks fire as for any generation. At most the widget's daily
     * cap since UTC midnight (checked before creating, so requests racing at the edge may pass
     * together).
     */
    async createGeneration(widget: WidgetRecord, input: WidgetGenerationInput) {
      const now = clock.now();
      const midnight = now - (((now % dayMs) + dayMs) % dayMs);
      if ((await persistence.widgets.countGenerationsSince(widget.id, midnight)) >= widget.dailyGenerationCap) {
        const retryAfter = Math.max(1, Math.ceil((midnight + dayMs - now) / 1000));
        throw new ApiError(
          'rate_limit_error',
          'daily_cap_reached',
          `This widget has made its ${widget.dailyGenerationCap} generations for today (UTC); it makes more after midnight UTC.`,
          null,
          429,
          { 'retry-after': String(retryAfter) },
        );
      }
      const { generation } = await generations.create(
        { organizationId: widget.organizationId, storeId: widget.storeId, widgetId: widget.id, visitorId: input.visitorId, sessionId: input.sessionId },
        { mode: widget.mode, imageSize: widget.imageSize, image: input.image, products: input.products, hint: input.hint ?? null, metadata: null },
        null,
      );
      return generation;
    },

    /** The widget's generation, only for the visitor it was made for. */
    async getGeneration(widget: WidgetRecord, visitorId: string, id: string) {
      const generation = await persistence.widgets.generationForVisitor(widget.id, visitorId, id);
      if (!generation) throw notFound('generation', id);
      return generation;
    },
  };
}
