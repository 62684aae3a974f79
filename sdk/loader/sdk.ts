/**
 * The SDK itself (identity, `track`, `identify`, `open`, `preload`, `ready`, `consent`), shared
 * by the script tag (`embed.js`, see index.ts) and the npm package (`createVisualizer`). The two
 * differ only in where the base, the store id and the consent setting come from and in how the
 * widget UI is loaded.
 */
import type { Identity, VisualizerSdk, WidgetContext, WidgetModule } from '../shared/types.ts';
import { validateConversion } from './conversion.ts';
import { createIdentity } from './identity.ts';
import { safeStorage } from './storage.ts';

export interface SdkOptions {
  /** The service's base URL, without a trailing slash (a deployment under a path keeps it). */
  base: string;
  storeId: string;
  /** Loads the widget UI; called on the first `open` or `preload`, and again after a failure. */
  loadWidget(): Promise<WidgetModule>;
  /** How the shop names the store id, for messages when it is missing ("the embed script has no data-store-id"). */
  missingStoreId: string;
  /**
   * `pending`: nothing is written to (or read from) localStorage or sessionStorage until
   * `consent(true)`; the ids live in memory meanwhile. `granted` (the default) stores at once.
   */
  consent?: 'pending' | 'granted';
}

export const prefix = '[Visualizer] ';

const fail = (message: string): Promise<boolean> => {
  console.error(prefix + message);
  return Promise.resolve(false);
};

/** The SDK object; `__sdk` marks it as the real one (not the stub snippet's queue). */
export function createSdk({
  base,
  storeId,
  loadWidget,
  missingStoreId,
  consent = 'granted',
}: SdkOptions): VisualizerSdk & { __sdk: true } {
  const storing = consent !== 'pending';
  const local = safeStorage('localStorage', storing);
  const session = safeStorage('sessionStorage', storing);
  const identity = createIdentity(local, session);
  const getIdentity = identity.get;

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
    const url = `${base}/api/collect`;
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
          (answer: { error?: { message?: string } }) =>
            fail(`${body.type} was refused (${response.status}): ${answer?.error?.message || response.statusText}`),
          () => fail(`${body.type} was refused (${response.status}).`),
        );
      },
      () => beacon(),
    );
  }

  function track(event: unknown, props?: unknown): Promise<boolean> {
    try {
      if (event !== '$conversion')
        return fail(`track(): unknown event ${JSON.stringify(event)}; the only event is '$conversion'.`);
      const conversion = validateConversion(props);
      if (typeof conversion === 'string') return fail(`track('$conversion'): ${conversion}`);
      if (!storeId) return fail(`track('$conversion'): not sent, ${missingStoreId}.`);
      const key = `${storeId}:${conversion.orderId}`;
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
      if (typeof id !== 'string' || !id.trim() || id.length > 200)
        return fail('identify(userId, traits?): userId must be a non-empty string of at most 200 characters.');
      if (traits != null && (typeof traits !== 'object' || Array.isArray(traits)))
        return fail('identify(userId, traits?): traits must be an object of strings, numbers and booleans.');
      if (!storeId) return fail(`identify(): not sent, ${missingStoreId}.`);
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
  function widgetModule(): Promise<WidgetModule> {
    // Through a Promise, so a loader that throws at once is a rejection like any other.
    widget ||= new Promise<WidgetModule>((resolve) => resolve(loadWidget())).catch((error) => {
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
      return widgetModule().then(
        (module) => module.open(context, widgetId, productData),
        (error) => fail(`open(): the widget UI could not be loaded (${error.message}).`),
      );
    },
    preload() {
      return widgetModule().then(
        () => true,
        (error) => fail(`preload(): ${error.message}`),
      );
    },
    consent(granted) {
      if (typeof granted !== 'boolean') {
        console.error(
          `${prefix}consent(granted): granted must be true or false (got ${JSON.stringify(granted)}); nothing changed.`,
        );
        return false;
      }
      if (granted) {
        local.persist();
        session.persist();
        identity.reread();
      } else {
        local.forget();
        session.forget();
      }
      return true;
    },
    ready(callback) {
      try {
        callback(sdk);
      } catch (error) {
        console.error(`${prefix}a ready() callback threw`, error);
      }
    },
  };
  return sdk;
}
