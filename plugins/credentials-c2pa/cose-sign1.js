// The COSE_Sign1 signature of a C2PA claim, built as c2pa-rs builds it. Plain JavaScript: the
// signing thread loads it, and the tsx loader that runs our TypeScript does not reach worker
// threads (see plugins/scheduler-bree/tick.js).
//
// Why it is ours to build: @contentauth/c2pa-wasm's signer hands the claim to our callback with
// `direct_cose_handling` on (packages/c2pa-wasm/src/wasm_signer.rs in github.com/contentauth/c2pa-js),
// so c2pa-rs takes back whatever the callback returns as the whole `c2pa.signature` box: the COSE
// structure, not a raw signature. Built from:
// - c2pa-rs, sdk/src/crypto/cose/sign.rs (github.com/contentauth/c2pa-rs): `sign_v2_embedded` with a
//   detached payload (claims of version 2 store their time stamp as `sigTst2`, after signing; we
//   request none), `build_protected_header` (the algorithm, then `x5chain`: one certificate as a
//   byte string, several as an array, signer first) and `pad_cose_sig` (a `pad` byte string in the
//   unprotected header, a second `pad2` when one cannot reach the size, so the box is exactly the
//   size reserved for it: the asset's hash excludes that many bytes);
// - RFC 9052 §4.2 and §4.4 (COSE_Sign1, tag 18, and its Sig_structure `["Signature1", protected,
//   external_aad, payload]`), RFC 9360 (`x5chain`, label 33), RFC 9053 §2.1 (ECDSA signatures as
//   r‖s, each the curve's size, which c2pa-rs converts DER signatures to).
import { sign as signWith } from 'node:crypto';
import { encode, Tag } from 'cbor2';

/** COSE algorithm identifiers (RFC 9053, IANA COSE Algorithms) of the C2PA signing algorithms we sign with. */
const coseAlgorithms = { es256: -7, es384: -35, es512: -36, ps256: -37, ps384: -38, ps512: -39, ed25519: -8 };

/**
 * The C2PA algorithm name for a private key (a node:crypto KeyObject): ES256/384/512 for EC keys on
 * P-256/384/521, PS256 for RSA keys of 2048 bits or more (C2PA allows no PKCS#1 v1.5 signatures),
 * Ed25519. Throws for any other key, naming what C2PA allows.
 * @param {import('node:crypto').KeyObject} key
 * @returns {keyof typeof coseAlgorithms}
 */
export function algorithmFor(key) {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const byCurve = { prime256v1: 'es256', secp384r1: 'es384', secp521r1: 'es512' };
    const alg = byCurve[/** @type {keyof typeof byCurve} */ (curve)];
    if (!alg)
      throw new Error(`the signing key is on the curve ${curve}, which C2PA does not allow (P-256, P-384 or P-521)`);
    return /** @type {'es256' | 'es384' | 'es512'} */ (alg);
  }
  if (type === 'rsa' || type === 'rsa-pss') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < 2048) throw new Error(`the signing key is RSA of ${bits} bits; C2PA requires 2048 bits or more`);
    return 'ps256';
  }
  if (type === 'ed25519') return 'ed25519';
  throw new Error(`the signing key is of type ${type}, which C2PA does not allow (EC, RSA or Ed25519)`);
}

/**
 * The raw signature of `data` with `key`, as COSE wants it for `alg`.
 * @param {keyof typeof coseAlgorithms} alg
 * @param {import('node:crypto').KeyObject} key
 * @param {Uint8Array} data
 */
function rawSignature(alg, key, data) {
  if (alg === 'ed25519') return signWith(null, data, key);
  const hash = `sha${alg.slice(2)}`;
  if (alg.startsWith('ps')) {
    // RSASSA-PSS with MGF1 over the same hash and a salt as long as the hash (RFC 8230 §2).
    return signWith(hash, data, { key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: Number(alg.slice(2)) / 8 });
  }
  return signWith(hash, data, { key, dsaEncoding: 'ieee-p1363' });
}

/** @param {number} length the bytes of a CBOR byte string's head for a string this long */
const lengthHead = (length) => (length < 24 ? 1 : length < 256 ? 2 : length < 65536 ? 3 : 5);

/**
 * A signer for c2pa-wasm's `SignerDefinition.sign`: the complete, tagged COSE_Sign1 of a claim,
 * its payload detached, exactly `reserveSize` bytes long.
 * @param {{ key: import('node:crypto').KeyObject, chain: Uint8Array[], reserveSize: number }} signer
 *   `chain`: the DER certificates, the signer's first, then the ones that issued it (not the root).
 */
export function coseSigner({ key, chain, reserveSize }) {
  const alg = algorithmFor(key);
  const protectedHeader = encode(
    new Map([
      [1, coseAlgorithms[alg]],
      [33, chain.length === 1 ? chain[0] : chain],
    ]),
  );
  /** @param {Uint8Array} claim */
  return function signClaim(claim) {
    const toBeSigned = encode(['Signature1', protectedHeader, new Uint8Array(0), claim]);
    const signature = new Uint8Array(rawSignature(alg, key, toBeSigned));
    /** @param {Map<string, Uint8Array>} unprotected */
    const sign1 = (unprotected) => encode(new Tag(18, [protectedHeader, unprotected, null, signature]));
    const bare = sign1(new Map()).length;
    // A `pad` entry is its key (4 bytes), its length's head (1, 2, 3 or 5 bytes) and its zeros. Near
    // a head's boundary no length lands on the size: then a small `pad2` (5 + 1 + its zeros) shifts it.
    for (const second of [-1, ...Array.from({ length: 24 }, (_, index) => index)]) {
      const room = reserveSize - bare - 4 - (second < 0 ? 0 : 6 + second);
      for (const head of [1, 2, 3, 5]) {
        const zeros = room - head;
        if (zeros < 0 || lengthHead(zeros) !== head) continue;
        const entries = new Map([['pad', new Uint8Array(zeros)]]);
        if (second >= 0) entries.set('pad2', new Uint8Array(second));
        const padded = sign1(entries);
        if (padded.length === reserveSize) return padded;
      }
    }
    throw new Error(
      `the signature (${bare} bytes with its certificates) does not fit the ${reserveSize} bytes reserved for it`,
    );
  };
}
