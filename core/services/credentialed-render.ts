import { encodeRender, fileExtension, type EncodedVariant, type OriginalFormat } from '../imaging/variants.ts';
import type { MemoryBudget } from '../imaging/memory-budget.ts';
import type { ContentCredentials } from '../ports/content-credentials.ts';
import { defaultProvenance, type RenderEngine } from '../ports/render-engine.ts';

export interface CredentialedRender {
  original: { bytes: Uint8Array; format: OriginalFormat };
  variants: EncodedVariant[];
}

/**
 * A render's original and variants as they are stored: encoded (see encodeRender) with XMP, and
 * each signed with Content Credentials that state what the engine declares it makes. The original
 * is signed first, while the variants are encoded: every variant's manifest names it, signed, as
 * the parent it was resized from.
 */
export async function credentialedRender(
  render: Uint8Array,
  { credentials, engine, generationId, budget, signal }: { credentials: ContentCredentials; engine: Pick<RenderEngine, 'name' | 'provenance'>; generationId: string; budget: MemoryBudget; signal?: AbortSignal },
): Promise<CredentialedRender> {
  const provenance = engine.provenance ?? defaultProvenance;
  const claim = { ...provenance, engine: engine.name, generationId };
  const title = (format: OriginalFormat) => `original.${fileExtension[format]}`;
  // Signed while the variants are encoded.
  const [original, variants] = await encodeRender(render, provenance.digitalSourceType, budget, signal, async (unsigned) => ({
    bytes: await credentials.sign(unsigned.bytes, unsigned.format, { ...claim, title: title(unsigned.format) }),
    format: unsigned.format,
  }));
  const resizedFrom = { bytes: original.bytes, format: original.format, title: title(original.format) };
  const signedVariants = await Promise.all(
    variants.map(async (variant) => ({
      ...variant,
      bytes: Buffer.from(await credentials.sign(variant.bytes, variant.format, { ...claim, title: `${variant.name}.${fileExtension[variant.format]}`, resizedFrom })),
    })),
  );
  return { original, variants: signedVariants };
}
