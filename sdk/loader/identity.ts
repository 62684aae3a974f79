import type { Identity } from '../shared/types.ts';
import { randomId, type SafeStorage } from './storage.ts';

/** What a stored id may look like; anything else (tampering, an old format) is replaced. */
const idPattern = /^[A-Za-z0-9_-]{8,100}$/;

function readOrCreate(storage: SafeStorage, key: string): string {
  const stored = storage.get(key);
  if (stored && idPattern.test(stored)) return stored;
  const id = randomId();
  storage.set(key, id);
  return id;
}

/**
 * The visitor id lives in localStorage (`visualizer.vid`, shared by every tab of the site, kept
 * across visits); the session id in sessionStorage (`visualizer.sid`, one per tab, kept across
 * reloads). Both are read once per page and then served from memory; while consent is pending
 * they are made in memory (storage.ts). `reread` is for consent given: ids an earlier consent
 * stored win over the page's, so the shopper stays one visitor across pages and visits.
 */
export function createIdentity(local: SafeStorage, session: SafeStorage): { get(): Identity; reread(): void } {
  let identity: Identity | undefined;
  return {
    get() {
      identity ??= {
        visitorId: readOrCreate(local, 'visualizer.vid'),
        sessionId: readOrCreate(session, 'visualizer.sid'),
      };
      return { visitorId: identity.visitorId, sessionId: identity.sessionId };
    },
    reread() {
      identity = undefined;
    },
  };
}
