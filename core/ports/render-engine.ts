/**
 * Render engine port: turns one customer photo and 1–3 product images into a visualization.
 * Adapters (plugins/renderer-*): `mock` (deterministic, no network), `gemini` (Google's image API),
 * `fashn` (FASHN's try-on API), `fal` (fal.ai's queue API) and `replicate` (Replicate's predictions API).
 * The guarantees an adapter gives are on `RenderEngine` (what an editor shows on hover).
 */
import type { GenerationMode, ImageSize } from '../domain/generation.ts';
import type { EngineProvenance } from './content-credentials.ts';

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

/** One render, as the core asks for it. */
export interface RenderRequest {
  mode: Mode;
  imageSize: ImageSize;
  photo: Uint8Array;
  products: RenderProduct[];
  hint: string | null;
  /** Aborts when the service's render timeout passes or the worker stops (see RenderEngine). */
  signal?: AbortSignal;
}

/** The render: encoded bytes (JPEG, PNG or WebP; the bytes decide, not `contentType`). */
export interface RenderResult {
  image: Uint8Array;
  contentType: string;
}

/** What one render error code means, and how the core treats it. */
export interface RenderErrorCodeMeaning {
  /** What happened, as docs/api.md tells shops. */
  meaning: string;
  /**
   * Worth another attempt: the render moves to the next engine configured for the mode (no new
   * charge, no retry spent), or when none is left is retried after a delay. A final one fails the
   * generation at once, on any engine.
   */
  transient: boolean;
  /** The adapter's message is shown to shops (`error.message`); otherwise `publicMessage` is, and the adapter's goes to the log. */
  showsMessage: boolean;
  /** What shops read when the adapter's message is not shown. */
  publicMessage: string;
}

/**
 * The codes a render engine fails with: the codes a failed generation's `error` carries when its
 * engine failed. Any other code an adapter throws becomes `render_failed`, with its message kept
 * out of the answer.
 */
export const renderErrorCodes = {
  content_blocked: {
    meaning: "The engine's moderation or safety rules refused the content; the engine's reason is shown.",
    transient: false,
    showsMessage: true,
    publicMessage: 'The engine refused to render this content.',
  },
  photo_unusable: {
    meaning:
      "The engine cannot use the photo for this mode (no person found, a pose it does not take); the engine's reason is shown.",
    transient: false,
    showsMessage: true,
    publicMessage: 'The photo cannot be used for this visualization.',
  },
  render_failed: {
    meaning: 'The engine produced no image, or refused the request as invalid; details stay in the server log.',
    transient: false,
    showsMessage: false,
    publicMessage: 'The visualization could not be rendered from these images.',
  },
  render_timeout: {
    meaning: 'The engine did not answer within its timeout, or the render was aborted (the one code an abort has).',
    transient: true,
    showsMessage: false,
    publicMessage: 'Rendering took too long and was stopped.',
  },
  renderer_unavailable: {
    meaning:
      "The engine was unavailable: 408, 429 or 5xx, unreachable, an answer not in its documented shape, or refusing this service's own account (the operator's to fix).",
    transient: true,
    showsMessage: false,
    publicMessage: 'The rendering service was unavailable; please try again later.',
  },
} as const satisfies Record<string, RenderErrorCodeMeaning>;

export type RenderErrorCode = keyof typeof renderErrorCodes;

export const isRenderErrorCode = (code: string): code is RenderErrorCode => Object.hasOwn(renderErrorCodes, code);

/** How an engine fails: a code of the vocabulary (`renderErrorCodes`) and a message for the log, or for shops where the code shows it. */
export class RenderError extends Error {
  /** Retried or moved to the next engine when true; by default what the code's entry says. */
  readonly transient: boolean;
  /** How long the vendor asked to wait (`Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly code: RenderErrorCode,
    message: string,
    transient?: boolean,
    options: { retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RenderError';
    this.transient = transient ?? renderErrorCodes[code]?.transient ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Modes and sizes an engine renders; unset: all. */
export interface EngineSupport {
  modes?: readonly Mode[];
  sizes?: readonly ImageSize[];
}

/**
 * A render engine: one photo and 1–3 product images in, one visualization out.
 *
 * An adapter must guarantee:
 * - It returns encoded image bytes whose long side matches the requested size
 *   (1K = 1024, 2K = 2048, 4K = 4096 px) or as close as the engine allows.
 * - It fails only with a `RenderError` whose code is one of `renderErrorCodes` (see there for
 *   what each means, whether it is retried or moves the render to the next engine, and whether
 *   its message reaches shops). As a vendor's failures map to them: 408, 429, 5xx, a network
 *   failure, a body that is not what the vendor documents, or the vendor refusing this service's
 *   own account → `renderer_unavailable` (with `retryAfterMs` when the vendor said `Retry-After`);
 *   no answer within the engine's own timeout → `render_timeout`; a moderation or safety refusal →
 *   `content_blocked`; a photo the engine cannot use (no person found, say) → `photo_unusable`;
 *   anything else final (no image, the request refused as invalid) → `render_failed`.
 * - When `request.signal` aborts (the service's render timeout, or a worker stopping), it stops
 *   its work and rejects soon after with `RenderError('render_timeout', …)`, the one code an
 *   abort has; the core decides from there (a stopping worker's render is run again later).
 * - It renders every mode and size in `supports` (all, when unset); the core never asks it for
 *   others, and routes them to the next engine configured for the mode.
 * - It has no side effects beyond its own network calls: the core stores the result. Images a
 *   vendor returns by URL are fetched through the plugin context's guarded `outbound` client.
 *
 * The core hands it images whose every pixel has decoded and whose long side is at most the
 * output's; any that needed changing for that arrive upright, as JPEG or PNG. The core reserves
 * memory for one output-size decode and encode from the process's image budget around each call.
 *
 * An engine declares what kind of image it makes (`provenance`): every stored image's Content
 * Credentials and XMP state it. One that declares nothing is taken to generate its images with a
 * trained model (`c2pa.created`, `trainedAlgorithmicMedia`), the marking an AI visualization needs.
 */
export interface RenderEngine {
  /** Names the engine in logs, metrics, the generation's record and the routing config. */
  readonly name: string;
  /** How its images are made, as Content Credentials state it; `defaultProvenance` when unset. */
  readonly provenance?: EngineProvenance;
  /** What it renders; every mode and size when unset. */
  readonly supports?: EngineSupport;
  render(request: RenderRequest): Promise<RenderResult>;
}

/** What an engine that declares no `provenance` is taken to make: images generated by a trained model. */
export const defaultProvenance: EngineProvenance = {
  action: 'c2pa.created',
  digitalSourceType: 'trainedAlgorithmicMedia',
};
