import { Semaphore } from 'async-mutex';

const MiB = 1024 * 1024;

/**
 * A process's memory for image work, shared by every render it runs: each decode or encode reserves
 * what it will hold before it starts and waits, first come first served, while the budget is spent.
 */
export interface MemoryBudget {
  /**
   * Runs `work` once `bytes` are free (at most the whole budget is asked for), releasing them when
   * it settles. An abort while waiting rejects with the signal's reason and reserves nothing.
   */
  reserve<T>(bytes: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

export function createMemoryBudget(totalBytes: number): MemoryBudget {
  // The semaphore counts whole mebibytes: its weights index arrays, so they must be small integers.
  const total = Math.max(1, Math.floor(totalBytes / MiB));
  const semaphore = new Semaphore(total);

  async function acquire(weight: number, signal: AbortSignal | undefined): Promise<() => void> {
    // Before taking a place in line: an aborted caller must not hold one it will never give back.
    signal?.throwIfAborted();
    const acquiring = semaphore.acquire(weight).then(([, release]) => release);
    if (!signal) return acquiring;
    let onAbort!: () => void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([acquiring, aborted]);
    } catch (error) {
      // The place in line cannot be given up, so what it is eventually granted is given back at once.
      void acquiring.then((release) => release());
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    async reserve(bytes, work, signal) {
      const release = await acquire(Math.min(total, Math.max(1, Math.ceil(bytes / MiB))), signal);
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}
