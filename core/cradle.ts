import type { Config } from '../config/schema.ts';
import type { Logger } from './logger.ts';
import type { Clock } from './ports/clock.ts';
import type { IdGenerator } from './ports/ids.ts';
import type { Persistence } from './ports/persistence.ts';
import type { Authenticator } from './services/authenticate.ts';
import type { TenantService } from './services/tenants.ts';

/** Everything the container can resolve, by name. Plugins register ports under these names. */
export interface Cradle {
  config: Config;
  logger: Logger;
  persistence: Persistence;
  clock: Clock;
  ids: IdGenerator;
  tenants: TenantService;
  authenticator: Authenticator;
}
