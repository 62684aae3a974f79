import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  digitalSourceTypeUri,
  type ContentCredentials,
  type CredentialedFormat,
  type ImageClaim,
} from '../../kit/plugin.ts';
import type { SignerMaterial } from './signer-material.ts';

/**
 * C2PA Content Credentials with @contentauth/c2pa-wasm (c2pa-rs compiled to WebAssembly), signed
 * in a worker thread (signing-thread.js) with our own COSE signer (cose-sign1.js). Each manifest
 * states, on the action that made the pixels: the IPTC digital source type, the engine and the
 * generation id; its claim generator is `Visualizer/<version>`. A variant's manifest opens the
 * signed original as its parent ingredient (its manifest is copied in, so a reader sees the chain)
 * and resizes it.
 */

const signingThreadFile = fileURLToPath(new URL('./signing-thread.js', import.meta.url));

const mediaType: Record<CredentialedFormat, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** The C2PA manifest definition (c2pa-rs's `ManifestDefinition` as JSON) of one image, with the ingredients to add. */
export function manifestDefinition(format: CredentialedFormat, claim: ImageClaim, version: string) {
  const source = digitalSourceTypeUri(claim.digitalSourceType);
  const about = { generationId: claim.generationId, engine: claim.engine };
  let actions: unknown[];
  const ingredients: Array<{ json: string; format?: string; bytes?: Uint8Array }> = [];
  if (claim.resizedFrom) {
    actions = [
      { action: 'c2pa.opened', digitalSourceType: source, parameters: { ingredientIds: ['original'], ...about } },
      { action: 'c2pa.resized', softwareAgent: { name: 'Visualizer', version } },
    ];
    const { title, format: originalFormat, bytes } = claim.resizedFrom;
    ingredients.push({
      json: JSON.stringify({ title, format: mediaType[originalFormat], relationship: 'parentOf', label: 'original' }),
      format: mediaType[originalFormat],
      bytes,
    });
  } else if (claim.action === 'c2pa.edited') {
    // The shopper's photo is named as what was edited, without a byte of it: no hash, no thumbnail.
    actions = [
      { action: 'c2pa.opened', parameters: { ingredientIds: ['photo'] } },
      { action: 'c2pa.edited', digitalSourceType: source, softwareAgent: { name: claim.engine }, parameters: about },
    ];
    ingredients.push({
      json: JSON.stringify({ title: "The shopper's photo (not included)", relationship: 'parentOf', label: 'photo' }),
    });
  } else {
    actions = [
      { action: 'c2pa.created', digitalSourceType: source, softwareAgent: { name: claim.engine }, parameters: about },
    ];
  }
  const manifest = {
    claim_generator_info: [{ name: 'Visualizer', version }],
    title: claim.title,
    format: mediaType[format],
    assertions: [{ label: 'c2pa.actions.v2', data: { actions } }],
  };
  return { manifest: JSON.stringify(manifest), ingredients };
}

interface Pending {
  resolve(bytes: Uint8Array): void;
  reject(error: Error): void;
}

/** A signing thread and the signatures asked of it, answered in the order asked. */
interface SigningThread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Set while it signs: fires when the signature in progress takes longer than `signTimeoutMs`. */
  watchdog?: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
  retired: boolean;
}

export interface C2paCredentialsOptions {
  /** How long the signing thread stays without a signature before it ends (default a minute). */
  idleMs?: number;
  /**
   * How long one signature may take before its thread is taken for stuck and ended (default a
   * minute), counted from when the thread has answered the one before it; a fresh thread's start,
   * the WebAssembly module's compile included, counts toward its first.
   */
  signTimeoutMs?: number;
  /** The thread's module: signing-thread.js, or a test's stand-in that runs the same loop. */
  threadFile?: string;
}

/**
 * The adapter. Its worker thread starts with the first signature and ends after `idleMs` without
 * one (WebAssembly memory only grows: a 4K PNG's signature leaves tens of MB that an idle process
 * should give back); between signatures it does not keep the process alive. A thread that dies,
 * traps, or takes longer than `signTimeoutMs` over one signature is ended and fails every
 * signature it had (one stuck signature would otherwise hold up every render of the process): the
 * next signature starts another.
 */
export function createC2paCredentials(
  material: SignerMaterial,
  version: string,
  { idleMs = 60_000, signTimeoutMs = 60_000, threadFile = signingThreadFile }: C2paCredentialsOptions = {},
): ContentCredentials & { dispose(): Promise<void> } {
  const chain = material.chain.map((certificate) => new Uint8Array(certificate.raw));
  // What c2pa-rs reserves for a COSE signature: the raw signature (512 covers RSA-4096), the
  // certificates and 1 KB of framing (sdk/src/crypto/cose/sign.rs, cose_reserve_size).
  const reserveSize = 512 + chain.reduce((total, der) => total + der.length, 0) + 1024;
  let current: SigningThread | undefined;
  let nextId = 0;

  /** Ends `thread`, failing what it had; it is no longer the one new signatures go to. */
  function retire(thread: SigningThread, error: Error): Promise<unknown> {
    if (current === thread) current = undefined;
    if (thread.retired) return Promise.resolve();
    thread.retired = true;
    clearTimeout(thread.watchdog);
    clearTimeout(thread.idleTimer);
    for (const { reject } of thread.pending.values()) reject(error);
    thread.pending.clear();
    return thread.worker.terminate();
  }

  /** Times the signature in progress: the thread answers in order, so it is the oldest pending one. */
  function watch(thread: SigningThread) {
    clearTimeout(thread.watchdog);
    thread.watchdog = undefined;
    if (thread.pending.size === 0) return;
    thread.watchdog = setTimeout(() => {
      void retire(
        thread,
        new Error(
          `content credentials: a signature took longer than ${signTimeoutMs} ms; the signing thread was stopped`,
        ),
      );
    }, signTimeoutMs);
    thread.watchdog.unref();
  }

  function idle(thread: SigningThread) {
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => {
      if (thread.pending.size === 0)
        void retire(thread, new Error('content credentials: the signing thread ended idle'));
    }, idleMs);
    thread.idleTimer.unref();
  }

  function start(): SigningThread {
    const worker = new Worker(threadFile, {
      workerData: { keyPem: material.keyPem, chain, reserveSize },
      execArgv: [],
    });
    const thread: SigningThread = { worker, pending: new Map(), retired: false };
    worker.on('message', (message: { id: number; signed?: Uint8Array; error?: string; fatal?: boolean }) => {
      const request = thread.pending.get(message.id);
      if (!request) return;
      thread.pending.delete(message.id);
      // Retired before the signature is failed, so signing it again starts a fresh thread.
      if (message.fatal)
        void retire(
          thread,
          new Error(`content credentials: the signing thread failed (${message.error}) and was stopped`),
        );
      else if (thread.pending.size === 0) idle(thread);
      watch(thread);
      if (message.signed) request.resolve(message.signed);
      else request.reject(new Error(`content credentials: ${message.error}`));
    });
    worker.on('error', (error) => void retire(thread, error));
    worker.on(
      'exit',
      (code) => void retire(thread, new Error(`content credentials: the signing thread exited (${code})`)),
    );
    return thread;
  }

  // Every variant of a render names the same original as its ingredient: it goes to the thread in
  // shared memory, copied once, rather than cloned into each of six messages on the event loop.
  const sharedCopies = new WeakMap<Uint8Array, Uint8Array>();
  function sharedCopy(bytes: Uint8Array): Uint8Array {
    let copy = sharedCopies.get(bytes);
    if (!copy) {
      copy = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
      copy.set(bytes);
      sharedCopies.set(bytes, copy);
    }
    return copy;
  }

  return {
    name: 'c2pa',
    signer: material.signer,
    sign(image, format, claim) {
      const definition = manifestDefinition(format, claim, version);
      const manifest = definition.manifest;
      const ingredients = definition.ingredients.map((ingredient) =>
        ingredient.bytes ? { ...ingredient, bytes: sharedCopy(ingredient.bytes) } : ingredient,
      );
      current ??= start();
      const thread = current;
      clearTimeout(thread.idleTimer);
      const id = nextId++;
      return new Promise<Uint8Array>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        if (thread.pending.size === 1) watch(thread);
        thread.worker.ref();
        thread.worker.postMessage({ id, manifest, format: mediaType[format], image, ingredients });
      });
    },
    async dispose() {
      if (current) await retire(current, new Error('content credentials: stopped'));
    },
  };
}
