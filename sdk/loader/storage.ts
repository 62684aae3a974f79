/**
 * Web storage that never throws. Blocked storage (Safari private mode of old, cookies disabled,
 * sandboxed iframes, a quota of 0) makes even reading `window.localStorage` throw; then values live
 * in memory for the life of the page instead.
 */
export interface SafeStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

export function safeStorage(kind: 'localStorage' | 'sessionStorage'): SafeStorage {
  const memory: Record<string, string> = {};
  let storage: Storage | null = null;
  try {
    storage = window[kind];
    storage.setItem('visualizer.probe', '1');
    storage.removeItem('visualizer.probe');
  } catch {
    storage = null;
  }
  return {
    get(key) {
      try {
        if (storage) return storage.getItem(key);
      } catch {
        // fall through to memory
      }
      return key in memory ? memory[key]! : null;
    },
    set(key, value) {
      memory[key] = value;
      try {
        storage?.setItem(key, value);
      } catch {
        // memory keeps it
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
