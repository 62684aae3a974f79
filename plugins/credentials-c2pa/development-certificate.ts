import { randomUUID, webcrypto } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Where, under the data directory, the development signer is kept: its private key, then its certificate and its CA's. */
export const developmentSignerFile = path.join('content-credentials', 'development-signer.pem');

const organization = 'Visualizer development';
const caName = 'Visualizer development CA (not trusted)';
const signerName = 'Visualizer development signer (not trusted)';

/**
 * The development signer's PEM (key and chain) under `dataDir`, made on first use like the
 * development organization's keys: a P-256 key and a certificate a development CA issued for it,
 * as C2PA requires of a signer (an end-entity certificate, not self-signed, for digital signatures
 * with the email-protection purpose). No verifier trusts that CA, so readers report the signer as
 * untrusted and everything else as valid. Several processes starting on one new data directory
 * agree on one: the first to link its file wins, the others read it. Where the data directory
 * cannot be written, the process keeps one in memory (`file` then says so).
 */
export async function developmentSigner(dataDir: string): Promise<{ pem: string; file: string; created: boolean }> {
  const file = path.resolve(dataDir, developmentSignerFile);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  if (existing) return { pem: existing, file, created: false };
  const pem = await makeDevelopmentSigner();
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(temporary, pem, { mode: 0o600 });
  } catch (error) {
    // A data directory that cannot be written (a container's read-only one, with Postgres and S3)
    // still starts: this process signs with a development signer of its own, made for it alone.
    return {
      pem,
      file: `memory (${file} could not be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      created: true,
    };
  }
  try {
    await link(temporary, file);
    return { pem, file, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { pem: await readFile(file, 'utf8'), file, created: false };
  } finally {
    await unlink(temporary).catch(() => {});
  }
}

const pemBlock = (label: string, der: ArrayBuffer | Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der))
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;

async function makeDevelopmentSigner(): Promise<string> {
  // Loaded only here: a data directory makes its development signer once.
  const pkijs = await import('pkijs');
  const asn1js = await import('asn1js');
  const { subtle } = webcrypto;
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const caKeys = await subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const signerKeys = await subtle.generateKey(algorithm, true, ['sign', 'verify']);

  const name = (commonName: string) =>
    new pkijs.RelativeDistinguishedNames({
      typesAndValues: [
        new pkijs.AttributeTypeAndValue({ type: '2.5.4.10', value: new asn1js.Utf8String({ value: organization }) }),
        new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: commonName }) }),
      ],
    });
  // RFC 5280 §4.2.1.2, method 1: the SHA-1 of the public key's bits.
  const keyIdentifier = async (key: webcrypto.CryptoKey) =>
    new asn1js.OctetString({ valueHex: await subtle.digest('SHA-1', await subtle.exportKey('raw', key)) });
  const extension = (extnID: string, critical: boolean, value: { toBER(sizeOnly?: boolean): ArrayBuffer }) =>
    new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });

  async function certificate(options: { subject: string; publicKey: webcrypto.CryptoKey; ca: boolean; years: number }) {
    const certificate = new pkijs.Certificate();
    certificate.version = 2; // v3
    const serial = webcrypto.getRandomValues(new Uint8Array(16));
    serial[0] = (serial[0]! & 0x7f) | 0x01; // positive, and no leading zero byte
    certificate.serialNumber = new asn1js.Integer({ valueHex: serial });
    certificate.subject = name(options.subject);
    certificate.issuer = name(caName);
    const now = Date.now();
    certificate.notBefore.value = new Date(now - 3_600_000);
    certificate.notAfter.value = new Date(now + options.years * 365 * 86_400_000);
    await certificate.subjectPublicKeyInfo.importKey(options.publicKey);
    // keyCertSign and cRLSign for the CA; digitalSignature for the signer (RFC 5280 §4.2.1.3).
    const keyUsage = options.ca
      ? new asn1js.BitString({ valueHex: new Uint8Array([0x06]).buffer, unusedBits: 1 })
      : new asn1js.BitString({ valueHex: new Uint8Array([0x80]).buffer, unusedBits: 7 });
    certificate.extensions = [
      extension('2.5.29.19', true, new pkijs.BasicConstraints({ cA: options.ca }).toSchema()),
      extension('2.5.29.15', true, keyUsage),
      extension('2.5.29.14', false, await keyIdentifier(options.publicKey)),
      extension(
        '2.5.29.35',
        false,
        new pkijs.AuthorityKeyIdentifier({ keyIdentifier: await keyIdentifier(caKeys.publicKey) }).toSchema(),
      ),
    ];
    // id-kp-emailProtection, one of the purposes C2PA accepts for a claim signer.
    if (!options.ca)
      certificate.extensions.push(
        extension('2.5.29.37', false, new pkijs.ExtKeyUsage({ keyPurposes: ['1.3.6.1.5.5.7.3.4'] }).toSchema()),
      );
    await certificate.sign(caKeys.privateKey, 'SHA-256');
    return certificate.toSchema(true).toBER(false);
  }

  const ca = await certificate({ subject: caName, publicKey: caKeys.publicKey, ca: true, years: 20 });
  const signer = await certificate({ subject: signerName, publicKey: signerKeys.publicKey, ca: false, years: 10 });
  return (
    pemBlock('PRIVATE KEY', await subtle.exportKey('pkcs8', signerKeys.privateKey)) +
    pemBlock('CERTIFICATE', signer) +
    pemBlock('CERTIFICATE', ca)
  );
}
