import { setTimeout as sleep } from 'node:timers/promises';
import type { OutputInfo, OverlayOptions } from 'sharp';
import {
  inputDecoding,
  loadSharp,
  longSideOf,
  RenderError,
  type Mode,
  type ProductDimensions,
  type RenderEngine,
  type RenderRequest,
  type RenderResult,
} from '../../kit/plugin.ts';

/** The room width the whole photo is taken to show, so a 200 cm sofa spans half of it. */
const ROOM_WIDTH_CM = 400;
const CM_PER_INCH = 2.54;

export interface MockRendererOptions {
  /** Simulated engine time before rendering starts; abortable through the request's signal. */
  latencyMs?: number;
}

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface LayoutItem {
  /** Width / height of the product image as it will be drawn. */
  aspect: number;
  dimensions: ProductDimensions | null;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** Fraction of the room photo's width a product covers: from its real width when known. */
export function roomWidthFraction(dimensions: ProductDimensions | null): number {
  if (!dimensions?.width) return 0.3;
  const cm = dimensions.unit === 'in' ? dimensions.width * CM_PER_INCH : dimensions.width;
  return clamp(cm / ROOM_WIDTH_CM, 0.1, 0.8);
}

/**
 * Left edges for boxes laid out in one row inside [margin, width - margin]: centred with gaps
 * when they fit, otherwise overlapping each other by the same amount so every box stays partly visible.
 */
function rowLefts(widths: number[], width: number): { lefts: number[]; overlapping: boolean } {
  const margin = width * 0.03;
  const available = width - 2 * margin;
  const sum = widths.reduce((total, w) => total + w, 0);
  const fits = sum + width * 0.02 * (widths.length - 1) <= available;
  const gap = fits ? width * 0.02 : widths.length > 1 ? (available - sum) / (widths.length - 1) : 0;
  let x = fits ? (width - sum - gap * (widths.length - 1)) / 2 : margin;
  const lefts = widths.map((w) => {
    const left = x;
    x += w + gap;
    return left;
  });
  return { lefts, overlapping: !fits };
}

/**
 * Where each product goes on a canvas of the output size. Pure, so tests can check the layout
 * without decoding pixels. Try-on stacks products over the torso (from ~30% down); the room
 * mode stands them on the floor (bottom band) at a width taken from their real dimensions.
 */
export function layoutProducts(mode: Mode, canvas: { width: number; height: number }, items: LayoutItem[]): Box[] {
  const { width: W, height: H } = canvas;
  const sizes = items.map((item) => {
    let w = mode === 'virtual-try-on' ? 0.35 * W : roomWidthFraction(item.dimensions) * W;
    let h = w / item.aspect;
    // Tall product images are shrunk so they stay inside the photo.
    const maxHeight = mode === 'virtual-try-on' ? 0.65 * H : 0.9 * H;
    if (h > maxHeight) {
      h = maxHeight;
      w = h * item.aspect;
    }
    return { w, h };
  });
  const { lefts, overlapping } = rowLefts(
    sizes.map((size) => size.w),
    W,
  );
  return sizes.map(({ w, h }, index) => {
    // Overlapping try-on products are also stepped down a little so each one's top shows.
    const top = mode === 'virtual-try-on' ? 0.3 * H + (overlapping ? index * 0.04 * H : 0) : 0.95 * H - h;
    const box = { left: lefts[index] ?? 0, top, width: w, height: h };
    return {
      left: Math.round(box.left),
      top: Math.round(box.top),
      width: Math.max(8, Math.round(box.width)),
      height: Math.max(8, Math.round(box.height)),
    };
  });
}

function aborted(): RenderError {
  return new RenderError('render_timeout', 'The render was aborted before it finished.', true);
}

function checkSignal(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw aborted();
}

/** A layer to composite, with its size: sharp refuses a layer larger than the image under it. */
interface Layer extends Box {
  input: Buffer;
}

/** A product drawn as an overlay: white frame and a soft drop shadow, so it reads as pasted on. */
async function overlay(image: Uint8Array, box: Box): Promise<Layer[]> {
  const sharp = await loadSharp();
  const frame = Math.max(2, Math.round(Math.min(box.width, box.height) * 0.02));
  const product = await sharp(image, inputDecoding)
    .rotate()
    .resize(Math.max(1, box.width - 2 * frame), Math.max(1, box.height - 2 * frame), { fit: 'fill' })
    .flatten({ background: '#ffffff' })
    .extend({ top: frame, bottom: frame, left: frame, right: frame, background: '#ffffff' })
    .png()
    .toBuffer();
  const blur = Math.max(2, Math.round(box.width * 0.015));
  const shadow = await sharp({
    create: { width: box.width, height: box.height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.35 } },
  })
    .extend({
      top: 2 * blur,
      bottom: 2 * blur,
      left: 2 * blur,
      right: 2 * blur,
      background: { r: 0, g: 0, b: 0, alpha: 0 },
    })
    .blur(blur)
    .png()
    .toBuffer();
  return [
    // The shadow's rectangle sits `blur` px below and right of the product.
    {
      input: shadow,
      left: box.left - blur,
      top: box.top - blur,
      width: box.width + 4 * blur,
      height: box.height + 4 * blur,
    },
    { input: product, ...box },
  ];
}

/**
 * The part of a layer that lands on the canvas, or null when none does. Layers are cut only
 * when larger than the canvas (a photo a few pixels high or wide); sharp crops the rest itself.
 */
async function onCanvas(layer: Layer, canvas: { width: number; height: number }): Promise<OverlayOptions | null> {
  if (layer.width <= canvas.width && layer.height <= canvas.height)
    return { input: layer.input, left: layer.left, top: layer.top };
  const left = Math.max(0, layer.left);
  const top = Math.max(0, layer.top);
  const width = Math.min(canvas.width, layer.left + layer.width) - left;
  const height = Math.min(canvas.height, layer.top + layer.height) - top;
  if (width <= 0 || height <= 0) return null;
  const sharp = await loadSharp();
  const input = await sharp(layer.input)
    .extract({ left: left - layer.left, top: top - layer.top, width, height })
    .png()
    .toBuffer();
  return { input, left, top };
}

/** The words on every mock render, so nobody takes the placeholder for what a real engine draws. */
export const previewMarkText = 'PREVIEW — mock renderer, not a real render';
/** The band's colour: a warning amber that stands out on a photo. */
export const previewMarkColour = { r: 0xf5, g: 0xb3, b: 0x01 } as const;

/**
 * An opaque amber band across the top of the image with the preview words, sized from the image
 * so it reads at every output size and stays clear of the torso and the floor where products go.
 */
export function previewMarkBand(width: number, height: number): { svg: Buffer; height: number } {
  // The words are about 25 font-sizes wide in DejaVu Sans Bold; dividing by 26 keeps them inside 92 % of the width.
  const fontSize = Math.max(1, Math.min((width * 0.92) / 26, height * 0.045));
  const bandHeight = Math.max(1, Math.min(height, Math.round(fontSize * 1.9)));
  const { r, g, b } = previewMarkColour;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${bandHeight}">
  <rect width="${width}" height="${bandHeight}" fill="rgb(${r},${g},${b})"/>
  <text x="${width / 2}" y="${(bandHeight / 2 + fontSize * 0.36).toFixed(2)}" text-anchor="middle" font-family="DejaVu Sans, Verdana, sans-serif" font-weight="bold" font-size="${fontSize.toFixed(2)}" fill="#1a1a1a">${previewMarkText}</text>
</svg>`;
  return { svg: Buffer.from(svg), height: bandHeight };
}

async function productAspect(image: Uint8Array, index: number, title: string): Promise<number> {
  const sharp = await loadSharp();
  try {
    const { autoOrient } = await sharp(image).metadata();
    return autoOrient.width / autoOrient.height;
  } catch (error) {
    throw new RenderError(
      'render_failed',
      `Product image ${index + 1} ("${title}") could not be decoded: ${(error as Error).message}`,
      false,
    );
  }
}

async function compose(request: RenderRequest): Promise<RenderResult> {
  const sharp = await loadSharp();
  const target = longSideOf[request.imageSize];
  let base: { data: Buffer; info: OutputInfo };
  try {
    // Decoded once to raw pixels; the long side is the contract's size, upscaling included.
    base = await sharp(request.photo, inputDecoding)
      .rotate()
      .resize(target, target, { fit: 'inside' })
      .flatten({ background: '#ffffff' })
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new RenderError('render_failed', `The photo could not be decoded: ${(error as Error).message}`, false);
  }
  checkSignal(request.signal);

  const { width, height, channels } = base.info;
  const aspects = await Promise.all(
    request.products.map((product, index) => productAspect(product.image, index, product.productTitle)),
  );
  const boxes = layoutProducts(
    request.mode,
    { width, height },
    request.products.map((product, index) => ({ aspect: aspects[index]!, dimensions: product.dimensions })),
  );
  let layers: OverlayOptions[];
  try {
    const drawn = await Promise.all(request.products.map((product, index) => overlay(product.image, boxes[index]!)));
    const placed = await Promise.all(drawn.flat().map((layer) => onCanvas(layer, { width, height })));
    layers = placed.filter((layer) => layer !== null);
  } catch (error) {
    throw new RenderError('render_failed', `A product image could not be drawn: ${(error as Error).message}`, false);
  }
  checkSignal(request.signal);

  const mark = previewMarkBand(width, height);
  const image = await sharp(base.data, { raw: { width, height, channels } })
    .composite([...layers, { input: mark.svg, left: 0, top: 0 }])
    .jpeg({ quality: 90 })
    .toBuffer();
  return { image, contentType: 'image/jpeg' };
}

/**
 * A render engine for development and tests: no network, and the same inputs always give the
 * same bytes. It resizes the photo to the requested size and pastes the product images on it
 * (over the torso for try-on, on the floor for rooms), so a pipeline shows real images end to end,
 * and marks every output as a preview (`previewMarkBand`): it is a placeholder, not a render.
 */
export function createMockRenderer({ latencyMs = 0 }: MockRendererOptions = {}): RenderEngine {
  return {
    name: 'mock',
    /**
     * The shopper's photo with the product images pasted on it, framed, shadowed and under a
     * PREVIEW band drawn by software, with no model involved: an edit of the photo (its pixels are
     * still there), into a composite of which some elements are synthetic (IPTC `compositeSynthetic`).
     */
    provenance: { action: 'c2pa.edited', digitalSourceType: 'compositeSynthetic' },
    async render(request) {
      checkSignal(request.signal);
      if (latencyMs > 0) {
        try {
          await sleep(latencyMs, undefined, { signal: request.signal });
        } catch {
          throw aborted();
        }
      }
      return compose(request);
    },
  };
}
