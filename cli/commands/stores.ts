import { jsonOption, requireInteger, requireText, type Command } from '../command.ts';
import { printRecords } from '../output.ts';
import { iso, withServices } from './tenant-commands.ts';

export const storesCreate: Command = {
  name: 'stores create',
  usage: 'stores create --org ORG_ID --name NAME [--attribution-window-days N] [--json]',
  summary: 'Add a store to an organization.',
  options: {
    org: { type: 'string' },
    name: { type: 'string' },
    'attribution-window-days': { type: 'string' },
    ...jsonOption,
  },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const name = requireText(values, 'name');
    const attributionWindowDays = requireInteger(values, 'attribution-window-days', { required: false, min: 1 });
    const store = await withServices(context, ({ tenants }) =>
      tenants.createStore(organizationId, { name, attributionWindowDays }),
    );
    if (values.json)
      context.output.out(
        JSON.stringify({
          storeId: store.id,
          organizationId,
          name: store.name,
          attributionWindowDays: store.attributionWindowDays,
        }),
      );
    else context.output.out(`Store ${store.id} (${store.name}) added to ${organizationId}`);
    return 0;
  },
};

export const storesList: Command = {
  name: 'stores list',
  usage: 'stores list --org ORG_ID [--json]',
  summary: "List an organization's stores.",
  options: { org: { type: 'string' }, ...jsonOption },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const stores = await withServices(context, ({ tenants }) => tenants.listStores(organizationId));
    const records = stores.map((store) => ({
      id: store.id,
      name: store.name,
      attributionWindowDays: store.attributionWindowDays,
      createdAt: iso(store.createdAt),
    }));
    printRecords(context.output, Boolean(values.json), records, ['id', 'name', 'attributionWindowDays', 'createdAt']);
    return 0;
  },
};
