import type { Cradle } from '../cradle.ts';
import { ApiError } from '../domain/errors.ts';

export type Readiness = ReturnType<typeof readiness>;

/** Whether this process can take traffic: it can, once its database answers. */
export function readiness({ persistence }: Pick<Cradle, 'persistence'>) {
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
