import { ApiError } from '../../core/domain/errors.ts';
import { requireEmail } from '../../core/services/accounts.ts';
import { jsonOption, requireInteger, requireText, UsageError, type Command } from '../command.ts';
import { printRecords } from '../output.ts';
import { maxRenderRetentionDays } from '../../core/services/tenants.ts';
import { iso, withServices } from './tenant-commands.ts';
import { invitationRecord, printInvitation } from './users.ts';

export const orgsCreate: Command = {
  name: 'orgs create',
  usage: 'orgs create --name NAME --credits N [--store-name NAME] [--admin-email EMAIL] [--json]',
  summary:
    'Create an organization with a store, a secret API key and a conversion key (keys are shown once); --admin-email invites its first dashboard admin.',
  options: {
    name: { type: 'string' },
    credits: { type: 'string' },
    'store-name': { type: 'string' },
    'admin-email': { type: 'string' },
    ...jsonOption,
  },
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
          throw error instanceof ApiError
            ? new UsageError(`--admin-email must be an email address, not '${adminEmail}'.`)
            : error;
        }
        if (await persistence.users.findByEmail(email))
          throw new UsageError(`--admin-email: ${email} already belongs to a dashboard user.`);
      }
      const created = await tenants.createOrganization({ name, credits, storeName });
      const invitation =
        adminEmail === undefined
          ? null
          : await accounts.invite(created.organization.id, { email: adminEmail, role: 'admin' });
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
    const records = organizations.map((org) => ({
      id: org.id,
      name: org.name,
      credits: org.creditBalance,
      renderRetentionDays: org.renderRetentionDays,
      createdAt: iso(org.createdAt),
    }));
    printRecords(context.output, Boolean(values.json), records, [
      'id',
      'name',
      'credits',
      'renderRetentionDays',
      'createdAt',
    ]);
    return 0;
  },
};

export const orgsUpdate: Command = {
  name: 'orgs update',
  usage: 'orgs update --org ORG_ID --render-retention-days N|forever [--json]',
  summary:
    "Change an organization's settings: --render-retention-days deletes each render (its images and uploaded photo) N days after it was made; 'forever' (the default) keeps them.",
  options: { org: { type: 'string' }, 'render-retention-days': { type: 'string' }, ...jsonOption },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const given = requireText(values, 'render-retention-days');
    let days: number | null;
    if (given === 'forever') days = null;
    else {
      days = /^\d+$/.test(given.trim()) ? Number(given.trim()) : NaN;
      if (!Number.isSafeInteger(days) || days < 1 || days > maxRenderRetentionDays) {
        throw new UsageError(
          `--render-retention-days must be a whole number from 1 to ${maxRenderRetentionDays}, or 'forever', not '${given}'.`,
        );
      }
    }
    const organization = await withServices(context, ({ tenants }) => tenants.setRenderRetention(organizationId, days));
    if (values.json) {
      context.output.out(
        JSON.stringify({
          organizationId: organization.id,
          name: organization.name,
          renderRetentionDays: organization.renderRetentionDays,
        }),
      );
    } else {
      const kept =
        organization.renderRetentionDays === null
          ? 'kept for ever'
          : `deleted ${organization.renderRetentionDays} day${organization.renderRetentionDays === 1 ? '' : 's'} after they are made`;
      context.output.out(`Organization ${organization.id} (${organization.name}): renders are ${kept}.`);
    }
    return 0;
  },
};
