import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

// s3rver ships no type declarations; loading it through require keeps it `any` without a .d.ts.
const S3rver = createRequire(import.meta.url)('s3rver');

/** A real S3-protocol server on a free loopback port, with `bucket` created; it accepts the S3RVER/S3RVER key pair. */
export async function startS3rver(bucket: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'visualizer-s3rver-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const address: AddressInfo = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
