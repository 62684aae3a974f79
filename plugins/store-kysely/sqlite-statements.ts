import BetterSqlite3 from 'better-sqlite3';
import type { QueryResult } from 'kysely';

/**
 * Runs a statement as Kysely's SQLite driver does, with the same result, on a prepared statement
 * of its own (only the fixed set of `prepared()` queries comes here). Rows are read as arrays and
 * named by a function made for the statement's columns. better-sqlite3 names each column of each
 * row through V8's C++ API, interning the name and setting it: a 21-column generation read costs
 * 7.8 µs that way and 5.5 µs this way (bench/tools/row-naming.ts).
 */
export function statementRunner(database: BetterSqlite3.Database) {
  interface Entry {
    statement: BetterSqlite3.Statement;
    reader?: { width: number; toRow: (values: unknown[]) => unknown };
  }
  const reader = (statement: BetterSqlite3.Statement) => {
    const names = statement.columns().map((column) => column.name);
    return { width: names.length, toRow: rowMaker(names) };
  };
  const prepare = (sql: string): Entry => {
    const statement = BetterSqlite3.prototype.prepare.call(database, sql) as BetterSqlite3.Statement;
    return statement.reader ? { statement: statement.raw(true), reader: reader(statement) } : { statement };
  };
  const statements = new Map<string, Entry>();
  return (sql: string, parameters: readonly unknown[]): QueryResult<unknown> => {
    let entry = statements.get(sql);
    if (!entry) statements.set(sql, (entry = prepare(sql)));
    const { statement } = entry;
    if (entry.reader) {
      const rows = statement.all(parameters) as unknown[][];
      // A schema change (another process migrating) makes SQLite re-prepare a `select *` with other columns.
      if (rows.length > 0 && rows[0]!.length !== entry.reader.width) entry.reader = reader(statement);
      return { rows: rows.map(entry.reader.toRow) };
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: lastInsertRowid != null ? BigInt(lastInsertRowid) : undefined };
  };
}

/**
 * `values => ({ "id": values[0], … })`: an object literal of fixed shape is the cheapest object V8
 * makes. A repeated name keeps its last value, as better-sqlite3's rows do; `__proto__`, which a
 * literal would take as the prototype, gets the plain loop.
 */
function rowMaker(names: string[]): (values: unknown[]) => unknown {
  if (names.includes('__proto__')) {
    return (values) => Object.fromEntries(names.map((name, index) => [name, values[index]]));
  }
  const fields = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as (values: unknown[]) => unknown;
}
