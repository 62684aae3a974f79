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
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

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
    'req', '-x509', '-new', '-key', file('ca.key'), '-sha256', '-days', '7',
    '-subj', '/CN=Visualizer Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-out', file('ca.pem'),
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
    'x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'),
    '-set_serial', `0x${Date.now().toString(16)}`, '-sha256', '-days', '7',
    '-extfile', file('leaf.ext'), '-out', file('leaf.pem'),
  );
  return {
    caPem: readFileSync(file('ca.pem'), 'utf8'),
    certPem: readFileSync(file('leaf.pem'), 'utf8'),
    keyPem: readFileSync(file('leaf.key'), 'utf8'),
    caFile: file('ca.pem'),
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface TestHttpsServer {
  /** https://localhost:PORT */
  url: string;
  port: number;
  /** Every request received so far, in arrival order, recorded before the handler runs. */
  requests: ReceivedRequest[];
  /** The underlying server, for tests that need to tune it (e.g. keepAliveTimeout). */
  server: https.Server;
  /** Stops listening and drops open connections, including ones a handler never answered. */
  close(): Promise<void>;
}

export type TestHttpsHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void | Promise<void>;

/**
 * An HTTPS server on 127.0.0.1 (random port) with the test cert; handler gets node req/res plus the
 * full body buffered. A handler that throws answers 500 (when nothing was sent yet); a handler that
 * never answers leaves the request hanging until close(), which is how timeout tests are written.
 */
export async function startHttpsServer(handler: TestHttpsHandler): Promise<TestHttpsServer> {
  const certs = await testCertificates();
  const requests: ReceivedRequest[] = [];
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body });
      Promise.resolve()
        .then(() => handler(req, res, body))
        .catch((err: unknown) => {
          if (!res.headersSent) {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(`test handler failed: ${err instanceof Error ? err.message : String(err)}`);
          } else {
            res.destroy();
          }
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    port,
    requests,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
