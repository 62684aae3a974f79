import { mock } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Persistence } from '../../core/ports/persistence/index.ts';
import { openPostgres } from '../../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../../plugins/store-kysely/sqlite.ts';

/**
 * The plans of the statements `run` prepares on a migrated SQLite store at `file`, those `keep`
 * selects, explained with nulls for the parameters: SQLite plans by the query's shape.
 */
export async function sqlitePlansOf(
  file: string,
  run: (persistence: Persistence) => Promise<unknown>,
  keep: (sql: string) => boolean,
): Promise<string[]> {
  // Before the store opens: it binds `prepare` to its connection.
  const prepare = mock.method(BetterSqlite3.prototype, 'prepare');
  const persistence = openSqlite(file);
  let statements: string[];
  try {
    await persistence.migrate();
    prepare.mock.resetCalls();
    await run(persistence);
    statements = [...new Set(prepare.mock.calls.map((call) => String(call.arguments[0])))].filter(keep);
  } finally {
    prepare.mock.restore();
    await persistence.close();
  }
  const raw = new BetterSqlite3(file, { readonly: true });
  try {
    return statements.map((sql) => {
      const parameters = Array.from({ length: sql.match(/\?/g)?.length ?? 0 }, () => null);
      return (raw.prepare(`explain query plan ${sql}`).all(parameters) as Array<{ detail: string }>)
        .map((row) => row.detail)
        .join('\n');
    });
  } finally {
    raw.close();
  }
}

/**
 * The plans of the statements `run` sends to a migrated Postgres store at `url`, those `keep`
 * selects, explained with their parameters and sequential scans disabled: on empty tables the
 * planner would rightly scan, so forbidding that shows which index it can use.
 */
export async function postgresPlansOf(
  url: string,
  run: (persistence: Persistence) => Promise<unknown>,
  keep: (sql: string) => boolean,
): Promise<string[]> {
  const persistence = openPostgres(url);
  const query = mock.method(pg.Client.prototype, 'query');
  let sent: Array<{ sql: string; parameters: unknown[] }>;
  try {
    await persistence.migrate();
    query.mock.resetCalls();
    await run(persistence);
    sent = query.mock.calls
      .map((call) => ({ sql: call.arguments[0] as unknown, parameters: call.arguments[1] as unknown[] }))
      .filter((call): call is { sql: string; parameters: unknown[] } => typeof call.sql === 'string' && keep(call.sql));
  } finally {
    query.mock.restore();
    await persistence.close();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set enable_seqscan = off');
    const plans: string[] = [];
    for (const { sql, parameters } of sent)
      plans.push(
        (await client.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters)).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n'),
      );
    return plans;
  } finally {
    await client.end();
  }
}
