import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ImageCdn } from '../core/http/app-module-api.ts';

/** A product of the demo shop; its images are generated at first use and kept in the public CDN. */
export interface DemoProduct {
  id: string;
  title: string;
  description: string;
  priceCents: number;
  /** Colour variations: the first is the main image. */
  colors: Array<{ id: string; name: string; fill: string; key: string }>;
}

const color = (product: string, id: string, name: string, fill: string) => ({
  id,
  name,
  fill,
  key: `demo/${product}-${id}.png`,
});

export const demoProducts: DemoProduct[] = [
  {
    id: 'tee-classic',
    title: 'Classic Cotton Tee',
    description: 'Heavyweight organic cotton, relaxed fit, garment-dyed for a soft hand feel.',
    priceCents: 2900,
    colors: [
      color('tee-classic', 'red', 'Brick red', '#c0392b'),
      color('tee-classic', 'navy', 'Navy', '#22324f'),
      color('tee-classic', 'sage', 'Sage', '#7f9c7a'),
    ],
  },
  {
    id: 'linen-shirt',
    title: 'Linen Camp Shirt',
    description: 'Breathable European linen with a camp collar and coconut buttons.',
    priceCents: 5900,
    colors: [color('linen-shirt', 'sand', 'Sand', '#d8c3a0'), color('linen-shirt', 'sky', 'Sky blue', '#8fb8de')],
  },
  {
    id: 'hoodie-everyday',
    title: 'Everyday Hoodie',
    description: 'Brushed-back fleece, kangaroo pocket and a hood that keeps its shape.',
    priceCents: 6900,
    colors: [
      color('hoodie-everyday', 'charcoal', 'Charcoal', '#3d3f45'),
      color('hoodie-everyday', 'mustard', 'Mustard', '#d4a437'),
    ],
  },
];

export const findDemoProduct = (id: string | null | undefined) => demoProducts.find((product) => product.id === id);

/** A flat garment on a light background, drawn as SVG and rasterized: no binary files in the repository. */
function garmentSvg(product: DemoProduct, fill: string): string {
  const shapes: Record<string, string> = {
    'tee-classic':
      'M190 120 L250 95 Q300 135 350 95 L410 120 L480 190 L430 240 L400 215 L400 480 L200 480 L200 215 L170 240 L120 190 Z',
    'linen-shirt':
      'M195 115 L262 92 L300 150 L338 92 L405 115 L470 300 L420 315 L400 230 L400 485 L200 485 L200 230 L180 315 L130 300 Z',
    'hoodie-everyday':
      'M200 125 Q240 70 300 70 Q360 70 400 125 L470 170 L500 430 L448 440 L420 250 L420 490 L180 490 L180 250 L152 440 L100 430 L130 170 Z',
  };
  const details: Record<string, string> = {
    'tee-classic': '<path d="M250 95 Q300 135 350 95" fill="none" stroke="rgba(0,0,0,.25)" stroke-width="6"/>',
    'linen-shirt':
      '<path d="M300 150 L300 485" stroke="rgba(0,0,0,.2)" stroke-width="4"/>' +
      [190, 250, 310, 370, 430].map((y) => `<circle cx="312" cy="${y}" r="6" fill="#f5efe3"/>`).join(''),
    'hoodie-everyday':
      '<path d="M240 110 Q300 170 360 110" fill="none" stroke="rgba(0,0,0,.3)" stroke-width="6"/>' +
      '<path d="M230 380 L370 380 L390 450 L210 450 Z" fill="rgba(0,0,0,.12)"/>',
  };
  return `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600" viewBox="0 0 600 600">
  <defs><radialGradient id="bg" cx="50%" cy="40%" r="70%"><stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#eceae6"/></radialGradient>
  <linearGradient id="shade" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="rgba(255,255,255,.18)"/><stop offset="1" stop-color="rgba(0,0,0,.18)"/></linearGradient></defs>
  <rect width="600" height="600" fill="url(#bg)"/>
  <ellipse cx="300" cy="520" rx="190" ry="18" fill="rgba(0,0,0,.08)"/>
  <path d="${shapes[product.id]}" fill="${fill}"/>
  <path d="${shapes[product.id]}" fill="url(#shade)"/>
  ${details[product.id] ?? ''}
</svg>`;
}

const rasterizer = fileURLToPath(new URL('./rasterize-svg.js', import.meta.url));

/** PNGs of `svgs`, in order, drawn by rasterize-svg.js in a child process (it says why). */
function rasterize(svgs: string[]): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [rasterizer], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) reject(error);
      else resolve((JSON.parse(stdout) as string[]).map((png) => Buffer.from(png, 'base64')));
    });
    child.stdin!.end(JSON.stringify(svgs));
  });
}

/** Puts every product image missing from the public CDN into it (idempotent: same key, same bytes). */
export async function publishDemoImages(cdn: ImageCdn): Promise<void> {
  const missing: Array<{ key: string; svg: string }> = [];
  for (const product of demoProducts) {
    for (const variant of product.colors) {
      if (!(await cdn.get(variant.key, 'public')))
        missing.push({ key: variant.key, svg: garmentSvg(product, variant.fill) });
    }
  }
  if (missing.length === 0) return;
  const pngs = await rasterize(missing.map((image) => image.svg));
  for (const [index, { key }] of missing.entries())
    await cdn.put(key, pngs[index]!, { contentType: 'image/png', visibility: 'public' });
}
