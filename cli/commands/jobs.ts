import { deadLetters } from '../../core/services/dead-letters.ts';
import { jsonOption, requireInteger, UsageError, type Command } from '../command.ts';
import { printRecords } from '../output.ts';
import { iso, withServices } from './tenant-commands.ts';

export const jobsDead: Command = {
  name: 'jobs dead',
  usage: 'jobs dead [--kind KIND] [--limit N] [--json]',
  summary: 'List jobs given up after maxAttempts failures (dead letters), the most recent first.',
  options: { kind: { type: 'string' }, limit: { type: 'string', default: '100' }, ...jsonOption },
  async run(values, context) {
    const limit = requireInteger(values, 'limit', { min: 1 })!;
    const kind = typeof values.kind === 'string' ? values.kind : undefined;
    const dead = await withServices(context, (cradle) => deadLetters(cradle).list({ kind, limit }));
    const records = dead.map((job) => ({
      id: job.id,
      kind: job.kind,
      attempts: job.attempts,
      failures: job.failures,
      diedAt: iso(job.diedAt),
      createdAt: iso(job.createdAt),
      lastError: job.lastError,
      ...(values.json ? { payload: job.payload } : {}),
    }));
    printRecords(context.output, Boolean(values.json), records, ['id', 'kind', 'failures', 'diedAt', 'lastError']);
    return 0;
  },
};

export const jobsRetry: Command = {
  name: 'jobs retry',
  usage: 'jobs retry (--id JOB_ID | --all [--kind KIND]) [--json]',
  summary: 'Queue dead jobs again, due now, their attempts and failures starting over.',
  options: { id: { type: 'string' }, all: { type: 'boolean' }, kind: { type: 'string' }, ...jsonOption },
  async run(values, context) {
    const id = typeof values.id === 'string' ? values.id : undefined;
    const kind = typeof values.kind === 'string' ? values.kind : undefined;
    if ((id === undefined) === !values.all)
      throw new UsageError('Name one dead job with --id, or retry many with --all (optionally --kind).');
    if (id !== undefined && kind !== undefined) throw new UsageError('--kind goes with --all, not with --id.');
    const retried = await withServices(context, (cradle) => deadLetters(cradle).retry({ id, kind }));
    if (id !== undefined && retried.length === 0)
      throw new UsageError(`No dead job ${id} (see 'visualizer jobs dead').`);
    if (values.json)
      context.output.out(JSON.stringify({ retried: retried.map((job) => ({ id: job.id, kind: job.kind })) }));
    else
      context.output.out(
        `Queued ${retried.length} dead job${retried.length === 1 ? '' : 's'} again: ${retried.map((job) => job.id).join(', ') || '(none)'}`,
      );
    return 0;
  },
};
