import sharp from 'sharp';

/**
 * A photo-like JPEG: smooth gradients and soft shapes (large flat-ish areas, as in a render)
 * plus fine grain (sensor noise / texture), so the encoders meet realistic content rather than a
 * flat color that compresses to nothing. Deterministic for a given size.
 */
export async function photoLikeJpeg(width: number, height: number, quality = 90): Promise<Buffer> {
  // Drawn small and scaled up: smooth like a blurred SVG, but fast at 4K (librsvg's blur is not).
  const drawWidth = 512;
  const drawHeight = Math.round((height / width) * drawWidth);
  const shapes = Array.from({ length: 14 }, (_, index) => {
    const x = ((index * 37) % 100) / 100;
    const y = ((index * 61) % 100) / 100;
    const r = 0.08 + ((index * 13) % 20) / 100;
    const hue = (index * 47) % 360;
    return `<ellipse cx="${(x * drawWidth).toFixed(0)}" cy="${(y * drawHeight).toFixed(0)}" rx="${(r * drawWidth).toFixed(0)}" ry="${(r * 1.3 * drawWidth).toFixed(0)}" fill="hsl(${hue},45%,${35 + (index % 5) * 8}%)" fill-opacity="0.55"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${drawWidth}" height="${drawHeight}">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="0.4" y2="1">
        <stop offset="0" stop-color="#dfe8ef"/><stop offset="0.55" stop-color="#b89f86"/><stop offset="1" stop-color="#4a3b30"/>
      </linearGradient>
      <filter id="soft"><feGaussianBlur stdDeviation="3"/></filter>
    </defs>
    <rect width="100%" height="100%" fill="url(#sky)"/>
    <g filter="url(#soft)">${shapes}</g>
  </svg>`;
  // Raw pixels between steps: a 22 MP PNG round trip alone takes tens of seconds.
  const small = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const base = await sharp(small.data, { raw: small.info })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // A 509 px tile (prime, so its repeat does not line up with 8×8 JPEG blocks); libvips' noise is slow at 22 MP.
  const grain = await sharp({
    create: {
      width: 509,
      height: 509,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 14 },
    },
  })
    .png()
    .toBuffer();
  return sharp(base.data, { raw: base.info })
    .composite([{ input: grain, blend: 'soft-light', tile: true }])
    .jpeg({ quality })
    .toBuffer();
}

/** A product cut-out: a colored shape on transparency, as shops' product PNGs often are. */
export async function productPng(size: number, color = '#b03a2e'): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${color}"/><stop offset="1" stop-color="#2c1a16"/></linearGradient></defs>
    <path d="M${size * 0.3} ${size * 0.08} L${size * 0.7} ${size * 0.08} L${size * 0.95} ${size * 0.3} L${size * 0.8} ${size * 0.42} L${size * 0.75} ${size * 0.95} L${size * 0.25} ${size * 0.95} L${size * 0.2} ${size * 0.42} L${size * 0.05} ${size * 0.3} Z" fill="url(#g)"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
