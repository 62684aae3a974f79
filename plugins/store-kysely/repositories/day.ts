import { sql } from '../kysely.ts';

/**
 * The UTC day (days since the epoch) of an epoch-ms column, by integer division: the same on both
 * databases (the column is an integer, times are positive, and the divisor is a literal rather than
 * a parameter, so the `group by` repeats the select's expression exactly, as Postgres requires).
 */
export const dayOf = (column: string) => sql<number | string>`${sql.ref(column)} / ${sql.lit(86_400_000)}`;
