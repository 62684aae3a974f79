/** What a process runs: the API with workers and scheduler, the API alone, or workers and scheduler. */
export type ProcessRole = 'serve' | 'serve-api-only' | 'worker';

/** One running `serve` or `worker` process, as it registered itself. */
export interface ProcessRecord {
  id: string;
  hostname: string;
  role: ProcessRole;
  pid: number;
  startedAt: number;
  /** Refreshed by the process's heartbeat; a process not seen for a while is presumed gone. */
  seenAt: number;
  /** What the process reports about itself (its plugins, say), for operators. */
  details: Record<string, unknown>;
}

export interface ProcessRepository {
  register(process: ProcessRecord): Promise<void>;
  /** Refreshes `seenAt`; false when the row is gone (pruned as stale): the caller registers again. */
  heartbeat(id: string, at: number): Promise<boolean>;
  remove(id: string): Promise<void>;
  /** Processes seen at or after `since`, oldest first. */
  listSeenSince(since: number): Promise<ProcessRecord[]>;
  /** Deletes processes last seen before `before`; returns how many. */
  pruneSeenBefore(before: number): Promise<number>;
}
