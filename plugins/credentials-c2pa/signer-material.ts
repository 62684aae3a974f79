import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { CredentialsSigner } from '../../kit/plugin.ts';
import { algorithmFor } from './cose-sign1.js';
import { assertsDigitalSignature } from './key-usage.ts';

/** The signing key and its certificate chain, read and checked. */
export interface SignerMaterial {
  key: KeyObject;
  /** PEM of the key, for the signing thread. */
  keyPem: string;
  /** The signer's certificate first, then those that issued it. */
  chain: X509Certificate[];
  signer: CredentialsSigner;
}

/** PEM text and where it comes from (a file, or an option or environment variable), which errors name. */
export interface PemSource {
  pem: string;
  source: string;
}

/**
 * The extended key usages C2PA accepts of a claim signer: C2PA claim signing, document signing,
 * email protection.
 */
const signingPurposes = ['1.3.6.1.4.1.62558.2.1', '1.3.6.1.5.5.7.3.36', '1.3.6.1.5.5.7.3.4'];

/**
 * Reads a PEM private key and a PEM certificate chain (the signer's certificate first), and checks
 * what would otherwise fail only at the first render, or at a verifier: a key C2PA signs with,
 * that belongs to the certificate, and a certificate C2PA accepts for signing (not a CA's, valid
 * now, for digital signatures and, when it names purposes, one of C2PA's).
 */
export function signerMaterial(
  keyPem: PemSource,
  chainPem: PemSource,
  { development }: { development: boolean },
): SignerMaterial {
  const source = chainPem.source;
  const blocks = chainPem.pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`no PEM certificate in ${source}`);
  const chain = blocks.map((block) => new X509Certificate(block));
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem.pem);
  } catch (error) {
    throw new Error(`no readable PEM private key in ${keyPem.source}: ${(error as Error).message}`);
  }
  try {
    algorithmFor(key);
  } catch (error) {
    throw new Error(`the private key in ${keyPem.source} cannot sign Content Credentials: ${(error as Error).message}`);
  }
  const certificate = chain[0]!;
  if (!certificate.checkPrivateKey(key))
    throw new Error(
      `the private key in ${keyPem.source} is not the signing certificate's (${source}); the signer's certificate must come first`,
    );
  if (certificate.ca)
    throw new Error(
      `the signing certificate (${source}) is a CA's: C2PA signs with an end-entity certificate that a CA issued`,
    );
  const now = Date.now();
  if (Date.parse(certificate.validTo) < now || Date.parse(certificate.validFrom) > now) {
    throw new Error(
      `the signing certificate (${source}) is not valid now (${certificate.validFrom} to ${certificate.validTo})`,
    );
  }
  if (!assertsDigitalSignature(new Uint8Array(certificate.raw))) {
    throw new Error(
      `the signing certificate (${source}) does not have the digitalSignature key usage, which C2PA requires`,
    );
  }
  // node:crypto's `keyUsage` is the extended key usage; undefined when the certificate has none.
  const purposes = certificate.keyUsage;
  if (purposes && !purposes.some((purpose) => signingPurposes.includes(purpose))) {
    throw new Error(
      `the signing certificate (${source}) is for ${purposes.join(', ')}, none of which C2PA accepts: it needs C2PA claim signing, document signing or email protection (${signingPurposes.join(', ')})`,
    );
  }
  return {
    key,
    keyPem: key.export({ type: 'pkcs8', format: 'pem' }) as string,
    chain,
    signer: { development, source, subject: certificate.subject.split('\n').join(', ') },
  };
}
