import { createDeflate, crc32 } from 'node:zlib';

/** Adam7's passes: first column and row, then the step between the pixels each pass holds. */
const passes = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A black, Adam7-interlaced RGB PNG, written without decoding anything: its filtered scanlines are
 * all zero bytes, streamed through deflate, so a 12000×12000 image at 16 bits takes a second and
 * a few megabytes here, and about a gigabyte in any decoder that must hold it whole.
 */
export async function interlacedPng(width: number, height: number, bitDepth: 8 | 16): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(bitDepth, 8);
  header.writeUInt8(2, 9); // truecolour
  header.writeUInt8(1, 12); // Adam7
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (part: Buffer) => compressed.push(part));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const zeros = Buffer.alloc(1024 * 1024);
  for (const [x0, y0, dx, dy] of passes) {
    const columns = Math.ceil((width - x0) / dx);
    const rows = Math.ceil((height - y0) / dy);
    if (columns <= 0 || rows <= 0) continue;
    // Each scanline: a filter byte, then its samples.
    let remaining = rows * (1 + Math.ceil((columns * 3 * bitDepth) / 8));
    while (remaining > 0) {
      const part = zeros.subarray(0, Math.min(zeros.length, remaining));
      remaining -= part.length;
      if (!deflate.write(part)) await new Promise((resolve) => deflate.once('drain', resolve));
    }
  }
  deflate.end();
  await done;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', Buffer.concat(compressed)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
