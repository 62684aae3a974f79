import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../../kit/plugin.ts';

const threadFile = fileURLToPath(new URL('./wal-checkpoint-thread.js', import.meta.url));

/** SQLite's default: the commit that leaves the WAL over this many pages checkpoints it, in the committing thread. */
const sqliteDefaultPages = 1000;
/**
 * While the thread runs, the committing thread checkpoints only past this many pages (16 MB): a
 * backstop for when the thread's passive checkpoints cannot finish, and what lets the WAL start
 * over from its beginning under writes that never pause.
 */
export const backstopPages = 4000;

/**
 * Checkpoints the WAL from a worker thread, every `intervalMs`. SQLite's own automatic checkpoint
 * runs inside the COMMIT that crosses 1,000 pages, on the thread that committed: it copies the
 * pages into the database file and syncs it, 10–150 ms on this machine (README, Persistence), during
 * which the event loop answers nothing. From another thread it costs the event loop nothing, and
 * uses the core the server is not on.
 *
 * If the thread fails, the connection goes back to SQLite's own automatic checkpoints.
 */
export function startWalCheckpointer(
  database: BetterSqlite3.Database,
  file: string,
  { intervalMs = 100, logger }: { intervalMs?: number; logger?: Logger } = {},
) {
  const thread = new Worker(threadFile, { workerData: { file, intervalMs }, execArgv: [] });
  // A process that is done must not stay up for the checkpointer.
  thread.unref();
  database.pragma(`wal_autocheckpoint = ${backstopPages}`);
  let stopping = false;
  thread.on('error', (error) =>
    logger?.warn('WAL checkpoint thread failed; checkpoints go back to the committing thread', {
      file,
      error: error.message,
    }),
  );
  const exited = new Promise<void>((resolve) =>
    thread.once('exit', () => {
      if (!stopping && database.open) database.pragma(`wal_autocheckpoint = ${sqliteDefaultPages}`);
      resolve();
    }),
  );
  return {
    /** Resolves once the thread has closed its connection; call it before closing the database. */
    async stop() {
      stopping = true;
      // Held open until the thread has closed its connection, even when nothing else keeps the process up.
      thread.ref();
      thread.postMessage('stop');
      await exited;
    },
  };
}
