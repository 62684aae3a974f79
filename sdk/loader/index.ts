/**
 * The embed loader, served at `{base}/widgets/embed.js`:
 *
 *   <script async src="{base}/widgets/embed.js" data-store-id="store_…"></script>
 *
 * It exposes `window.Visualizer` (identity, conversion tracking, identify) and loads the widget UI
 * (`widget.<hash>.js`) only when `open` or `preload` is called. Calls queued by the stub snippet
 * before it loaded are replayed in order. Nothing here throws into the page.
 */
import type { Identity, VisualizerSdk, WidgetContext, WidgetModule } from '../shared/types.ts';
import { validateConversion } from './conversion.ts';
import { createIdentity } from './identity.ts';
import { safeStorage } from './storage.ts';

/** The widget bundle's path, injected by the server when it builds this file. */
declare const __WIDGET_PATH__: string;

type QueuedCall = [name: string, args: unknown[], resolve?: (value: unknown) => void];

interface Host {
  Visualizer?: { q?: QueuedCall[]; __sdk?: true } & Partial<VisualizerSdk>;
  __visualizerWidget?: WidgetModule;
}

const prefix = '[Visualizer] ';
const fail = (message: string): Promise<boolean> => {
  console.error(prefix + message);
  return Promise.resolve(false);
};

function findScript(): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current && current.src) return current;
  const all = document.querySelectorAll<HTMLScriptElement>('script[src*="/widgets/embed.js"][data-store-id]');
  return all.length ? all[all.length - 1]! : null;
}

function boot(host: Window & Host) {
  const stub = host.Visualizer;
  if (stub && stub.__sdk) return; // loaded twice: the first copy stays in charge

  const script = findScript();
  const storeId = (script && script.getAttribute('data-store-id')) || '';
  // The service's base: the script's URL without `/widgets/embed.js` (a deployment under a path
  // keeps its prefix); a script served under another name falls back to its origin.
  const found = script ? /^(.*)\/widgets\/embed\.js(?:[?#].*)?$/.exec(script.src) : null;
  const base = found ? found[1]! : script ? new URL(script.src).origin : '';
  if (!storeId) console.error(prefix + 'The embed script needs a data-store-id attribute: <script src=".../widgets/embed.js" data-store-id="store_…">.');

  const session = safeStorage('sessionStorage');
  const getIdentity = createIdentity(safeStorage('localStorage'), session);

  /** Keys already reported in this browser session (per tab), newest last. */
  const sentKey = 'visualizer.sent';
  const readSent = (): string[] => {
    try {
      const list = JSON.parse(session.get(sentKey) || '[]');
      return Array.isArray(list) ? list : [];
    } catch {
      return [];
    }
  };
  const writeSent = (list: string[]) => session.set(sentKey, JSON.stringify(list.slice(-200)));

  /** POSTs to the keyless collect endpoint as text/plain (no CORS preflight), surviving page unload. */
  function collect(body: Record<string, unknown>): Promise<boolean> {
    const url = base + '/api/collect';
    const text = JSON.stringify({ ...body, storeId, ...getIdentity() });
    const beacon = () => {
      try {
        return !!navigator.sendBeacon && navigator.sendBeacon(url, text);
      } catch {
        return false;
      }
    };
    if (typeof fetch !== 'function') return Promise.resolve(beacon());
    return fetch(url, { method: 'POST', body: text, keepalive: true, headers: { 'content-type': 'text/plain' } }).then(
      (response) => {
        if (response.ok) return true;
        return response.json().then(
          (answer: { error?: { message?: string } }) => fail(`${body.type} was refused (${response.status}): ${(answer && answer.error && answer.error.message) || response.statusText}`),
          () => fail(`${body.type} was refused (${response.status}).`),
        );
      },
      () => beacon(),
    );
  }

  function track(event: unknown, props?: unknown): Promise<boolean> {
    try {
      if (event !== '$conversion') return fail(`track(): unknown event ${JSON.stringify(event)}; the only event is '$conversion'.`);
      const conversion = validateConversion(props);
      if (typeof conversion === 'string') return fail(`track('$conversion'): ${conversion}`);
      if (!storeId) return fail("track('$conversion'): not sent, the embed script has no data-store-id.");
      const key = storeId + ':' + conversion.orderId;
      if (readSent().indexOf(key) >= 0) return Promise.resolve(true); // a refresh of the confirmation page
      writeSent(readSent().concat(key)); // before sending: a reload mid-request must not send it again
      return collect({ type: '$conversion', props: conversion }).then((sent) => {
        if (!sent) writeSent(readSent().filter((entry) => entry !== key)); // let a later call try again
        return sent;
      });
    } catch (error) {
      return fail(`track() failed: ${error}`);
    }
  }

  function identify(userId: unknown, traits?: unknown): Promise<boolean> {
    try {
      const id = typeof userId === 'number' && Number.isSafeInteger(userId) ? String(userId) : userId;
      if (typeof id !== 'string' || !id.trim() || id.length > 200) return fail('identify(userId, traits?): userId must be a non-empty string of at most 200 characters.');
      if (traits != null && (typeof traits !== 'object' || Array.isArray(traits))) return fail('identify(userId, traits?): traits must be an object of strings, numbers and booleans.');
      if (!storeId) return fail('identify(): not sent, the embed script has no data-store-id.');
      const body: Record<string, unknown> = { type: '$identify', userId: id };
      if (traits) body.traits = traits;
      const key = 'visualizer.uid';
      const signature = JSON.stringify([storeId, id, traits || null]);
      if (session.get(key) === signature) return Promise.resolve(true); // already linked in this session
      session.set(key, signature);
      return collect(body).then((sent) => {
        if (!sent) session.set(key, ''); // let a later call try again
        return sent;
      });
    } catch (error) {
      return fail(`identify() failed: ${error}`);
    }
  }

  let widget: Promise<WidgetModule> | undefined;
  function loadWidget(): Promise<WidgetModule> {
    widget ||= new Promise<WidgetModule>((resolve, reject) => {
      if (host.__visualizerWidget) return resolve(host.__visualizerWidget);
      const tag = document.createElement('script');
      tag.src = base + __WIDGET_PATH__;
      tag.async = true;
      tag.onload = () => (host.__visualizerWidget ? resolve(host.__visualizerWidget) : reject(new Error('widget.js did not register')));
      tag.onerror = () => reject(new Error(`could not load ${tag.src}`));
      document.head.appendChild(tag);
    }).catch((error) => {
      widget = undefined; // a later call tries again
      throw error;
    });
    return widget;
  }

  const context: WidgetContext = { base, storeId, identity: getIdentity };
  const sdk: VisualizerSdk & { __sdk: true } = {
    __sdk: true,
    version: '1',
    getIdentity(): Identity {
      return getIdentity();
    },
    track,
    identify,
    open(widgetId, productData) {
      return loadWidget().then(
        (module) => module.open(context, widgetId, productData),
        (error) => fail(`open(): the widget UI could not be loaded (${error.message}).`),
      );
    },
    preload() {
      return loadWidget().then(
        () => true,
        (error) => fail(`preload(): ${error.message}`),
      );
    },
    ready(callback) {
      try {
        callback(sdk);
      } catch (error) {
        console.error(prefix + 'a ready() callback threw', error);
      }
    },
  };
  host.Visualizer = sdk;

  const queue = stub && Array.isArray(stub.q) ? stub.q : [];
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
  console.error(prefix + 'failed to start', error);
}
