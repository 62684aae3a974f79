// Why this file exists: @contentauth/c2pa-wasm reads the asset it signs (and an ingredient) from a
// browser `Blob` through `FileReaderSync`, a browser-only API (packages/c2pa-wasm/src/stream/blob_stream.rs
// in github.com/contentauth/c2pa-js) that Node lacks. It only asks a blob for `size` and `slice`,
// and the reader for `readAsArrayBuffer`: this is that much, over bytes already in memory. Only the
// signing thread loads it, so nothing else in the process sees a `FileReaderSync`.

/** The part of `Blob` c2pa-wasm uses, over a Uint8Array. */
export class BytesBlob {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    this.bytes = bytes;
    this.size = bytes.byteLength;
  }

  /** @param {number} [start] @param {number} [end] */
  slice(start = 0, end = this.size) {
    return new BytesBlob(this.bytes.subarray(start, end));
  }
}

globalThis.FileReaderSync ??= class FileReaderSync {
  /** @param {BytesBlob} blob */
  readAsArrayBuffer(blob) {
    // A copy: wasm-bindgen reads it into the module's memory and the caller keeps its bytes.
    return blob.bytes.slice().buffer;
  }
};
