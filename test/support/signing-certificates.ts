/**
 * A throwaway CA, and certificates it issues for keys of any kind with the extensions a test asks
 * for, to check what startup accepts of a C2PA signer. Made with the openssl CLI (as
 * https-server.ts's are) in a temp dir removed on exit; the keys are node:crypto's.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a C2PA claim signer's certificate carries (see docs/operations.md, Content credentials). */
export const signerExtensions = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature',
  'extendedKeyUsage=emailProtection',
];

export interface Issued {
  keyPem: string;
  /** The certificate, then the CA's. */
  chainPem: string;
}

export async function signingCertificates() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-c2pa-certs-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  let serial = 0;

  const caKey = pkcs8(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
  writeFileSync(file('ca.key'), caKey);
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
    '/CN=Visualizer test C2PA CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    file('ca.pem'),
  );
  const ca = { keyPem: caKey, certPem: readFileSync(file('ca.pem'), 'utf8') };

  return {
    ca,
    /** A certificate the CA issues for `key` (a private key's PEM), with exactly `extensions` (openssl's syntax). */
    async issue(keyPem: string, extensions: string[] = signerExtensions): Promise<Issued> {
      const name = `leaf${++serial}`;
      writeFileSync(file(`${name}.key`), keyPem);
      writeFileSync(file(`${name}.ext`), `${extensions.join('\n')}\n`);
      await openssl(
        'req',
        '-new',
        '-key',
        file(`${name}.key`),
        '-subj',
        `/CN=Visualizer test signer ${serial}/O=Visualizer`,
        '-out',
        file(`${name}.csr`),
      );
      await openssl(
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file('ca.pem'),
        '-CAkey',
        file('ca.key'),
        '-set_serial',
        String(serial),
        '-sha256',
        '-days',
        '7',
        '-extfile',
        file(`${name}.ext`),
        '-out',
        file(`${name}.pem`),
      );
      return { keyPem, chainPem: readFileSync(file(`${name}.pem`), 'utf8') + ca.certPem };
    },
  };
}

/** A new key's PEM: `privateKey` of what generateKeyPairSync returns. */
export const pkcs8 = ({ privateKey }: { privateKey: KeyObject }) =>
  privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
