import { boot } from '../boot.ts';
import { jsonOption, type Command } from '../command.ts';

export const migrate: Command = {
  name: 'migrate',
  usage: 'migrate [--json]',
  summary: 'Apply pending database migrations (under a lock; safe to run from several places at once).',
  options: { ...jsonOption },
  async run(values, { env, output }) {
    const { container } = await boot(env);
    try {
      const { applied } = await container.cradle.persistence.migrate();
      if (values.json) output.out(JSON.stringify({ applied }));
      else output.out(applied.length ? `Applied: ${applied.join(', ')}` : 'The database schema was already up to date.');
      return 0;
    } finally {
      await container.dispose();
    }
  },
};
