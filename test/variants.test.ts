import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { encodeVariants } from '../core/imaging/variants.ts';

const pixel = async (bytes: Buffer) => {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return { channels: info.channels, value: [...data.subarray(0, info.channels)] };
};

describe('encodeVariants', () => {
  it('makes list, card and detail in JPEG and WebP, never wider than the render', async () => {
    const render = await sharp({ create: { width: 819, height: 1024, channels: 3, background: '#3a7' } })
      .jpeg()
      .toBuffer();
    const variants = await encodeVariants(render);
    const sizes = variants
      .map((variant) => `${variant.name}.${variant.format} ${variant.width}×${variant.height}`)
      .sort();
    assert.deepEqual(sizes, [
      'card.jpeg 600×750',
      'card.webp 600×750',
      'detail.jpeg 819×1024',
      'detail.webp 819×1024',
      'list.jpeg 200×250',
      'list.webp 200×250',
    ]);
    for (const variant of variants) assert.equal((await sharp(variant.bytes).metadata()).format, variant.format);
  });

  it('lays a transparent render on white in JPEG, and keeps its alpha in WebP', async () => {
    const render = await sharp({
      create: { width: 1024, height: 1024, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const variants = await encodeVariants(render);
    const list = (format: string) =>
      variants.find((variant) => variant.name === 'list' && variant.format === format)!.bytes;
    const jpeg = await pixel(list('jpeg'));
    assert.equal(jpeg.channels, 3);
    assert.ok(
      jpeg.value.every((channel) => channel >= 250),
      `white, not black: ${jpeg.value.join(',')}`,
    );
    const webp = await pixel(list('webp'));
    assert.equal(webp.channels, 4);
    assert.equal(webp.value[3], 0, 'still transparent');
  });
});
