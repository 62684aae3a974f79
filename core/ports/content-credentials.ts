/**
 * Content Credentials port: signs a stored image with a manifest that says how it was made (the
 * EU AI Act's Art. 50(2) machine-readable marking). Adapter: `c2pa` (C2PA manifests, signed with
 * the configured certificate or a development one).
 * The guarantees an adapter gives are on `ContentCredentials` (what an editor shows on hover).
 */

/** The IPTC vocabulary the digital source types come from (also what XMP's `Iptc4xmpExt:DigitalSourceType` holds). */
export const digitalSourceTypeBase = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/**
 * The IPTC digital source types an engine may declare (https://cv.iptc.org/newscodes/digitalsourcetype/):
 * - `trainedAlgorithmicMedia`: made by a generative model from its inputs (every pixel is the model's);
 * - `compositeWithTrainedAlgorithmicMedia`: a model's output composited with other media (inpainting, outpainting);
 * - `compositeSynthetic`: a composite of several elements, at least one of them synthetic (drawn by software);
 * - `algorithmicMedia`: made by an algorithm alone, from no sampled training data;
 * - `composite`: a composite of several elements, any of which may or may not be made by generative AI.
 */
export const digitalSourceTypes = [
  'trainedAlgorithmicMedia',
  'compositeWithTrainedAlgorithmicMedia',
  'compositeSynthetic',
  'algorithmicMedia',
  'composite',
] as const;
export type DigitalSourceType = (typeof digitalSourceTypes)[number];

export const digitalSourceTypeUri = (type: DigitalSourceType) => `${digitalSourceTypeBase}${type}`;

/**
 * How an engine makes its images: `c2pa.created`, a new image (the shopper's photo was an input,
 * not kept in it); `c2pa.edited`, the shopper's photo changed (its pixels are still there).
 */
export type ProvenanceAction = 'c2pa.created' | 'c2pa.edited';

export interface EngineProvenance {
  digitalSourceType: DigitalSourceType;
  action: ProvenanceAction;
}

/** The formats images are stored in, all of which carry a manifest. */
export type CredentialedFormat = 'jpeg' | 'png' | 'webp';

export interface ImageClaim extends EngineProvenance {
  /** The render engine's name (`RenderEngine.name`). */
  engine: string;
  generationId: string;
  /** The image's title in the manifest: its file name, say `original.png` or `card.webp`. */
  title: string;
  /** For a variant: the signed original it was resized from, which becomes its parent ingredient. */
  resizedFrom?: { bytes: Uint8Array; format: CredentialedFormat; title: string };
}

export interface CredentialsSigner {
  /** The signing certificate's subject, e.g. `CN=Visualizer development signer, O=Visualizer`. */
  subject: string;
  /** True when signing with the development certificate made on this data directory: verifiers show it as untrusted. */
  development: boolean;
  /** Where the certificate comes from (a file path, or an environment variable's name). */
  source: string;
}

/**
 * Signs stored images with Content Credentials that say how each was made.
 *
 * An adapter must guarantee:
 * - `sign` returns the same image, in the same format, with its pixels untouched (the encoded image
 *   data is kept as it is: only metadata is added), carrying a manifest signed by `signer` whose
 *   hash binds those bytes: one changed byte of the image fails validation.
 * - The manifest states everything in the `ImageClaim`: the digital source type on the action that
 *   made the pixels, that action (`c2pa.created`, or `c2pa.edited` after opening the shopper's
 *   photo, which it names without any of its bytes), the claim generator `Visualizer/<version>`,
 *   the engine and the generation id; a variant's names the signed original as its parent
 *   ingredient and the `c2pa.resized` action.
 * - It keeps nothing of the images it signs, and signing never blocks the event loop for long (a
 *   4K render's hashing takes tens of ms: the `c2pa` adapter does it in a worker thread).
 * - A signature that hangs is failed within a bounded time, and whatever hung or crashed is
 *   replaced before the next signature: the core asks once more for one that failed.
 */
export interface ContentCredentials {
  readonly name: string;
  readonly signer: CredentialsSigner;
  sign(image: Uint8Array, format: CredentialedFormat, claim: ImageClaim): Promise<Uint8Array>;
}
