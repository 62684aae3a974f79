/**
 * Whether a certificate's key usage extension (RFC 5280 §4.2.1.3) asserts `digitalSignature`, or
 * undefined when it has none: node:crypto's X509Certificate shows only the extended key usage.
 * `der` is a certificate node:crypto has parsed already, so its encoding is sound. A walk of three
 * DER levels rather than pkijs: this check runs as every process starts, and loading pkijs and
 * asn1js costs about 100 ms there (pkijs is loaded only to make a development certificate).
 */
export function assertsDigitalSignature(der: Uint8Array): boolean | undefined {
  const certificate = element(der, 0);
  const [tbsCertificate] = children(der, certificate);
  // Extensions are the [3] EXPLICIT field of a v3 TBSCertificate, a SEQUENCE of Extension.
  const explicit = children(der, tbsCertificate!).find((field) => field.tag === 0xa3);
  if (!explicit) return undefined;
  for (const extension of children(der, children(der, explicit)[0]!)) {
    const fields = children(der, extension);
    const [id] = fields;
    if (!equals(der.subarray(id!.start, id!.end), keyUsageOid)) continue;
    // extnValue, after an optional `critical`: an OCTET STRING holding the BIT STRING, whose first
    // byte counts the unused bits and whose first bit (0x80 of the next byte) is digitalSignature.
    const value = fields.at(-1)!;
    const bits = element(der, value.start);
    return bits.end - bits.start >= 2 && (der[bits.start + 1]! & 0x80) !== 0;
  }
  return undefined;
}

/** id-ce-keyUsage, 2.5.29.15, as its DER content bytes. */
const keyUsageOid = Uint8Array.of(0x55, 0x1d, 0x0f);

interface Element {
  tag: number;
  /** Where its content starts and ends in the DER. */
  start: number;
  end: number;
}

/** The DER element at `offset` (tags of one byte, as X.509's are). */
function element(der: Uint8Array, offset: number): Element {
  let length = der[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let index = 0; index < bytes; index++) length = length * 256 + der[start++]!;
  }
  return { tag: der[offset]!, start, end: start + length };
}

function children(der: Uint8Array, parent: Element): Element[] {
  const found: Element[] = [];
  for (let offset = parent.start; offset < parent.end; offset = found.at(-1)!.end) found.push(element(der, offset));
  return found;
}

const equals = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, index) => byte === b[index]);
