import type { ProcessRecord, ProcessRepository, ProcessRole } from '../../kit/plugin.ts';
import type { Database, Executor } from '../store-kysely/library.ts';

const toProcess = (row: Database['processes']): ProcessRecord => ({
  id: row.id,
  hostname: row.hostname,
  role: row.role as ProcessRole,
  pid: Number(row.pid),
  startedAt: Number(row.started_at),
  seenAt: Number(row.seen_at),
  details: JSON.parse(row.details) as Record<string, unknown>,
});

export function processRepository(db: Executor): ProcessRepository {
  return {
    async register(process) {
      await db
        .insertInto('processes')
        .values({
          id: process.id,
          hostname: process.hostname,
          role: process.role,
          pid: process.pid,
          started_at: process.startedAt,
          seen_at: process.seenAt,
          details: JSON.stringify(process.details),
        })
        .execute();
    },
    async heartbeat(id, at) {
      const result = await db.updateTable('processes').set({ seen_at: at }).where('id', '=', id).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async remove(id) {
      await db.deleteFrom('processes').where('id', '=', id).execute();
    },
    async listSeenSince(since) {
      const rows = await db
        .selectFrom('processes')
        .selectAll()
        .where('seen_at', '>=', since)
        .orderBy('started_at')
        .orderBy('id')
        .execute();
      return rows.map(toProcess);
    },
    async pruneSeenBefore(before) {
      const result = await db.deleteFrom('processes').where('seen_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
