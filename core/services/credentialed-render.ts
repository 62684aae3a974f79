import { encodeRender, fileExtension, type EncodedVariant, type OriginalFormat } from '../imaging/variants.ts';
import type { MemoryBudget } from '../imaging/memory-budget.ts';
import { XmpError } from '../imaging/xmp.ts';
import type { Logger } from '../logger.ts';
import type { ContentCredentials, CredentialedFormat, ImageClaim } from '../ports/content-credentials.ts';
import { defaultProvenance, type RenderEngine } from '../ports/render-engine.ts';

export interface CredentialedRender {
  original: { bytes: Uint8Array; format: OriginalFormat };
  variants: EncodedVariant[];
}

/**
 * The Content Credentials or the XMP of a render the engine made could not be added. Another
 * render would meet the same signer, key and layout, so the generation fails rather than paying
 * the engine again.
 */
export class CredentialsFailure extends Error {
  constructor(cause: unknown) {
    super(`content credentials: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * A render's original and variants as they are stored: encoded (see encodeRender) with XMP, and
 * each signed with Content Credentials that state what the engine declares it makes. The original
 * is signed first, while the variants are encoded: every variant's manifest names it, signed, as
 * the parent it was resized from. A signature that fails is asked for once more (an adapter
 * replaces a signer that hung or crashed); failing again, or failing to add XMP, rejects with a
 * CredentialsFailure.
 */
export async function credentialedRender(
  render: Uint8Array,
  {
    credentials,
    engine,
    generationId,
    budget,
    signal,
    logger,
  }: {
    credentials: ContentCredentials;
    engine: Pick<RenderEngine, 'name' | 'provenance'>;
    generationId: string;
    budget: MemoryBudget;
    signal?: AbortSignal;
    logger?: Logger;
  },
): Promise<CredentialedRender> {
  const provenance = engine.provenance ?? defaultProvenance;
  const claim = { ...provenance, engine: engine.name, generationId };
  const title = (format: OriginalFormat) => `original.${fileExtension[format]}`;
  async function sign(image: Uint8Array, format: CredentialedFormat, imageClaim: ImageClaim): Promise<Uint8Array> {
    try {
      return await credentials.sign(image, format, imageClaim);
    } catch (error) {
      if (signal?.aborted) throw error;
      logger?.warn('content credentials: signing failed, signing again', {
        generationId,
        title: imageClaim.title,
        error: String(error),
      });
    }
    try {
      return await credentials.sign(image, format, imageClaim);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new CredentialsFailure(error);
    }
  }
  try {
    // Signed while the variants are encoded.
    const [original, variants] = await encodeRender(
      render,
      provenance.digitalSourceType,
      budget,
      signal,
      async (unsigned) => ({
        bytes: await sign(unsigned.bytes, unsigned.format, { ...claim, title: title(unsigned.format) }),
        format: unsigned.format,
      }),
    );
    const resizedFrom = { bytes: original.bytes, format: original.format, title: title(original.format) };
    const signedVariants = await Promise.all(
      variants.map(async (variant) => ({
        ...variant,
        bytes: Buffer.from(
          await sign(variant.bytes, variant.format, {
            ...claim,
            title: `${variant.name}.${fileExtension[variant.format]}`,
            resizedFrom,
          }),
        ),
      })),
    );
    return { original, variants: signedVariants };
  } catch (error) {
    throw error instanceof XmpError ? new CredentialsFailure(error) : error;
  }
}
