import type { Persistence } from '../plugin.ts';

/**
 * A fresh, empty, throwaway database of the adapter's kind, and a way to open any number of
 * handles (connections, pools) on it, as several processes would. The persistence and job-queue
 * suites take one; the caller makes it (a temp file, a database on a test server) and removes it.
 */
export interface PersistenceDatabase {
  open(): Persistence;
}
