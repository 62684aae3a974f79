import { ApiError } from '../domain/errors.ts';
import type { Ports } from '../ports/index.ts';

export type Readiness = ReturnType<typeof readiness>;

/** Whether this process can take traffic: it can, once its database answers. */
export function readiness({ persistence }: Pick<Ports, 'persistence'>) {
  return {
    async check(): Promise<void> {
      try {
        await persistence.ping();
      } catch {
        throw new ApiError('api_error', 'database_unavailable', 'The database is not reachable.');
      }
    },
  };
}
