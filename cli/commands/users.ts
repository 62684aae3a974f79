import { userRoles, type UserRole } from '../../core/domain/accounts.ts';
import type { IssuedLink } from '../../core/services/accounts.ts';
import { jsonOption, requireText, UsageError, type Command } from '../command.ts';
import type { Output } from '../output.ts';
import { iso, withServices } from './tenant-commands.ts';

/** An invitation as `users invite --json` and `orgs create --admin-email --json` print it. */
export const invitationRecord = (link: IssuedLink) => ({
  userId: link.user.id,
  email: link.user.email,
  role: link.user.role,
  organizationId: link.user.organizationId,
  url: link.url,
  expiresAt: iso(link.expiresAt),
});

export function printInvitation(output: Output, link: IssuedLink) {
  output.out(`Invitation for ${link.user.email} (${link.user.role}): ${link.url}`);
  output.out(
    `Send them this link: it sets their password and works once, until ${iso(link.expiresAt)}. It is shown only now.`,
  );
}

export const usersInvite: Command = {
  name: 'users invite',
  usage: 'users invite --org ORG_ID --email EMAIL --role admin|viewer [--json]',
  summary: "Invite a person to an organization's dashboard: prints a one-time link to set their password.",
  options: { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, ...jsonOption },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const email = requireText(values, 'email');
    const role = requireText(values, 'role') as UserRole;
    if (!userRoles.includes(role))
      throw new UsageError(`--role must be one of ${userRoles.join(', ')}, not '${role}'.`);
    const link = await withServices(context, ({ accounts }) => accounts.invite(organizationId, { email, role }));
    if (values.json) context.output.out(JSON.stringify(invitationRecord(link)));
    else printInvitation(context.output, link);
    return 0;
  },
};
