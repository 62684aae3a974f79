import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { encodeVariants } from '../core/imaging/variants.ts';
import type { ImageSize, Mode, RenderRequest } from '../core/ports/render-engine.ts';
import { createMockRenderer, previewMarkBand, previewMarkColour } from '../plugins/renderer-mock/mock-renderer.ts';

/** A photo of one flat colour, so every pixel of the band can be told from the photo under it. */
const blue = { r: 0x20, g: 0x50, b: 0xa0 };
const photo = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: blue } })
    .jpeg({ quality: 95 })
    .toBuffer();
const redProduct = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#aa3311ff' } })
  .png()
  .toBuffer();

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

async function decode(image: Uint8Array): Promise<Pixels> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

const at = (pixels: Pixels, x: number, y: number) => {
  const i = (y * pixels.width + x) * pixels.channels;
  return { r: pixels.data[i]!, g: pixels.data[i + 1]!, b: pixels.data[i + 2]! };
};
/** Within JPEG's error of a colour. */
const near = (pixel: { r: number; g: number; b: number }, colour: { r: number; g: number; b: number }) =>
  Math.abs(pixel.r - colour.r) <= 24 && Math.abs(pixel.g - colour.g) <= 24 && Math.abs(pixel.b - colour.b) <= 24;

/** Asserts the amber band with dark lettering across the top, and the photo's own colour right below it. */
function assertPreviewMark(pixels: Pixels, label: string) {
  const band = previewMarkBand(pixels.width, pixels.height).height;
  assert.ok(band >= Math.min(pixels.height, 12), `${label}: a band ${band} px high`);
  // Away from the words (the outer 2 % either side) the band is plain amber from top to bottom (JPEG blurs its last rows into the photo).
  for (const x of [
    0,
    Math.floor(pixels.width * 0.02),
    pixels.width - 1 - Math.floor(pixels.width * 0.02),
    pixels.width - 1,
  ]) {
    for (const y of [1, Math.floor(band / 2), band - 9]) {
      assert.ok(
        near(at(pixels, x, y), previewMarkColour),
        `${label}: amber at ${x},${y}, got ${JSON.stringify(at(pixels, x, y))}`,
      );
    }
  }
  // The words: dark pixels along the band's middle row, spread across most of its width.
  const row = Math.floor(band / 2);
  let dark = 0;
  let first = -1;
  let last = -1;
  for (let x = 0; x < pixels.width; x++) {
    const { r, g, b } = at(pixels, x, row);
    if (r + g + b < 240) {
      dark++;
      if (first < 0) first = x;
      last = x;
    }
  }
  assert.ok(dark > pixels.width * 0.05, `${label}: lettering in the band (${dark} dark pixels of ${pixels.width})`);
  assert.ok(
    last - first > pixels.width * 0.6,
    `${label}: the words run across the band (${first}–${last} of ${pixels.width})`,
  );
  // Below the band, the photo as it was.
  assert.ok(
    near(at(pixels, 2, band + 9), blue),
    `${label}: the photo below the band, got ${JSON.stringify(at(pixels, 2, band + 9))}`,
  );
}

describe('mock renderer preview mark', () => {
  const render = async (imageSize: ImageSize, mode: Mode, width: number, height: number) => {
    const request: RenderRequest = {
      imageSize,
      mode,
      photo: await photo(width, height),
      hint: null,
      products: [{ image: redProduct, productId: 'sku-1', productTitle: 'Red', dimensions: null }],
    };
    return (await createMockRenderer().render(request)).image;
  };

  const cases: Array<[ImageSize, Mode, number, number]> = [
    ['1K', 'virtual-try-on', 600, 800],
    ['1K', 'room-visualizer', 1600, 900],
    ['2K', 'virtual-try-on', 1200, 1600],
    ['4K', 'room-visualizer', 900, 1200],
  ];
  for (const [imageSize, mode, width, height] of cases) {
    it(`marks a ${imageSize} ${mode} render of a ${width}×${height} photo "PREVIEW" across its top`, async () => {
      const pixels = await decode(await render(imageSize, mode, width, height));
      assertPreviewMark(pixels, `${imageSize} ${mode}`);
    });
  }

  it('keeps the mark in the smallest variant a shop lists (200 px wide)', async () => {
    const variants = await encodeVariants(await render('1K', 'virtual-try-on', 600, 800));
    const list = variants.find((variant) => variant.name === 'list' && variant.format === 'jpeg')!;
    const pixels = await decode(list.bytes);
    assert.equal(pixels.width, 200);
    const band = previewMarkBand(768, 1024).height * (200 / 768);
    for (const x of [0, 199]) {
      const y = Math.floor(band / 2);
      assert.ok(near(at(pixels, x, y), previewMarkColour), `amber at ${x},${y}: ${JSON.stringify(at(pixels, x, y))}`);
    }
    assert.ok(near(at(pixels, 2, Math.ceil(band) + 2), blue), 'the photo below it');
  });
});
