import { crc32 } from 'node:zlib';
import { digitalSourceTypeUri, type DigitalSourceType } from '../ports/content-credentials.ts';

/**
 * XMP that states an image's IPTC digital source type (`Iptc4xmpExt:DigitalSourceType`), for
 * readers that do not read C2PA manifests. Variants get it from their encoder (sharp's `withXmp`);
 * the original, kept as the engine encoded it, gets it by `withXmpPacket`, which adds the packet
 * without decoding or re-encoding the image.
 */
export function xmpPacket(type: DigitalSourceType): string {
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '  <rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/">',
    `   <Iptc4xmpExt:DigitalSourceType>${digitalSourceTypeUri(type)}</Iptc4xmpExt:DigitalSourceType>`,
    '  </rdf:Description>',
    ' </rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

export type XmpFormat = 'jpeg' | 'png' | 'webp';

/** The image's own size and alpha, which a simple WebP needs to become an extended one (VP8X). */
export interface XmpImageInfo {
  width: number;
  height: number;
  hasAlpha: boolean;
}

/**
 * The image with `xmp` as its XMP packet, replacing any it had; the encoded image data is copied
 * as it is. Throws on bytes that are not a well-formed image of `format`.
 */
export function withXmpPacket(image: Uint8Array, format: XmpFormat, xmp: string, info: XmpImageInfo): Buffer {
  const bytes = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  try {
    if (format === 'jpeg') return jpegWithXmp(bytes, xmp);
    if (format === 'png') return pngWithXmp(bytes, xmp);
    return webpWithXmp(bytes, xmp, info);
  } catch (error) {
    // A read past the end of a truncated image is the same failure as one found malformed.
    throw error instanceof XmpError
      ? error
      : new XmpError(`no XMP could be added to the ${format} image: ${(error as Error).message}`, { cause: error });
  }
}

/** An image withXmpPacket cannot add its packet to: the same bytes would fail again. */
export class XmpError extends Error {}

const malformed = (format: string) => new XmpError(`not a well-formed ${format} image`);

// JPEG: XMP is an APP1 segment whose payload starts with this namespace (XMP Specification Part 3, 1.1.3).
const jpegXmpHeader = Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1');
const jpegExtendedXmpHeader = Buffer.from('http://ns.adobe.com/xmp/extension/\0', 'latin1');

function jpegWithXmp(bytes: Buffer, xmp: string): Buffer {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) throw malformed('JPEG');
  const payload = Buffer.concat([jpegXmpHeader, Buffer.from(xmp, 'utf8')]);
  if (payload.length > 0xfffd) throw new XmpError('XMP packet too large for one JPEG segment');
  const segment = Buffer.alloc(4 + payload.length);
  segment.writeUInt16BE(0xffe1, 0);
  segment.writeUInt16BE(payload.length + 2, 2);
  payload.copy(segment, 4);
  // The marker segments before the image data: every one is kept but an earlier XMP packet (and
  // its extension), and ours goes after a leading JFIF APP0, where readers expect it.
  const parts: Buffer[] = [bytes.subarray(0, 2)];
  let offset = 2;
  let inserted = false;
  while (offset + 4 <= bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1]!;
    // Start of scan, or anything that is not a metadata segment: the rest is copied as it is.
    if (marker === 0xda || !((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe)) break;
    const end = offset + 2 + bytes.readUInt16BE(offset + 2);
    if (end > bytes.length) throw malformed('JPEG');
    if (!inserted && marker !== 0xe0) {
      parts.push(segment);
      inserted = true;
    }
    const body = bytes.subarray(offset + 4, end);
    const isXmp = marker === 0xe1 && (startsWith(body, jpegXmpHeader) || startsWith(body, jpegExtendedXmpHeader));
    if (!isXmp) parts.push(bytes.subarray(offset, end));
    offset = end;
  }
  if (!inserted) parts.push(segment);
  parts.push(bytes.subarray(offset));
  return Buffer.concat(parts);
}

// PNG: XMP is an uncompressed iTXt chunk with this keyword (XMP Specification Part 3, 1.1.5).
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const pngXmpKeyword = Buffer.from('XML:com.adobe.xmp\0', 'latin1');

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

function pngWithXmp(bytes: Buffer, xmp: string): Buffer {
  if (bytes.length < 33 || !startsWith(bytes, pngSignature) || bytes.toString('latin1', 12, 16) !== 'IHDR')
    throw malformed('PNG');
  // keyword, compression flag 0 and method 0, empty language tag and translated keyword, the text.
  const xmpChunk = pngChunk(
    'iTXt',
    Buffer.concat([pngXmpKeyword, Buffer.from([0, 0, 0, 0]), Buffer.from(xmp, 'utf8')]),
  );
  const parts: Buffer[] = [bytes.subarray(0, 8)];
  let offset = 8;
  let ended = false;
  while (!ended && offset + 12 <= bytes.length) {
    const end = offset + 12 + bytes.readUInt32BE(offset);
    if (end > bytes.length) throw malformed('PNG');
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    // An earlier packet, in an iTXt chunk or (as libvips writes it) a compressed zTXt or tEXt one.
    const isXmp =
      ['iTXt', 'zTXt', 'tEXt'].includes(type) && startsWith(bytes.subarray(offset + 8, end - 4), pngXmpKeyword);
    if (!isXmp) parts.push(bytes.subarray(offset, end));
    // Right after the header, before the image data.
    if (type === 'IHDR') parts.push(xmpChunk);
    offset = end;
    ended = type === 'IEND';
  }
  if (!ended) throw malformed('PNG');
  return Buffer.concat(parts);
}

// WebP: XMP is an `XMP ` chunk, which only the extended format (a VP8X chunk first, its XMP flag
// set) may carry (https://developers.google.com/speed/webp/docs/riff_container).
const vp8xXmpFlag = 0x04;
const vp8xAlphaFlag = 0x10;

function riffChunk(fourcc: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(8 + data.length + (data.length % 2));
  chunk.write(fourcc, 0, 'latin1');
  chunk.writeUInt32LE(data.length, 4);
  data.copy(chunk, 8);
  return chunk;
}

function webpWithXmp(bytes: Buffer, xmp: string, info: XmpImageInfo): Buffer {
  if (bytes.length < 20 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP')
    throw malformed('WebP');
  const chunks: Array<{ fourcc: string; chunk: Buffer }> = [];
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const fourcc = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const end = offset + 8 + size + (size % 2);
    if (offset + 8 + size > bytes.length) throw malformed('WebP');
    if (fourcc !== 'XMP ')
      chunks.push({ fourcc, chunk: Buffer.from(bytes.subarray(offset, Math.min(end, bytes.length))) });
    offset = end;
  }
  const first = chunks[0];
  if (!first) throw malformed('WebP');
  if (first.fourcc === 'VP8X') {
    first.chunk[8] = first.chunk[8]! | vp8xXmpFlag;
  } else {
    // A simple WebP (one VP8 or VP8L chunk) becomes an extended one: flags, 3 reserved bytes,
    // then the canvas width and height less one, 24 bits each.
    const header = Buffer.alloc(10);
    header[0] = vp8xXmpFlag | (info.hasAlpha ? vp8xAlphaFlag : 0);
    header.writeUIntLE(info.width - 1, 4, 3);
    header.writeUIntLE(info.height - 1, 7, 3);
    chunks.unshift({ fourcc: 'VP8X', chunk: riffChunk('VP8X', header) });
  }
  const body = Buffer.concat([...chunks.map((entry) => entry.chunk), riffChunk('XMP ', Buffer.from(xmp, 'utf8'))]);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(body.length + 4, 4);
  header.write('WEBP', 8, 'latin1');
  return Buffer.concat([header, body]);
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && Buffer.from(bytes.buffer, bytes.byteOffset, prefix.length).equals(prefix);
}
