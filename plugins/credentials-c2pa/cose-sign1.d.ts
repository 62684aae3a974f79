import type { KeyObject } from 'node:crypto';

/** The C2PA signing algorithm for a private key (see cose-sign1.js). */
export function algorithmFor(key: KeyObject): 'es256' | 'es384' | 'es512' | 'ps256' | 'ed25519';

/** The COSE_Sign1 of a claim, its payload detached, exactly `reserveSize` bytes (see cose-sign1.js). */
export function coseSigner(signer: {
  key: KeyObject;
  chain: Uint8Array[];
  reserveSize: number;
}): (claim: Uint8Array) => Uint8Array;
