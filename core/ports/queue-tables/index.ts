/**
 * The queue's tables: what a queue plugin keeps beside the jobs themselves, in the store's
 * database (their migrations stay with the store's). Not repositories of the persistence port: the
 * core reaches them through the job queue port (`JobQueue.deadLetters`, `stats`,
 * `claimScheduledRun`, `processes`), and each queue plugin implements them.
 */
export type * from './jobs.ts';
export type * from './processes.ts';
export type * from './schedules.ts';
