// The worker thread of c2pa-credentials.ts: c2pa-wasm hashes the whole image as it signs it, tens of
// ms for a 4K render that would otherwise block the event loop (see docs/operations.md, Content
// credentials). Plain JavaScript: the tsx loader that runs our TypeScript does not reach worker
// threads (see plugins/scheduler-bree/tick.js). The 9 MB WebAssembly module is compiled here, on
// the first signature, so a process that stores no image never loads it.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { initSync, WasmBuilder } from '@contentauth/c2pa-wasm';
import { BytesBlob } from './blob-polyfill.js';
import { algorithmFor, coseSigner } from './cose-sign1.js';
import { serveSignatures } from './serve-signatures.js';

initSync({ module: readFileSync(fileURLToPath(import.meta.resolve('@contentauth/c2pa-wasm/c2pa.wasm'))) });

const key = createPrivateKey(workerData.keyPem);
const signClaim = coseSigner({ key, chain: workerData.chain, reserveSize: workerData.reserveSize });
const signer = {
  alg: algorithmFor(key),
  reserveSize: workerData.reserveSize,
  sign: async (/** @type {Uint8Array} */ claim) => signClaim(claim),
};
// No thumbnail (the image is its own), and no second hash of what was just signed, nor of the
// original a variant names (this thread signed it moments before; its manifest's signature is still
// checked as it is copied in): the tests read every output back with a Reader instead.
const context = JSON.stringify({
  builder: { thumbnail: { enabled: false } },
  verify: { verify_after_sign: false, verify_after_reading: false },
});

/**
 * @param {{ manifest: string, format: string, image: Uint8Array, ingredients: Array<{ json: string, format?: string, bytes?: Uint8Array }> }} request
 */
async function sign({ manifest, format, image, ingredients }) {
  const builder = WasmBuilder.fromJson(manifest, context);
  let signed;
  try {
    for (const ingredient of ingredients) {
      if (ingredient.bytes)
        await builder.addIngredientFromBlob(
          ingredient.json,
          ingredient.format ?? format,
          /** @type {any} */ (new BytesBlob(ingredient.bytes)),
        );
      else builder.addIngredient(ingredient.json);
    }
    signed = await builder.sign(signer, [], format, /** @type {any} */ (new BytesBlob(image)));
  } catch (error) {
    // The first error is the one to report: after a trap, freeing may fail too, and less clearly.
    try {
      builder.free();
    } catch {}
    throw error;
  }
  builder.free();
  return signed;
}

serveSignatures(/** @type {import('node:worker_threads').MessagePort} */ (parentPort), sign);
