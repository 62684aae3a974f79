/**
 * Render engine port: turns one customer photo and 1–3 product images into a visualization.
 * Adapters: `mock` (deterministic, no network) and `gemini` (Google's image API).
 *
 * An adapter must guarantee:
 * - It returns encoded image bytes whose long side matches the requested size
 *   (1K = 1024, 2K = 2048, 4K = 4096 px) or as close as the engine allows.
 * - It throws `RenderError` with `transient: true` only for failures worth retrying
 *   (timeouts, 429, 5xx), and `transient: false` for final ones (content blocked, no image).
 * - It has no side effects beyond its own network calls: the core stores the result.
 *
 * The core hands it images whose every pixel has decoded and whose long side is at most the
 * output's; any that needed changing for that arrive upright, as JPEG or PNG. The core reserves
 * memory for one output-size decode and encode from the process's image budget around each call.
 */
import type { GenerationMode, ImageSize } from '../domain/generation.ts';

export type Mode = GenerationMode;
export type { ImageSize };

export interface ProductDimensions {
  width?: number;
  height?: number;
  depth?: number;
  unit: 'cm' | 'in';
}

export interface RenderProduct {
  productId: string | number;
  productTitle: string;
  image: Uint8Array;
  dimensions: ProductDimensions | null;
}

export interface RenderRequest {
  mode: Mode;
  imageSize: ImageSize;
  photo: Uint8Array;
  products: RenderProduct[];
  hint: string | null;
  signal?: AbortSignal;
}

export interface RenderResult {
  image: Uint8Array;
  contentType: string;
}

export class RenderError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

export interface RenderEngine {
  readonly name: string;
  render(request: RenderRequest): Promise<RenderResult>;
}
