import type { Compilable, QueryResult } from 'kysely';
import { CompiledQuery } from './kysely.ts';
import type { Dialect } from './dialect.ts';
import type { Database, Executor } from './database.ts';
import { laneOf } from './direct-sqlite.ts';

type Parameter = { name: string } | { value: unknown };
interface Compiled {
  /** Built once; each run only changes its parameters. */
  query: CompiledQuery;
  parameters: Parameter[];
}

const marker = '\u0000value:';

/** A query's SQL with its stand-ins found among the parameters; any stand-in Kysely did not bind is a bug. */
function compile(query: Compilable<unknown>, used: Set<string>): Compiled {
  const { sql, parameters } = query.compile();
  const found = parameters.map(
    (parameter): Parameter =>
      typeof parameter === 'string' && parameter.startsWith(marker)
        ? { name: parameter.slice(marker.length) }
        : { value: parameter },
  );
  const bound = new Set(found.flatMap((parameter) => ('name' in parameter ? [parameter.name] : [])));
  const unbound = [...used].filter((name) => !bound.has(name) || sql.includes(marker + name));
  if (unbound.length > 0)
    throw new Error(
      `prepared query: ${unbound.join(', ')} did not become bound parameters (lists, literals and 'is null' cannot be prepared)`,
    );
  return { query: CompiledQuery.raw(sql), parameters: found };
}

async function run<Row>(db: Executor, compiled: Compiled, values: Record<string, unknown>): Promise<QueryResult<Row>> {
  const parameters = compiled.parameters.map((parameter) =>
    'name' in parameter ? values[parameter.name] : parameter.value,
  );
  const direct = laneOf(db)?.(compiled.query.sql, parameters);
  if (direct) return direct as QueryResult<Row>;
  return db.executeQuery({ ...compiled.query, parameters } as CompiledQuery<Row>);
}

/**
 * A query of fixed shape, built and compiled once per dialect, then run with new values. Kysely
 * builds and compiles its query tree on every call; for the statements on the hot paths (the key
 * lookup of every API call, a generation read, a delivery's joined read) that costs more than the
 * database running them. `build` receives a stand-in for each named value; a stand-in must end up
 * a bound parameter (not a list, not `is null`), which is checked when the query is compiled.
 * Compiled here, not prepared on the server: pg sends it as an unnamed statement, so it works
 * through a transaction-mode pooler (PgBouncer before 1.21 breaks named ones).
 */
export function prepared<Values extends Record<string, unknown>, Row>(
  build: (db: Executor, values: Values, dialect: Dialect) => Compilable<Row>,
) {
  const byDialect = new Map<Dialect, Compiled>();
  return async (db: Executor, dialect: Dialect, values: Values): Promise<QueryResult<Row>> => {
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      const used = new Set<string>();
      const standIns = new Proxy({} as Values, {
        get: (_, name) => {
          used.add(String(name));
          return marker + String(name);
        },
      });
      compiled = compile(build(db, standIns, dialect), used);
      byDialect.set(dialect, compiled);
    }
    return run<Row>(db, compiled, values);
  };
}

/** `insert into <table> (<the row's columns>) values (…)`, prepared per dialect and column list. */
export function preparedInsert<Table extends keyof Database>(table: Table) {
  const byShape = new Map<string, Compiled>();
  return async (db: Executor, dialect: Dialect, row: Database[Table]): Promise<QueryResult<never>> => {
    const columns = Object.keys(row);
    const shape = `${dialect}:${columns.join(',')}`;
    let compiled = byShape.get(shape);
    if (!compiled) {
      const standIns = Object.fromEntries(columns.map((column) => [column, marker + column]));
      compiled = compile(db.insertInto(table).values(standIns as never), new Set(columns));
      byShape.set(shape, compiled);
    }
    return run<never>(db, compiled, row as Record<string, unknown>);
  };
}
