import { jsonOption, requireInteger, requireText, type Command } from '../command.ts';
import { printRecords } from '../output.ts';
import { iso, withServices } from './tenant-commands.ts';

export const orgsCreate: Command = {
  name: 'orgs create',
  usage: 'orgs create --name NAME --credits N [--store-name NAME] [--json]',
  summary: 'Create an organization with a store, a secret API key and a conversion key (keys are shown once).',
  options: { name: { type: 'string' }, credits: { type: 'string' }, 'store-name': { type: 'string' }, ...jsonOption },
  async run(values, { env, output }) {
    const name = requireText(values, 'name');
    const credits = requireInteger(values, 'credits')!;
    const storeName = values['store-name'] === undefined ? undefined : requireText(values, 'store-name');
    const created = await withServices({ env, output }, ({ tenants }) => tenants.createOrganization({ name, credits, storeName }));
    const result = {
      organizationId: created.organization.id,
      storeId: created.store.id,
      apiKey: created.apiKey.key,
      conversionKey: created.conversionKey.key,
      credits: created.organization.creditBalance,
    };
    if (values.json) {
      output.out(JSON.stringify(result));
    } else {
      output.out(`Organization ${result.organizationId} (${name}) with ${result.credits} credits`);
      output.out(`Store          ${result.storeId}`);
      output.out(`API key        ${result.apiKey}`);
      output.out(`Conversion key ${result.conversionKey}`);
      output.out('The keys are shown only now: store them somewhere safe.');
    }
    return 0;
  },
};

export const orgsList: Command = {
  name: 'orgs list',
  usage: 'orgs list [--json]',
  summary: 'List organizations and their credit balances.',
  options: { ...jsonOption },
  async run(values, context) {
    const organizations = await withServices(context, ({ tenants }) => tenants.listOrganizations());
    const records = organizations.map((org) => ({ id: org.id, name: org.name, credits: org.creditBalance, createdAt: iso(org.createdAt) }));
    printRecords(context.output, Boolean(values.json), records, ['id', 'name', 'credits', 'createdAt']);
    return 0;
  },
};
