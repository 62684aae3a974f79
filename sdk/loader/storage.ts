/**
 * Web storage that never throws, behind the shopper's consent. Blocked storage (Safari private
 * mode of old, cookies disabled, sandboxed iframes, a quota of 0) makes even reading
 * `window.localStorage` throw; then values live in memory for the life of the page instead.
 *
 * While consent is pending the web storage is neither written nor read: every value lives in this
 * page's memory. Memory also keeps each value this page reads or writes while storing, so that
 * after `forget` (consent refused) the page goes on with the same values, in memory only.
 */
export interface SafeStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  /**
   * Consent given: from now on values reach web storage. The values this page holds are written
   * where the storage has none; a value already stored (an earlier consent's) is kept, and read.
   */
  persist(): void;
  /**
   * Consent refused: from now on values stay in memory, and every `visualizer.*` key is removed
   * (after storing, the values go on in memory for the page; while pending, none is read).
   */
  forget(): void;
}

/** Every key the SDK stores starts with this; `forget` removes them all, older versions' included. */
const ours = 'visualizer.';

export function safeStorage(kind: 'localStorage' | 'sessionStorage', persisting: boolean): SafeStorage {
  const memory: Record<string, string> = {};
  /** Opened on first use while storing (never while consent is pending); null when blocked. */
  let storage: Storage | null | undefined;
  const open = (): Storage | null => {
    if (storage === undefined) {
      try {
        storage = window[kind];
        storage.setItem(`${ours}probe`, '1');
        storage.removeItem(`${ours}probe`);
      } catch {
        storage = null;
      }
    }
    return storage;
  };
  return {
    get(key) {
      if (persisting) {
        try {
          const web = open();
          if (web) {
            const value = web.getItem(key);
            if (value === null) delete memory[key];
            else memory[key] = value;
            return value;
          }
        } catch {
          // fall through to memory
        }
      }
      return key in memory ? memory[key]! : null;
    },
    set(key, value) {
      memory[key] = value;
      if (!persisting) return;
      try {
        open()?.setItem(key, value);
      } catch {
        // memory keeps it
      }
    },
    persist() {
      persisting = true;
      try {
        const web = open();
        for (const key of Object.keys(memory)) if (web && web.getItem(key) === null) web.setItem(key, memory[key]!);
      } catch {
        // memory keeps them
      }
    },
    forget() {
      const stored = persisting;
      persisting = false;
      try {
        // Not through open(): its probe would write a key.
        const web = window[kind];
        for (let i = web.length - 1; i >= 0; i--) {
          const key = web.key(i);
          if (key?.indexOf(ours) !== 0) continue;
          // What the page was working with while storing goes on in memory.
          if (stored) memory[key] = web.getItem(key)!;
          web.removeItem(key);
        }
      } catch {
        // blocked storage holds nothing of ours
      }
    },
  };
}

/** A random UUID v4: `crypto.randomUUID` where it exists (secure contexts), else random bytes. */
export function randomId(): string {
  const c = typeof crypto !== 'undefined' ? crypto : undefined;
  try {
    if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  } catch {
    // not a secure context
  }
  const bytes = new Uint8Array(16);
  if (c && typeof c.getRandomValues === 'function') c.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  let hex = '';
  for (let i = 0; i < 16; i++) hex += (bytes[i]! + 0x100).toString(16).slice(1);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
