// The message loop of a signing thread: signing-thread.js's, and that of the tests' stand-ins for
// it. Plain JavaScript, as the thread is (see signing-thread.js).

/**
 * Answers each request on `port`, one at a time in the order asked, with `{ id, signed }` or
 * `{ id, error }`. After a WebAssembly trap (c2pa-rs panicked, or its memory ran out) the module's
 * state is not to be trusted: the answer says `fatal` and the thread ends, so the next signature
 * starts a fresh one.
 * @template {{ id: number }} Request
 * @param {import('node:worker_threads').MessagePort} port
 * @param {(request: Request) => Promise<Uint8Array>} sign
 */
export function serveSignatures(port, sign) {
  let queue = Promise.resolve();
  port.on('message', (/** @type {Request} */ request) => {
    queue = queue.then(async () => {
      try {
        const signed = await sign(request);
        port.postMessage({ id: request.id, signed }, [signed.buffer]);
      } catch (error) {
        const fatal = error instanceof WebAssembly.RuntimeError;
        port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error), fatal });
        if (fatal) process.exit(1);
      }
    });
  });
}
