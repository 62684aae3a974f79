import type { Kysely, Transaction } from 'kysely';
import { sql } from './kysely.ts';
import { giveLane, laneOf, type DirectLane } from './direct-sqlite.ts';

interface Unit<DB> {
  work: (tx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface GroupCommitOptions {
  /** Units per batch: bounds how long the write lock is held for other processes. */
  maxBatch?: number;
  /** A direct lane for the batch's transaction (direct-sqlite.ts), running while `open()` says so. */
  lane?: (open: () => boolean) => DirectLane;
}

/**
 * Group commit for a single-writer database (SQLite). Its commit writes a WAL frame for every
 * page the transaction touched (and now and then a checkpoint), which costs more than the
 * statements before it; writers queue for one connection anyway. So the transactions requested
 * while the connection is busy, or in the same event-loop turn, run one after another inside one
 * `BEGIN … COMMIT`, each in its own savepoint:
 *
 * - each sees the ones before it, as if they had committed one by one;
 * - one that throws is rolled back to its savepoint alone and rejects with its own error;
 * - no promise settles before the COMMIT has: a resolved transaction is durable, and if the
 *   COMMIT fails, every unit in the batch rejects.
 */
export function groupCommit<DB>(db: Kysely<DB>, options: GroupCommitOptions = {}) {
  const { maxBatch = 64 } = options;
  const waiting: Array<Unit<DB>> = [];
  let scheduled = false;

  async function runBatch(tx: Transaction<DB>, batch: Array<Unit<DB>>, outcomes: Outcome[]) {
    const exec = async (statement: string) => {
      if (!laneOf(tx)?.(statement, [])) await sql.raw(statement).execute(tx);
    };
    // Alone in its batch, a unit needs no savepoint: if it throws, the whole transaction rolls back.
    if (batch.length === 1) {
      outcomes.push({ ok: true, value: await batch[0]!.work(tx) });
      return;
    }
    for (const unit of batch) {
      await exec('savepoint unit');
      try {
        outcomes.push({ ok: true, value: await unit.work(tx) });
        await exec('release unit');
      } catch (error) {
        // If this fails too, SQLite has already ended the transaction: the whole batch fails below.
        await exec('rollback to unit');
        await exec('release unit');
        outcomes.push({ ok: false, error });
      }
    }
  }

  async function flush() {
    let batch: Array<Unit<DB>> | undefined;
    const take = () => {
      batch = waiting.splice(0, maxBatch);
      scheduled = false;
      if (waiting.length > 0) schedule();
      return batch;
    };
    const outcomes: Outcome[] = [];
    try {
      // Taken once the connection is ours, so units that arrived while waiting for it ride along.
      await db.transaction().execute(async (tx) => {
        let open = true;
        if (options.lane)
          giveLane(
            tx,
            options.lane(() => open),
          );
        try {
          await runBatch(tx, take(), outcomes);
        } finally {
          open = false;
        }
      });
    } catch (error) {
      // A BEGIN that failed (the lock not granted in time) fails the units it was opened for.
      (batch ?? take()).forEach((unit, index) => {
        const outcome = outcomes[index];
        unit.reject(outcome && !outcome.ok ? outcome.error : error);
      });
      return;
    }
    batch!.forEach((unit, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    // After the current turn's I/O callbacks, so requests read together commit together.
    setImmediate(() => void flush());
  }

  return function transaction<T>(work: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      schedule();
    });
  };
}
