import { ApiError } from '../../core/domain/errors.ts';
import { validate } from '../../core/http/body.ts';
import { createWidgetSchema } from '../../core/domain/widget-input.ts';
import { checkCreditCap, type WidgetRecord } from '../../core/domain/widget.ts';
import { jsonOption, requireInteger, requireText, UsageError, type Command } from '../command.ts';
import { printRecords } from '../output.ts';
import { iso, withServices } from './tenant-commands.ts';

/** The option each field of the widget comes from, to name it in a usage error. */
const optionOf: Record<string, string> = {
  storeId: '--store',
  mode: '--mode',
  imageSize: '--image-size',
  allowedOrigins: '--origin',
  dailyGenerationCap: '--daily-cap',
  dailyCreditCap: '--daily-credit-cap',
};

const widgetRecord = (widget: WidgetRecord) => ({
  id: widget.id,
  storeId: widget.storeId,
  mode: widget.mode,
  imageSize: widget.imageSize,
  allowedOrigins: widget.allowedOrigins,
  dailyGenerationCap: widget.dailyGenerationCap,
  dailyCreditCap: widget.dailyCreditCap,
  createdAt: iso(widget.createdAt),
});

export const widgetsCreate: Command = {
  name: 'widgets create',
  usage:
    'widgets create --org ORG_ID --store STORE_ID --mode virtual-try-on|room-visualizer --origin ORIGIN [--origin ORIGIN …] [--image-size 1K|2K|4K] [--daily-cap N] [--daily-credit-cap N] [--json]',
  summary: "Add a widget to a store: shoppers' pages on its origins create generations through it without a key.",
  options: {
    org: { type: 'string' },
    store: { type: 'string' },
    mode: { type: 'string' },
    origin: { type: 'string', multiple: true },
    'image-size': { type: 'string' },
    'daily-cap': { type: 'string' },
    'daily-credit-cap': { type: 'string' },
    ...jsonOption,
  },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const origins = (values as Record<string, unknown>).origin as string[] | undefined;
    if (!origins?.length) throw new UsageError('--origin is required (repeat it for each origin).');
    let input;
    try {
      input = validate(createWidgetSchema, {
        storeId: requireText(values, 'store'),
        mode: requireText(values, 'mode'),
        imageSize: values['image-size'],
        allowedOrigins: origins,
        dailyGenerationCap: requireInteger(values, 'daily-cap', { required: false, min: 1 }),
        dailyCreditCap: requireInteger(values, 'daily-credit-cap', { required: false, min: 1 }),
      });
      checkCreditCap(input.dailyCreditCap, input.imageSize);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const field = error.param?.replace(/\[.*$/, '') ?? '';
      throw new UsageError(`${optionOf[field] ?? field}: ${error.message.replace(/^[^:]*: /, '')}`);
    }
    const widget = await withServices(context, async ({ tenants, widgets }) => {
      await tenants.listStores(organizationId); // an unknown organization says so, rather than "no such store"
      return widgets.create(organizationId, input);
    });
    if (values.json)
      context.output.out(JSON.stringify({ widgetId: widget.id, organizationId, ...widgetRecord(widget) }));
    else
      context.output.out(
        `Widget ${widget.id} (${widget.mode}, ${widget.imageSize}) added to store ${widget.storeId} for ${widget.allowedOrigins.join(', ')}`,
      );
    return 0;
  },
};

export const widgetsList: Command = {
  name: 'widgets list',
  usage: 'widgets list --org ORG_ID [--json]',
  summary: "List an organization's widgets, newest first.",
  options: { org: { type: 'string' }, ...jsonOption },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const widgets = await withServices(context, async ({ tenants, widgets }) => {
      await tenants.listStores(organizationId);
      const all: WidgetRecord[] = [];
      for (let startingAfter: string | undefined; ; ) {
        const page = await widgets.list(organizationId, { limit: 100, startingAfter });
        all.push(...page.data);
        if (!page.hasMore) return all;
        startingAfter = page.data.at(-1)!.id;
      }
    });
    const records = widgets.map(widgetRecord);
    if (values.json) printRecords(context.output, true, records, []);
    else
      printRecords(
        context.output,
        false,
        records.map((record) => ({
          ...record,
          dailyCreditCap: record.dailyCreditCap ?? 'none',
          allowedOrigins: record.allowedOrigins.join(' '),
        })),
        ['id', 'storeId', 'mode', 'imageSize', 'dailyGenerationCap', 'dailyCreditCap', 'allowedOrigins', 'createdAt'],
      );
    return 0;
  },
};
