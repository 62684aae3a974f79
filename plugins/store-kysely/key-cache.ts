/**
 * API keys by hash, remembered between requests: every API call looks its key up, and on SQLite
 * that read is about a fifth of a GET's CPU under load. An entry is served only while nothing can
 * have changed it:
 *
 * - this process's own changes to stored keys (revoke, touch, in or out of a transaction) call
 *   `forget()`;
 * - any other connection's commit (another process: a worker, the CLI revoking a key) changes the
 *   marker the adapter supplies, SQLite's `PRAGMA data_version`; a change forgets everything. The
 *   marker is read at the first lookup of each event-loop turn, not at every lookup: reading it
 *   starts a read transaction (shared-memory locks, 5–8 µs under load), and the requests handled
 *   in one turn arrived together, before their first lookup.
 *
 * So a key revoked here is refused at the next request, and one revoked by another process from
 * the next event-loop turn on. A read that a forget overtook is not remembered, as it may predate
 * the write. Unknown keys are never remembered.
 */
export function keyCache<Found extends object>(changeMarker: () => unknown, maxEntries = 10_000) {
  const entries = new Map<string, Readonly<Found>>();
  let marker = changeMarker();
  let generation = 0;
  let checkedThisTurn = false;
  const forget = () => {
    entries.clear();
    generation += 1;
  };
  const checkMarker = () => {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(() => (checkedThisTurn = false));
    const now = changeMarker();
    if (now !== marker) {
      marker = now;
      forget();
    }
  };
  return {
    forget,
    async find(keyHash: string, read: () => Promise<Found | null>): Promise<Readonly<Found> | null> {
      checkMarker();
      const remembered = entries.get(keyHash);
      if (remembered) return remembered;
      const readIn = generation;
      const found = await read();
      if (!found || readIn !== generation) return found;
      if (entries.size >= maxEntries) entries.clear();
      const frozen = Object.freeze(found);
      entries.set(keyHash, frozen);
      return frozen;
    },
  };
}

export type KeyCache<Found extends object> = ReturnType<typeof keyCache<Found>>;
