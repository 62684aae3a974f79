import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { withXmpPacket, xmpPacket, type XmpFormat } from '../core/imaging/xmp.ts';
import { digitalSourceTypeUri } from '../core/ports/content-credentials.ts';
import { exiftoolXmp } from './support/exiftool.ts';

const scene = (alpha: boolean) =>
  sharp({
    create: {
      width: 120,
      height: 90,
      channels: alpha ? 4 : 3,
      background: { r: 30, g: 140, b: 90, alpha: alpha ? 0.5 : 1 },
    },
  }).composite([
    {
      input: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40"><circle cx="30" cy="20" r="18" fill="#fc0"/></svg>',
      ),
      left: 20,
      top: 10,
    },
  ]);
const stale = xmpPacket('composite');

/** The engine's images as they may come: each kept format, simple and extended WebP, some already with XMP. */
const cases: Array<{ label: string; format: XmpFormat; make: () => Promise<Buffer> }> = [
  { label: 'a JPEG', format: 'jpeg', make: () => scene(false).jpeg().toBuffer() },
  {
    label: 'a JPEG with EXIF and an XMP packet of its own',
    format: 'jpeg',
    make: () =>
      scene(false)
        .withExif({ IFD0: { Software: 'engine' } })
        .withXmp(stale)
        .jpeg()
        .toBuffer(),
  },
  { label: 'a PNG with alpha', format: 'png', make: () => scene(true).png().toBuffer() },
  {
    label: 'a PNG with an XMP packet of its own',
    format: 'png',
    make: () => scene(false).withXmp(stale).png().toBuffer(),
  },
  { label: 'a simple lossy WebP (VP8)', format: 'webp', make: () => scene(false).webp().toBuffer() },
  {
    label: 'a simple lossless WebP with alpha (VP8L)',
    format: 'webp',
    make: () => scene(true).webp({ lossless: true }).toBuffer(),
  },
  {
    label: 'an extended WebP (VP8X, alpha) with an XMP packet of its own',
    format: 'webp',
    make: () => scene(true).withXmp(stale).webp().toBuffer(),
  },
];

describe('XMP on an image kept as the engine encoded it', () => {
  for (const { label, format, make } of cases) {
    it(`states the digital source type in ${label}, its pixels untouched`, async () => {
      const image = await make();
      const { width, height, hasAlpha } = await sharp(image).metadata();
      const tagged = withXmpPacket(image, format, xmpPacket('trainedAlgorithmicMedia'), { width, height, hasAlpha });
      const xmp = await exiftoolXmp(tagged);
      assert.equal(xmp.DigitalSourceType, digitalSourceTypeUri('trainedAlgorithmicMedia'), JSON.stringify(xmp));
      const [before, after] = await Promise.all([
        sharp(image).raw().toBuffer({ resolveWithObject: true }),
        sharp(tagged).raw().toBuffer({ resolveWithObject: true }),
      ]);
      assert.ok(before.data.equals(after.data), 'the same pixels');
      assert.deepEqual(after.info, before.info);
      const metadata = await sharp(tagged).metadata();
      assert.equal(metadata.format, format);
      assert.ok(metadata.xmp, 'sharp reads the packet too');
      assert.equal(
        metadata.xmp!.toString().match(/DigitalSourceType>/g)?.length,
        2,
        'one packet: the earlier one is replaced',
      );
    });
  }

  it('refuses bytes that are not the format they are said to be', async () => {
    const png = await scene(false).png().toBuffer();
    const info = { width: 120, height: 90, hasAlpha: false };
    assert.throws(() => withXmpPacket(png, 'jpeg', stale, info), /not a well-formed JPEG/);
    assert.throws(() => withXmpPacket(png, 'webp', stale, info), /not a well-formed WebP/);
    assert.throws(() => withXmpPacket(png.subarray(0, 40), 'png', stale, info), /not a well-formed PNG/);
  });
});
