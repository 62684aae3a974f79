/** The SQL engines this adapter speaks; only code inside the adapter may branch on it. */
export type Dialect = 'sqlite' | 'postgres';
