// The worker thread of wal-checkpointer.ts. Plain JavaScript: the tsx loader that runs our
// TypeScript does not reach worker threads (see plugins/scheduler-bree/tick.js).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

const { file, intervalMs } = workerData;
// Its own connection: a checkpoint is per database file, not per connection.
const database = new BetterSqlite3(file, { fileMustExist: true });
// PASSIVE never waits for anyone: it copies the frames no reader still needs and leaves the rest
// for the next round. A checkpoint already running elsewhere makes it answer busy, not fail.
const checkpoint = database.prepare('pragma wal_checkpoint(passive)');

const timer = setInterval(() => checkpoint.run(), intervalMs);

parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  database.close();
  parentPort.close();
});
