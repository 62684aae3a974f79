import type { Cradle } from '../../core/cradle.ts';
import { shutdown } from '../../core/lifecycle.ts';
import { boot } from '../boot.ts';
import type { CommandContext } from '../command.ts';

/**
 * Runs a command against the tenant service: boots the kernel, migrates (so every command works
 * on a fresh data directory), and disposes the container afterwards.
 */
export async function withServices<T>(context: CommandContext, work: (cradle: Cradle) => Promise<T>): Promise<T> {
  const { container } = await boot(context.env);
  try {
    await container.cradle.persistence.migrate();
    return await work(container.cradle);
  } finally {
    await shutdown(container);
  }
}

export const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());
