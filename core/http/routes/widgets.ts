import type { H3, H3Event } from 'h3';
import * as v from 'valibot';
import type { Config } from '../../../config/schema.ts';
import { browserId } from '../../domain/conversion-input.ts';
import { generationResource } from '../../domain/generation.ts';
import { maxImageBytes } from '../../domain/generation-input.ts';
import { createWidgetSchema, updateWidgetSchema, widgetGenerationSchema } from '../../domain/widget-input.ts';
import { ApiError } from '../../domain/errors.ts';
import { utcDate, type WidgetRecord } from '../../domain/widget.ts';
import type { WidgetWithUsage } from '../../services/widgets.ts';
import { readValidJson, validate } from '../body.ts';
import { allowWidgetOrigin, clientAddress, preflight, setAlways } from '../browser-access.ts';
import { httpAnswerOf } from '../error-status.ts';
import { readJsonWithPhoto } from '../photo-body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';

/** As for POST /v1/generations: a 10 MB photo as base64 plus a small rest. */
const generationBodyLimit = Math.ceil((maxImageBytes * 4) / 3) + 512 * 1024;
/** All of a shopper's generation but the photo: ids, three products and a hint need a few KB. */
export const widgetBodyLimitBesidesPhoto = 64 * 1024;

export const widgetResource = (widget: WidgetWithUsage) => ({
  id: widget.id,
  object: 'widget' as const,
  storeId: widget.storeId,
  mode: widget.mode,
  imageSize: widget.imageSize,
  allowedOrigins: widget.allowedOrigins,
  dailyGenerationCap: widget.dailyGenerationCap,
  dailyCreditCap: widget.dailyCreditCap,
  usageToday: {
    date: utcDate(widget.usageToday.day),
    generations: widget.usageToday.generations,
    credits: widget.usageToday.credits,
  },
  createdAt: isoTime(widget.createdAt),
});

/** What a shopper's page may know of a widget. */
const publicWidgetResource = (widget: WidgetRecord) => ({
  id: widget.id,
  object: 'widget' as const,
  mode: widget.mode,
  imageSize: widget.imageSize,
});

const listQuery = v.object({
  ...pageQuerySchema.entries,
  storeId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});
const visitorQuery = v.object({ visitorId: browserId });

export function widgetRoutes(app: H3, limits: RouteLimits, config: Config) {
  app.post('/v1/widgets', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const widget = await services(event).widgets.create(
      key.organizationId,
      await readValidJson(event, createWidgetSchema),
    );
    event.res.status = 201;
    return widgetResource(widget);
  });

  app.get('/v1/widgets', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(listQuery, queryOf(event));
    const page = await services(event).widgets.list(key.organizationId, {
      storeId: query.storeId,
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map(widgetResource), has_more: page.hasMore };
  });

  app.get('/v1/widgets/:id', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    return widgetResource(await services(event).widgets.get(key.organizationId, pathId(event, 'id', 'widget')));
  });

  app.patch('/v1/widgets/:id', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const id = pathId(event, 'id', 'widget');
    return widgetResource(
      await services(event).widgets.update(key.organizationId, id, await readValidJson(event, updateWidgetSchema)),
    );
  });

  // Keyless endpoints the widget calls from shoppers' browsers, on the widget's allowed origins only.

  /** The widget, with CORS answered for its origins. Unknown widgets are 404 to any page. */
  const widgetFor = async (event: H3Event) => {
    setAlways(event, 'vary', 'Origin');
    try {
      const widget = await services(event).widgets.findPublic(pathId(event, 'widgetId', 'widget'));
      allowWidgetOrigin(event, widget);
      return widget;
    } catch (error) {
      if (error instanceof ApiError && httpAnswerOf(error).status === 404)
        setAlways(event, 'access-control-allow-origin', '*');
      throw error;
    }
  };

  for (const path of [
    '/api/widgets/:widgetId',
    '/api/widgets/:widgetId/generations',
    '/api/widgets/:widgetId/generations/:id',
  ]) {
    app.options(path, async (event) => {
      await widgetFor(event);
      return preflight(event, 'GET, POST', 600);
    });
  }

  app.get('/api/widgets/:widgetId', async (event) => {
    const widget = await widgetFor(event);
    await limits.widgetReadsPerIp.take(clientAddress(event, config.trustProxy));
    return publicWidgetResource(widget);
  });

  app.post('/api/widgets/:widgetId/generations', async (event) => {
    const widget = await widgetFor(event);
    await limits.widgetGenerationsPerIp.take(clientAddress(event, config.trustProxy));
    const input = validate(
      widgetGenerationSchema,
      await readJsonWithPhoto(event, { limit: generationBodyLimit, restLimit: widgetBodyLimitBesidesPhoto }),
    );
    await limits.widgetGenerationsPerVisitor.take(`${widget.id}:${input.visitorId}`);
    const generation = await services(event).widgets.createGeneration(widget, input);
    event.res.status = 202;
    return generationResource(generation);
  });

  app.get('/api/widgets/:widgetId/generations/:id', async (event) => {
    const widget = await widgetFor(event);
    await limits.widgetReadsPerIp.take(clientAddress(event, config.trustProxy));
    const { visitorId } = validate(visitorQuery, queryOf(event));
    return generationResource(
      await services(event).widgets.getGeneration(widget, visitorId, pathId(event, 'id', 'generation')),
    );
  });
}
