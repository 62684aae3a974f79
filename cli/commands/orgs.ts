import { ApiError } from '../../core/domain/errors.ts';
import { requireEmail } from '../../core/services/accounts.ts';
import { jsonOption, requireInteger, requireText, UsageError, type Command } from '../command.ts';
import { printRecords } from '../output.ts';
import { iso, withServices } from './tenant-commands.ts';
import { invitationRecord, printInvitation } from './users.ts';

export const orgsCreate: Command = {
  name: 'orgs create',
  usage: 'orgs create --name NAME --credits N [--store-name NAME] [--admin-email EMAIL] [--json]',
  summary: 'Create an organization with a store, a secret API key and a conversion key (keys are shown once); --admin-email invites its first dashboard admin.',
  options: { name: { type: 'string' }, credits: { type: 'string' }, 'store-name': { type: 'string' }, 'admin-email': { type: 'string' }, ...jsonOption },
  async run(values, { env, output }) {
    const name = requireText(values, 'name');
    const credits = requireInteger(values, 'credits')!;
    const storeName = values['store-name'] === undefined ? undefined : requireText(values, 'store-name');
    const adminEmail = values['admin-email'] === undefined ? undefined : requireText(values, 'admin-email');
    const { created, invitation } = await withServices({ env, output }, async ({ tenants, accounts, persistence }) => {
      if (adminEmail !== undefined) {
        // Checked before the organization exists, so a taken or malformed address creates nothing.
        let email: string;
        try {
          email = requireEmail(adminEmail);
        } catch (error) {
          throw error instanceof ApiError ? new UsageError(`--admin-email must be an email address, not '${adminEmail}'.`) : error;
        }
        if (await persistence.users.findByEmail(email)) throw new UsageError(`--admin-email: ${email} already belongs to a dashboard user.`);
      }
      const created = await tenants.createOrganization({ name, credits, storeName });
      const invitation = adminEmail === undefined ? null : await accounts.invite(created.organization.id, { email: adminEmail, role: 'admin' });
      return { created, invitation };
    });
    const result = {
      organizationId: created.organization.id,
      storeId: created.store.id,
      apiKey: created.apiKey.key,
      conversionKey: created.conversionKey.key,
      credits: created.organization.creditBalance,
      ...(invitation ? { adminInvitation: invitationRecord(invitation) } : {}),
    };
    if (values.json) {
      output.out(JSON.stringify(result));
    } else {
      output.out(`Organization ${result.organizationId} (${name}) with ${result.credits} credits`);
      output.out(`Store          ${result.storeId}`);
      output.out(`API key        ${result.apiKey}`);
      output.out(`Conversion key ${result.conversionKey}`);
      output.out('The keys are shown only now: store them somewhere safe.');
      if (invitation) printInvitation(output, invitation);
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
