import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTPS server for tests of outbound deliveries, with a self-signed certificate made
 * in memory (node:crypto and a few lines of DER, so the kit needs no openssl binary).
 */

// The DER (ASN.1) encoding of the few types an X.509 certificate needs.
function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length = body.length < 0x80 ? Buffer.from([body.length]) : lengthBytes(body.length);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
function lengthBytes(length: number): Buffer {
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);
const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
const explicit = (tag: number, inner: Buffer) => tlv(0xa0 + tag, inner);
const integer = (bytes: Buffer) => tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const octetString = (bytes: Buffer) => tlv(0x04, bytes);
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.from([0]), bytes);
const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
function objectId(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) chunk.unshift(0x80 | (value & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}
/** UTCTime, which X.509 requires for dates before 2050. */
const utcTime = (date: Date) =>
  tlv(
    0x17,
    Buffer.from(
      date
        .toISOString()
        .replace(/[-:T]|\.\d{3}/g, '')
        .slice(2),
      'ascii',
    ),
  );

export interface TestCertificate {
  /** The certificate, PEM; self-signed, so it is also the CA to trust. */
  certPem: string;
  keyPem: string;
}

let certificate: TestCertificate | undefined;

/** A P-256 certificate for `localhost`, `127.0.0.1` and `::1`, valid for a week; one per process. */
export function testCertificate(): TestCertificate {
  if (certificate) return certificate;
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(objectId('1.2.840.10045.4.3.2'));
  const name = sequence(set(sequence(objectId('2.5.4.3'), utf8String('localhost'))));
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const subjectAltName = sequence(
    tlv(0x82, Buffer.from('localhost', 'ascii')),
    tlv(0x87, Buffer.from([127, 0, 0, 1])),
    tlv(0x87, Buffer.from([...Array(15).fill(0), 1])),
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name,
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 7 * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(sequence(objectId('2.5.29.17'), octetString(subjectAltName)))),
  );
  const der = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, privateKey)));
  const certPem = new X509Certificate(der).toString();
  certificate = { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
  return certificate;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface HttpsReceiver {
  /** `https://localhost:PORT`: the name the certificate is for. */
  url: string;
  port: number;
  /** The CA to trust for `url` (the self-signed certificate), PEM. */
  caPem: string;
  /** Every request received so far, in arrival order, recorded once its body is in and before the handler runs. */
  requests: ReceivedRequest[];
  /** The underlying server, for tests that watch or tune it (connections, keep-alive). */
  server: https.Server;
  /** Stops listening and drops open connections, including ones a handler never answered. */
  close(): Promise<void>;
}

export type HttpsReceiverHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer,
) => void | Promise<void>;

/**
 * An HTTPS server on 127.0.0.1 (a free port) with the test certificate, or `options.certificate`
 * with the CA that signed it. A handler that throws answers 500; one that never answers leaves the
 * request hanging until `close()`.
 */
export async function startHttpsReceiver(
  handler: HttpsReceiverHandler,
  options: { certificate?: TestCertificate & { caPem: string } } = {},
): Promise<HttpsReceiver> {
  const { certPem, keyPem } = options.certificate ?? testCertificate();
  const caPem = options.certificate?.caPem ?? certPem;
  const requests: ReceivedRequest[] = [];
  const server = https.createServer({ cert: certPem, key: keyPem }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: { ...request.headers }, body });
      Promise.resolve()
        .then(() => handler(request, response, body))
        .catch((error: unknown) => {
          if (response.headersSent) return response.destroy();
          response
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`receiver failed: ${error instanceof Error ? error.message : String(error)}`);
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
    caPem,
    requests,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
