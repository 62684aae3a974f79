import { setImmediate as yieldTurn } from 'node:timers/promises';
import type { Config } from '../../config/schema.ts';
import type { Clock } from '../ports/clock.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { Persistence, Repositories } from '../ports/persistence/index.ts';
import type { Logger } from '../logger.ts';
import type { Ports } from '../ports/index.ts';
import { deleteGenerationsIn, purgeBatchSize } from './generation-deletion.ts';

const day = 24 * 3_600_000;

/** One bounded batch of one kind, inside the batch's own transaction. */
type Prune = (tx: Repositories, before: number, limit: number) => Promise<number>;

/** What one sweep deleted of each kind, and in how many batches (transactions). */
export type RetentionReport = Record<'events' | 'idempotencyKeys' | 'deadJobs', { deleted: number; batches: number }>;

/**
 * The retention sweep: deletes events (with their deliveries and attempts), idempotency keys and
 * dead jobs older than their windows (`config.retention`), in batches of `batchSize`, each its own
 * short transaction, so no lock is held for long. A sweep stops a kind after `maxBatchesPerRun`
 * batches; the rest goes at the next sweep.
 */
export function retentionSweep(deps: {
  persistence: Persistence;
  queue: Pick<JobQueue, 'deadLetters'>;
  clock: Clock;
  config: Pick<Config, 'retention'>;
  logger: Logger;
}) {
  const { persistence, queue, clock, logger } = deps;
  const { eventsDays, idempotencyKeysDays, deadJobsDays, batchSize, maxBatchesPerRun } = deps.config.retention;
  const kinds: Array<[keyof RetentionReport, Prune, number | null]> = [
    ['events', (tx, before, limit) => tx.retention.pruneEvents(before, limit), eventsDays],
    ['idempotencyKeys', (tx, before, limit) => tx.retention.pruneIdempotencyKeys(before, limit), idempotencyKeysDays],
    // Dead letters are the queue's table.
    ['deadJobs', (tx, before, limit) => queue.deadLetters.prune(tx, before, limit), deadJobsDays],
  ];

  return async function sweep(): Promise<RetentionReport> {
    const report: RetentionReport = {
      events: { deleted: 0, batches: 0 },
      idempotencyKeys: { deleted: 0, batches: 0 },
      deadJobs: { deleted: 0, batches: 0 },
    };
    const now = clock.now();
    for (const [name, prune, days] of kinds) {
      if (days === null) continue;
      const before = now - days * day;
      const counts = report[name];
      while (counts.batches < maxBatchesPerRun) {
        const deleted = await persistence.transaction((tx) => prune(tx, before, batchSize));
        counts.batches += 1;
        counts.deleted += deleted;
        if (deleted < batchSize) break;
        // Let requests and jobs of this process in between batches.
        await yieldTurn();
      }
    }
    if (report.events.deleted + report.idempotencyKeys.deleted + report.deadJobs.deleted > 0)
      logger.info('retention sweep deleted old rows', report);
    return report;
  };
}

/** What one render retention sweep deleted, and in how many batches (transactions). */
export interface RenderRetentionReport {
  deleted: number;
  /** Batches that deleted something, each its own transaction; at most `retention.maxBatchesPerRun`. */
  batches: number;
  /** Organizations with a render retention that were looked at. */
  organizations: number;
}

/**
 * The render retention sweep: for each organization that keeps renders for `renderRetentionDays`,
 * deletes its generations made longer ago than that, through the one deletion path
 * (deleteGenerationsIn, reason `expired`: tombstone, scrubbed row, purge job for the images and
 * the uploaded photo). Batches of at most 100 generations (fewer if `retention.batchSize` is
 * smaller), each deleted in its own short transaction; at most `retention.maxBatchesPerRun`
 * batches per sweep, shared by all organizations, the rest goes at the next. `processing`
 * generations are never expired (they end first).
 *
 * Looking for an organization's expired generations is one indexed read outside any transaction,
 * and a look that finds none uses no batch, so organizations with nothing expired never use up
 * the budget; a sweep looks at each organization once at most. Sweeps take organizations
 * round-robin: a sweep that ran out of batches remembers the organization it stopped at, and the
 * next starts after it, so neither a large backlog nor a long list of organizations keeps those
 * after them waiting sweep after sweep. (The place is kept in this process; in a cluster, each
 * process's sweeps go round from their own.)
 */
export function renderRetentionSweep(
  deps: Pick<Ports, 'persistence' | 'clock' | 'ids' | 'queue'> & { config: Config; logger: Logger },
) {
  const { persistence, clock, config, logger, queue } = deps;
  const limit = Math.min(config.retention.batchSize, purgeBatchSize);
  const { maxBatchesPerRun } = config.retention;
  /** The organization whose batch was the last of a sweep that ran out of them: the next sweep starts after it. */
  let stoppedAfter: string | undefined;
  return async function sweepRenders(): Promise<RenderRetentionReport> {
    const report: RenderRetentionReport = { deleted: 0, batches: 0, organizations: 0 };
    // In the order of their ids as JavaScript compares them (not a database's collation), so
    // "after" means the same from one sweep to the next.
    const organizations = (await persistence.organizations.withRenderRetention()).sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    report.organizations = organizations.length;
    const resumeAt =
      stoppedAfter === undefined
        ? 0
        : Math.max(
            0,
            organizations.findIndex(({ id }) => id > stoppedAfter!),
          );
    stoppedAfter = undefined;
    let lastServed: string | undefined;
    sweep: for (const { id: organizationId, renderRetentionDays } of [
      ...organizations.slice(resumeAt),
      ...organizations.slice(0, resumeAt),
    ]) {
      const before = clock.now() - renderRetentionDays * day;
      for (;;) {
        if (report.batches >= maxBatchesPerRun) {
          stoppedAfter = lastServed;
          break sweep;
        }
        const expired = await persistence.generations.expired(organizationId, before, limit);
        if (expired.length === 0) break;
        // Deleting skips any a concurrent deletion took meanwhile (markDeleted only marks live ones).
        const deleted = await persistence.transaction(
          async (tx) =>
            (await deleteGenerationsIn(tx, deps, { organizationId, generationIds: expired, reason: 'expired' })).deleted
              .length,
        );
        report.batches += 1;
        report.deleted += deleted;
        lastServed = organizationId;
        if (deleted > 0) queue.notify();
        if (expired.length < limit) break;
        // Let requests and jobs of this process in between batches.
        await yieldTurn();
      }
    }
    if (report.deleted > 0)
      logger.info('render retention deleted expired generations', { deleted: report.deleted, batches: report.batches });
    return report;
  };
}

/**
 * The scheduled retention: rows, then expired renders. Each sweep has its own failure, so rows the
 * first could not prune never hold back expired renders.
 */
export function pruneRetention(
  deps: Pick<Ports, 'persistence' | 'clock' | 'ids' | 'queue'> & { config: Config; logger: Logger },
) {
  const sweeps = [
    ['rows', retentionSweep(deps)],
    ['renders', renderRetentionSweep(deps)],
  ] as const;
  return async function prune(): Promise<void> {
    for (const [sweep, run] of sweeps) {
      await run().catch((error: unknown) =>
        deps.logger.error('retention sweep failed; it runs again at the next interval', {
          sweep,
          error: error instanceof Error ? error.stack : String(error),
        }),
      );
    }
  };
}
