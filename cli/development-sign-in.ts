import type { Cradle } from '../core/cradle.ts';
import { demoAvailability } from '../demo/availability.ts';

/** The first admin `serve` gives the development organization it creates on a new database. */
export const developmentAdminEmail = 'admin@development.localhost';

/** Makes the development organization's first admin (no password: they sign in by link). */
export const ensureDevelopmentAdmin = ({ accounts }: Pick<Cradle, 'accounts'>, organizationId: string) =>
  accounts.ensureAdmin(organizationId, developmentAdminEmail);

/**
 * The banner line with a one-time link that signs the development admin in, so `npm start` leads
 * straight into the dashboard. Only where the demo shop would be served (loopback, not production):
 * anywhere else a link in the logs would be a credential lying about.
 */
export async function developmentSignInLine({
  accounts,
  persistence,
  config,
}: Pick<Cradle, 'accounts' | 'persistence' | 'config'>): Promise<string | null> {
  if (!demoAvailability(config).enabled) return null;
  const admin = await persistence.users.findByEmail(developmentAdminEmail);
  if (!admin) return null;
  const link = await accounts.issueSignInLink(admin.organizationId, admin.id);
  return `Dashboard sign-in: ${link.url} (signs in ${admin.email} once, within 15 minutes; a new link each start)`;
}
