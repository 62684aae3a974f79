import { boot } from '../boot.ts';
import { jsonOption, type Command } from '../command.ts';

const isLockTimeout = (error: unknown): boolean =>
  error instanceof Error && (error.name === 'LockTimeoutError' || isLockTimeout(error.cause));

export const migrate: Command = {
  name: 'migrate',
  usage: 'migrate [--json]',
  summary:
    'Apply pending database migrations (under a lock; safe to run from several places at once). Behind a transaction-mode pooler (DATABASE_POOLED=true) it connects through DATABASE_DIRECT_URL.',
  options: { ...jsonOption },
  async run(values, { env, output }) {
    const { container } = await boot(env);
    try {
      const report = await container.cradle.persistence.migrate();
      const applied = [...report.applied, ...(report.indexesBuilt ?? [])];
      if (values.json) output.out(JSON.stringify({ applied }));
      else
        output.out(applied.length ? `Applied: ${applied.join(', ')}` : 'The database schema was already up to date.');
      return 0;
    } catch (error) {
      // DDL that gave up waiting for a lock held by live traffic (create-index-concurrently.ts): its message says what to do.
      if (isLockTimeout(error)) {
        output.err(`visualizer migrate: ${(error as Error).message}`);
        return 1;
      }
      throw error;
    } finally {
      await container.dispose();
    }
  },
};
