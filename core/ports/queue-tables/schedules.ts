/**
 * When each periodic task may run next, shared by every process on the database, so a task runs
 * once per interval in the whole cluster however many schedulers tick.
 */
export interface ScheduleRepository {
  /**
   * Claims the current run of task `name`: true when its next run time has come (or it never ran),
   * and the next run is then moved `intervalMs` ahead. One atomic statement on the database's own
   * clock, so of several processes ticking at once exactly one gets true, and their clocks do not
   * matter. Needs no session state (no advisory lock), so it works through a transaction pooler.
   */
  claimRun(name: string, intervalMs: number): Promise<boolean>;
}
