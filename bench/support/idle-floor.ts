/**
 * The floor of bench/idle-rss.ts: the smallest process that does what an idle `visualizer serve`
 * does on this stack. Run with `node --import tsx` (so tsx's loader is registered, as bin/visualizer.js
 * does), it opens a better-sqlite3 database in WAL mode under VISUALIZER_DATA_DIR and answers
 * `GET /healthz` from it with bare h3 on node:http; nothing else. It prints its URL, like `serve`,
 * and closes on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { H3, toNodeHandler } from 'h3';

const database = new Database(path.join(process.env.VISUALIZER_DATA_DIR ?? '.', 'floor.db'));
database.pragma('journal_mode = WAL');
const healthy = database.prepare('select 1 as ok').pluck();

const app = new H3();
app.get('/healthz', () => ({ ok: healthy.get() === 1 }));
const server = createServer(toNodeHandler(app));
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`floor listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once('SIGTERM', () => {
  server.close(() => database.close());
  server.closeAllConnections();
});
