import sharp from 'sharp';

/** The kit's damaged JPEG: the render-engine contract and the intake tests must agree on the same bytes. */
export { damagedJpeg } from 'visualizer/testing';

/**
 * Images as real uploads come, whose header reads but whose pixels may not: what the intake check
 * and the renderers must agree on.
 */

/** A JPEG of `width`×`height` with smooth gradients, so its entropy-coded data is most of the file. */
async function gradientJpeg(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const x = i % width;
    const y = Math.floor(i / width);
    pixels[i * 3] = (x * 7 + y * 3) & 255;
    pixels[i * 3 + 1] = (y * 5) & 255;
    pixels[i * 3 + 2] = (x * 2) & 255;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** The first 60% of a JPEG, as a cut-short upload leaves it: the header reads, the pixels do not. */
export async function truncatedJpeg(): Promise<Buffer> {
  const whole = await gradientJpeg(800, 1000);
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}

/**
 * A HEIC as iPhones save photos: a HEIF whose image item is HEVC-coded. Built from sharp's AVIF (no
 * HEVC encoder is at hand) by renaming the brand and item type and putting an `hvcC` box where
 * `av1C` was, so the header reads as HEVC; libvips's build in sharp cannot decode HEVC in any case.
 */
export async function heicImage(): Promise<Buffer> {
  const avif = Buffer.from(
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } })
      .avif()
      .toBuffer(),
  );
  const boxAt = (bytes: Buffer, type: string) => bytes.indexOf(type, 0, 'latin1') - 4;
  // HEVCDecoderConfigurationRecord: Main profile, level 3.1, 4:2:0, 8 bit, 4-byte NAL lengths, no parameter sets.
  const hvcC = Buffer.concat([
    Buffer.from([0, 0, 0, 31]),
    Buffer.from('hvcC', 'latin1'),
    Buffer.from('010160000000900000000000' + '5df000fcfdf8f800000f00', 'hex'),
  ]);
  const av1C = boxAt(avif, 'av1C');
  const grow = hvcC.length - avif.readUInt32BE(av1C);
  const heic = Buffer.concat([avif.subarray(0, av1C), hvcC, avif.subarray(av1C + avif.readUInt32BE(av1C))]);
  const ftypEnd = heic.readUInt32BE(0);
  for (let at = 8; at < ftypEnd; at += 4)
    if (heic.toString('latin1', at, at + 4) === 'avif') heic.write('heic', at, 'latin1');
  heic.write('hvc1', heic.indexOf('av01', 0, 'latin1'), 'latin1');
  // The boxes around the grown one, and the image data's offset behind it, move by as much.
  for (const type of ['meta', 'iprp', 'ipco'])
    heic.writeUInt32BE(heic.readUInt32BE(boxAt(heic, type)) + grow, boxAt(heic, type));
  // iloc (version 0, 4-byte offsets and lengths, a 4-byte base offset): the one extent's offset.
  const iloc = boxAt(heic, 'iloc');
  if (
    heic.readUInt32BE(iloc + 8) !== 0 ||
    heic.readUInt16BE(iloc + 12) !== 0x4440 ||
    heic.readUInt16BE(iloc + 14) !== 1
  ) {
    throw new Error("sharp's AVIF has an iloc box of another layout; heicImage() needs updating");
  }
  const extentOffset = iloc + 26;
  heic.writeUInt32BE(heic.readUInt32BE(extentOffset) + grow, extentOffset);
  return heic;
}
