import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../core/logger.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { backstopPages, startWalCheckpointer } from '../plugins/store-kysely/wal-checkpointer.ts';
import { waitFor } from './support/wait-for.ts';

/** A connection that never checkpoints by itself, so any checkpoint seen came from the thread. */
function writer(file: string) {
  const database = new BetterSqlite3(file);
  database.pragma('journal_mode = WAL');
  database.pragma('wal_autocheckpoint = 0');
  database.exec('create table if not exists filler (body text)');
  const insert = database.prepare('insert into filler (body) values (?)');
  const writePages = database.transaction((count: number) => {
    for (let i = 0; i < count; i++) insert.run('x'.repeat(3_000));
  });
  return { database, writePages };
}

describe('WAL checkpoints from a worker thread', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-checkpoint-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an open SQLite store copies committed pages into the database file without a commit of its own', async () => {
    const file = path.join(dir, 'store.db');
    const store = openSqlite(file);
    await store.migrate();
    const { database, writePages } = writer(file);
    try {
      const before = statSync(file).size;
      writePages(300);
      // Nothing but the store's thread checkpoints here: the writer has automatic checkpoints off and the store does not write.
      await waitFor(
        'the database file holds the written pages',
        () => statSync(file).size >= before + 300 * 3_000,
        5_000,
      );
    } finally {
      database.close();
      await store.close();
    }
    assert.equal(
      existsSync(`${file}-wal`),
      false,
      "the last connection closed, the thread's included, so SQLite removed the WAL",
    );
  });

  it('leaves the committing connection a backstop only, and changes no data version (the key cache relies on it)', async () => {
    const file = path.join(dir, 'version.db');
    const { database, writePages } = writer(file);
    const checkpointer = startWalCheckpointer(database, file, { intervalMs: 10 });
    try {
      assert.equal(database.pragma('wal_autocheckpoint', { simple: true }), backstopPages);
      const dataVersion = database.prepare('pragma data_version').pluck();
      writePages(50);
      const version = dataVersion.get();
      const before = statSync(file).size;
      await waitFor('the thread checkpointed', () => statSync(file).size > before, 5_000);
      assert.equal(dataVersion.get(), version, "a checkpoint is not another connection's commit");
    } finally {
      await checkpointer.stop();
      database.close();
    }
  });

  it('a thread that fails is logged, and checkpoints go back to the committing connection', async () => {
    const file = path.join(dir, 'fallback.db');
    const { database } = writer(file);
    const warnings: string[] = [];
    const logger: Logger = { info() {}, error() {}, warn: (message) => warnings.push(message) };
    // The thread opens the file it is given; one that does not exist makes it fail at once.
    const checkpointer = startWalCheckpointer(database, path.join(dir, 'missing', 'nothing.db'), {
      intervalMs: 10,
      logger,
    });
    try {
      await waitFor(
        "automatic checkpoints are back at SQLite's default",
        () => database.pragma('wal_autocheckpoint', { simple: true }) === 1000,
        5_000,
      );
      assert.match(warnings.join('\n'), /WAL checkpoint thread failed/);
    } finally {
      await checkpointer.stop();
      database.close();
    }
  });

  it("stop() closes the thread's connection, and a second stop() is harmless", async () => {
    const file = path.join(dir, 'stop.db');
    const { database } = writer(file);
    const checkpointer = startWalCheckpointer(database, file);
    await checkpointer.stop();
    await checkpointer.stop();
    database.close();
    assert.equal(existsSync(`${file}-wal`), false, 'the writer was the last connection: the thread had closed its own');
  });

  it('a process with nothing else to do still waits for stop() (the thread itself never holds a process up)', () => {
    const file = path.join(dir, 'exit.db');
    writer(file).database.close();
    const script = `
      import BetterSqlite3 from 'better-sqlite3';
      import { startWalCheckpointer } from ${JSON.stringify(new URL('../plugins/store-kysely/wal-checkpointer.ts', import.meta.url).href)};
      const database = new BetterSqlite3(${JSON.stringify(file)});
      await startWalCheckpointer(database, ${JSON.stringify(file)}).stop();
      database.close();
      console.log('stopped');`;
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      encoding: 'utf8',
    });
    assert.equal(output.trim(), 'stopped');
  });
});
