/**
 * The embed loader, served at `{base}/widgets/embed.js`:
 *
 *   <script async src="{base}/widgets/embed.js" data-store-id="store_…"></script>
 *
 * `data-consent="pending"` (or a `consent` call queued before it loaded) starts it with consent
 * pending: nothing is stored in the browser until `Visualizer.consent(true)` (sdk.ts).
 *
 * It exposes `window.Visualizer` (identity, conversion tracking, identify) and loads the widget UI
 * (`widget.<hash>.js`) only when `open` or `preload` is called. Calls queued by the stub snippet
 * before it loaded are replayed in order. Nothing here throws into the page. The SDK itself is
 * sdk.ts, which the npm package shares; this file is what only the script tag does.
 */
import type { VisualizerSdk, WidgetModule } from '../shared/types.ts';
import { createSdk, prefix } from './sdk.ts';

/** The widget bundle's path, injected by the server when it builds this file. */
declare const __WIDGET_PATH__: string;

type QueuedCall = [name: string, args: unknown[], resolve?: (value: unknown) => void];

interface Host {
  Visualizer?: { q?: QueuedCall[]; __sdk?: true } & Partial<VisualizerSdk>;
  __visualizerWidget?: WidgetModule;
}

function findScript(): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current?.src) return current;
  const all = document.querySelectorAll<HTMLScriptElement>('script[src*="/widgets/embed.js"][data-store-id]');
  return all.length ? all[all.length - 1]! : null;
}

/** Adds `{base}{__WIDGET_PATH__}` as a script tag; the bundle registers itself on `window`. */
function scriptWidgetLoader(host: Window & Host, base: string) {
  return () =>
    new Promise<WidgetModule>((resolve, reject) => {
      if (host.__visualizerWidget) return resolve(host.__visualizerWidget);
      const tag = document.createElement('script');
      tag.src = base + __WIDGET_PATH__;
      tag.async = true;
      tag.onload = () =>
        host.__visualizerWidget ? resolve(host.__visualizerWidget) : reject(new Error('widget.js did not register'));
      tag.onerror = () => reject(new Error(`could not load ${tag.src}`));
      document.head.appendChild(tag);
    });
}

function boot(host: Window & Host) {
  const stub = host.Visualizer;
  if (stub?.__sdk) return; // loaded twice: the first copy stays in charge

  const script = findScript();
  const storeId = script?.getAttribute('data-store-id') || '';
  // The service's base: the script's URL without `/widgets/embed.js` (a deployment under a path
  // keeps its prefix); a script served under another name falls back to its origin.
  const found = script ? /^(.*)\/widgets\/embed\.js(?:[?#].*)?$/.exec(script.src) : null;
  const base = found ? found[1]! : script ? new URL(script.src).origin : '';
  if (!storeId)
    console.error(
      `${prefix}The embed script needs a data-store-id attribute: <script src=".../widgets/embed.js" data-store-id="store_…">.`,
    );

  const queue: QueuedCall[] = stub && Array.isArray(stub.q) ? stub.q : [];
  // A queued consent call starts it pending too: calls queued before it must not store either.
  // biome-ignore lint/complexity/useOptionalChain: no script must give null (no attribute), not undefined.
  const consent = script && script.getAttribute('data-consent');
  let pending = consent === 'pending' || queue.some(([name]) => name === 'consent');
  if (consent !== null && consent !== 'pending' && consent !== 'granted') {
    console.error(
      `${prefix}data-consent="${consent}" is neither "pending" nor "granted"; nothing is stored until Visualizer.consent(true).`,
    );
    pending = true;
  }

  const sdk = createSdk({
    base,
    storeId,
    loadWidget: scriptWidgetLoader(host, base),
    missingStoreId: 'the embed script has no data-store-id',
    consent: pending ? 'pending' : 'granted',
  });
  host.Visualizer = sdk;

  for (const [name, args, resolve] of queue) {
    const method = (sdk as unknown as Record<string, unknown>)[name];
    if (typeof method !== 'function') {
      console.error(`${prefix}Visualizer.${name}() does not exist; queued call dropped.`);
      continue;
    }
    const result = method.apply(sdk, args || []);
    if (resolve) resolve(result);
  }
}

try {
  boot(window as Window & Host);
} catch (error) {
  console.error(`${prefix}failed to start`, error);
}
