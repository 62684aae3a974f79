import { generationImagesPrefix } from '../../domain/blob-keys.ts';
import type { GenerationRecord } from '../../domain/generation.ts';
import type { ImageCdn } from '../../ports/image-cdn.ts';

/** The bytes of a complete generation's `list` variant (200 px wide), as an MCP tool returns them inline. */
export interface ListImage {
  data: string;
  mimeType: string;
}

/**
 * Reads the `list` variant from image storage rather than over HTTP, so it works whatever the CDN
 * in front. The stored key is found from the URL the render recorded: the part from the
 * generation's own folder on, accepted only if the CDN gives that key the very same URL. Null when
 * there is no image or it cannot be read (an assistant still gets the URL).
 */
export async function readListImage(cdn: ImageCdn, generation: GenerationRecord): Promise<ListImage | null> {
  const url = generation.status === 'complete' ? generation.imageVariants?.list.url : undefined;
  if (!url) return null;
  const at = url.lastIndexOf(`/${generationImagesPrefix(generation.id)}`);
  if (at < 0) return null;
  const key = url.slice(at + 1);
  try {
    if (cdn.publicUrl(key) !== url) return null;
    const object = await cdn.get(key, 'public');
    return object ? { data: Buffer.from(object.body).toString('base64'), mimeType: object.contentType } : null;
  } catch {
    return null;
  }
}
