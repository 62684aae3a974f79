import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import type { Logger } from '../logger.ts';
import { uploadPrefix } from '../domain/blob-keys.ts';

/**
 * Deletes uploaded photos that no generation in progress needs. A render deletes its photo once
 * the generation is terminal; this catches what a crash left: a photo stored by a create that
 * died before its commit (no generation), or by a render that died after its commit but before
 * the delete (a terminal one). Only uploads older than `orphanAfterMs` are looked at, so a create
 * between its upload and its commit is never robbed of its photo.
 */
export function uploadSweep({
  cdn,
  persistence,
  clock,
  config,
  logger,
}: Pick<Ports, 'cdn' | 'persistence' | 'clock'> & { config: Config; logger: Logger }) {
  return async function sweepUploads(): Promise<number> {
    const cutoff = clock.now() - config.uploads.orphanAfterMs;
    let deleted = 0;
    for await (const { key, modifiedAt } of cdn.list(uploadPrefix, 'private')) {
      if (modifiedAt > cutoff) continue;
      const generationId = key.slice(uploadPrefix.length).split('/')[0]!;
      if ((await persistence.generations.statusOf(generationId)) === 'processing') continue;
      await cdn.delete(key, 'private');
      deleted += 1;
    }
    if (deleted > 0) logger.info('deleted uploaded photos no generation in progress needs', { deleted });
    return deleted;
  };
}
