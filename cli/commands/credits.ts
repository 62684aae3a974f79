import { jsonOption, requireInteger, requireText, type Command } from '../command.ts';
import { withServices } from './tenant-commands.ts';

export const creditsAdd: Command = {
  name: 'credits add',
  usage: 'credits add --org ORG_ID --amount N [--reason TEXT] [--json]',
  summary: 'Grant credits to an organization (recorded in its ledger).',
  options: {
    org: { type: 'string' },
    amount: { type: 'string' },
    reason: { type: 'string', default: 'manual_grant' },
    ...jsonOption,
  },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const amount = requireInteger(values, 'amount', { min: 1 })!;
    const reason = requireText(values, 'reason');
    const balance = await withServices(context, ({ tenants }) => tenants.addCredits(organizationId, amount, reason));
    if (values.json) context.output.out(JSON.stringify({ organizationId, added: amount, balance }));
    else context.output.out(`Added ${amount} credits to ${organizationId}; balance ${balance}`);
    return 0;
  },
};
