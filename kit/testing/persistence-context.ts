import type { tenantService } from '../../core/services/tenants.ts';
import type { Persistence } from '../plugin.ts';

/**
 * What each group's suite of the persistence contract runs on (`persistenceContract` makes it):
 * the suite's handle on a migrated database, more handles on the same database (as other
 * processes would open), and the tenant service to make organizations with.
 */
export interface PersistenceSuiteContext {
  store(): Persistence;
  open(): Persistence;
  tenants(): ReturnType<typeof tenantService>;
}
