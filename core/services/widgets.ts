import type { Ports } from '../ports/index.ts';
import type { GenerationService } from './generations.ts';
import { notFound } from '../domain/errors.ts';
import { creditCost } from '../domain/generation.ts';
import type { CreateWidgetInput, UpdateWidgetInput, WidgetGenerationInput } from '../domain/widget-input.ts';
import {
  capPassed,
  capsOf,
  checkCreditCap,
  dailyCapReached,
  noUsage,
  utcDayOf,
  type WidgetDayUsage,
  type WidgetRecord,
} from '../domain/widget.ts';

export type WidgetService = ReturnType<typeof widgetService>;

/** A widget with what it used today (UTC), as its owner reads it. */
export type WidgetWithUsage = WidgetRecord & { usageToday: WidgetDayUsage & { day: number } };

/** Widgets (a store's keyless entry point for shoppers' generations) and the generations they make. */
export function widgetService({
  persistence,
  ids,
  clock,
  generations,
}: Pick<Ports, 'persistence' | 'ids' | 'clock'> & { generations: GenerationService }) {
  async function withUsage(widgets: WidgetRecord[]): Promise<WidgetWithUsage[]> {
    const day = utcDayOf(clock.now());
    const usage = await persistence.widgets.usageOn(
      widgets.map((widget) => widget.id),
      day,
    );
    return widgets.map((widget) => ({ ...widget, usageToday: { ...(usage.get(widget.id) ?? noUsage), day } }));
  }

  return {
    async create(organizationId: string, input: CreateWidgetInput): Promise<WidgetWithUsage> {
      const store = await persistence.stores.get(organizationId, input.storeId);
      if (!store) throw notFound('store', input.storeId, 'storeId');
      checkCreditCap(input.dailyCreditCap, input.imageSize);
      const widget: WidgetRecord = {
        id: ids.id('wdg_'),
        organizationId,
        storeId: store.id,
        mode: input.mode,
        imageSize: input.imageSize,
        allowedOrigins: input.allowedOrigins,
        dailyGenerationCap: input.dailyGenerationCap,
        dailyCreditCap: input.dailyCreditCap,
        createdAt: clock.now(),
      };
      await persistence.widgets.create(widget);
      return { ...widget, usageToday: { ...noUsage, day: utcDayOf(clock.now()) } };
    },

    async get(organizationId: string, id: string) {
      const widget = await persistence.widgets.get(organizationId, id);
      if (!widget) throw notFound('widget', id);
      return (await withUsage([widget]))[0]!;
    },

    /** Changes what the body names; keyless calls read the widget afresh each time, so they see it at once. */
    async update(organizationId: string, id: string, input: UpdateWidgetInput) {
      if (input.dailyCreditCap !== undefined || input.imageSize !== undefined) {
        const current = await persistence.widgets.get(organizationId, id);
        if (!current) throw notFound('widget', id);
        checkCreditCap(
          input.dailyCreditCap === undefined ? current.dailyCreditCap : input.dailyCreditCap,
          input.imageSize ?? current.imageSize,
        );
      }
      const widget = await persistence.widgets.update(organizationId, id, input);
      if (!widget) throw notFound('widget', id);
      return (await withUsage([widget]))[0]!;
    },

    async list(organizationId: string, options: { storeId?: string; limit: number; startingAfter?: string }) {
      if (options.storeId && !(await persistence.stores.get(organizationId, options.storeId)))
        throw notFound('store', options.storeId, 'storeId');
      const page = await persistence.widgets.list(organizationId, options);
      return { data: await withUsage(page.data), hasMore: page.hasMore };
    },

    /** A widget for a keyless call, which carries only the widget id. */
    async findPublic(id: string) {
      const widget = await persistence.widgets.findById(id);
      if (!widget) throw notFound('widget', id, 'widgetId');
      return widget;
    },

    /**
     * A generation for a shopper: the widget fixes store, mode and size; credits come from the
     * widget's organization and webhooks fire as for any generation. Within the widget's daily
     * caps (UTC day): counted in the transaction that debits the credits, so requests racing at the
     * edge, in any processes, never both pass; checked once before as well, so a request clearly
     * past a cap is refused before its photo is stored.
     */
    async createGeneration(widget: WidgetRecord, input: WidgetGenerationInput) {
      const now = clock.now();
      const caps = capsOf(widget);
      const cost = creditCost[widget.imageSize];
      const today = (await persistence.widgets.usageOn([widget.id], utcDayOf(now))).get(widget.id) ?? noUsage;
      const passed = capPassed(caps, today, cost);
      if (passed) throw dailyCapReached(passed, caps, now);
      const { generation } = await generations.create(
        {
          organizationId: widget.organizationId,
          storeId: widget.storeId,
          widgetId: widget.id,
          widgetCaps: caps,
          visitorId: input.visitorId,
          sessionId: input.sessionId,
        },
        {
          mode: widget.mode,
          imageSize: widget.imageSize,
          image: input.image,
          products: input.products,
          hint: input.hint ?? null,
          metadata: null,
        },
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
