/**
 * Real HTTPS servers on loopback for tests of outbound fetches (image hosts, webhook receivers).
 *
 * Usage:
 *   const certs = await testCertificates();
 *   const server = await startHttpsServer((req, res, body) => { res.end('ok'); });
 *   const client = createGuardedClient({ allow: ['localhost'], ca: certs.caPem });
 *   await client.request(`${server.url}/path`, { ... });
 *   server.requests  // what the server received, in order
 *   await server.close();
 *
 * The certificate is valid for `localhost`, `127.0.0.1` and `::1`, signed by a throwaway CA. Pass
 * `caPem` as the client's `ca`, or `caFile` as NODE_EXTRA_CA_CERTS to a child process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startHttpsReceiver, type HttpsReceiver, type HttpsReceiverHandler } from '../../kit/testing/https-receiver.ts';

const run = promisify(execFile);

export interface TestCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** path of CA PEM on disk */
  caFile: string;
}

let certificates: Promise<TestCertificates> | undefined;

/** A CA and a leaf cert for localhost, 127.0.0.1 and ::1, made once per process with the openssl CLI in a temp dir (removed on exit). */
export function testCertificates(): Promise<TestCertificates> {
  certificates ??= makeCertificates();
  return certificates;
}

async function makeCertificates(): Promise<TestCertificates> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-certs-'));
  // Synchronous on purpose: 'exit' handlers cannot wait for promises.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });

  // EC keys: generated in milliseconds, unlike RSA.
  await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('ca.key'));
  await openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    file('ca.key'),
    '-sha256',
    '-days',
    '7',
    '-subj',
    '/CN=Visualizer Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    file('ca.pem'),
  );
  await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file('leaf.key'));
  await openssl('req', '-new', '-key', file('leaf.key'), '-subj', '/CN=localhost', '-out', file('leaf.csr'));
  writeFileSync(
    file('leaf.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      '',
    ].join('\n'),
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    file('leaf.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-set_serial',
    `0x${Date.now().toString(16)}`,
    '-sha256',
    '-days',
    '7',
    '-extfile',
    file('leaf.ext'),
    '-out',
    file('leaf.pem'),
  );
  return {
    caPem: readFileSync(file('ca.pem'), 'utf8'),
    certPem: readFileSync(file('leaf.pem'), 'utf8'),
    keyPem: readFileSync(file('leaf.key'), 'utf8'),
    caFile: file('ca.pem'),
  };
}

export type { ReceivedRequest } from '../../kit/testing/https-receiver.ts';
export type TestHttpsServer = HttpsReceiver;
export type TestHttpsHandler = HttpsReceiverHandler;

/**
 * The kit's HTTPS receiver on 127.0.0.1 (random port) with this file's CA-signed certificate, so
 * `caFile` can go to a child process as NODE_EXTRA_CA_CERTS.
 */
export async function startHttpsServer(handler: TestHttpsHandler): Promise<TestHttpsServer> {
  return startHttpsReceiver(handler, { certificate: await testCertificates() });
}
