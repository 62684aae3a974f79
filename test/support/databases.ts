import assert from 'node:assert/strict';
import { startPostgresTestServer, type PostgresTestServer } from './postgres-server.ts';

/** Checks an error response: its status and the envelope with nothing else beside it. */
export async function errorOf(response: Response, status: number) {
  const text = await response.text();
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${text}`);
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ['error']);
  return body.error as { type: string; code: string; message: string; param: string | null };
}

/** SQLite, and a real Postgres started once for the file. */
export function databaseMatrix() {
  let postgres: PostgresTestServer | undefined;
  const databases: Array<[string, () => Promise<Record<string, string>>]> = [
    ['sqlite', async () => ({})],
    [
      'postgres',
      async () => {
        postgres ??= await startPostgresTestServer();
        return { DATABASE_URL: await postgres.createDatabase() };
      },
    ],
  ];
  return { databases, stop: async () => postgres?.stop() };
}
