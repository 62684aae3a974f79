/**
 * The Postgres capability of the persistence port: raw SQL on the same connection or transaction
 * as the repositories. Present only where the database is Postgres; it exists for a queue engine
 * keeping its own tables in the same database (pg-boss), so its jobs commit with the domain write.
 * The core never uses it.
 */
export interface PostgresConnection {
  /** Runs one SQL text (several statements when `values` is empty) with positional `$n` values. */
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}
