import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { digitalSourceTypeUri, type ContentCredentials, type CredentialedFormat, type ImageClaim } from '../plugin.ts';

export interface ContentCredentialsContractOptions<Adapter extends ContentCredentials = ContentCredentials> {
  name: string;
  create(): Adapter | Promise<Adapter>;
  dispose?(adapter: Adapter): void | Promise<void>;
  /** The adapter signs with a certificate the reader trusts; otherwise the one failure allowed is `signingCredential.untrusted`. */
  trusted?: boolean;
}

type C2paWasm = typeof import('@contentauth/c2pa-wasm');
let loading: Promise<C2paWasm> | undefined;

/** c2pa-wasm's own Reader, compiled once per process on first use (this process's, not an adapter's thread). */
function c2pa(): Promise<C2paWasm> {
  loading ??= import('@contentauth/c2pa-wasm').then((module) => {
    module.initSync({ module: readFileSync(fileURLToPath(import.meta.resolve('@contentauth/c2pa-wasm/c2pa.wasm'))) });
    return module;
  });
  return loading;
}

interface StatusEntry {
  code: string;
  url?: string;
  explanation?: string;
}

/** What a C2PA reader makes of an image's manifest, as c2pa-rs reports it. */
export interface ReadCredentials {
  /** `Invalid`, `Valid` (every check passed but, perhaps, trust in the signer) or `Trusted`. */
  state: string;
  /** The active manifest's validation results. */
  success: string[];
  failures: string[];
  /** Failures found in ingredients' manifests. */
  ingredientFailures: string[];
  /** The active manifest, as c2pa-rs's JSON shows it (`claim_generator_info`, `assertions`, `ingredients` …). */
  manifest: ActiveManifest;
}

export interface ActiveManifest {
  claim_generator_info: Array<{ name: string; version?: string }>;
  title?: string;
  format?: string;
  assertions: Array<{ label: string; data: any }>;
  ingredients?: Array<Record<string, any>>;
  signature_info?: { issuer?: string; common_name?: string; alg?: string };
}

/** Reads `bytes` (of media type `image/…`) with c2pa-wasm's Reader; throws when it finds no manifest. */
export async function readContentCredentials(bytes: Uint8Array, mediaType: string): Promise<ReadCredentials> {
  const { WasmReader } = await c2pa();
  const reader = await WasmReader.fromBytes(mediaType, bytes);
  try {
    const store = reader.manifestStore() as {
      validation_state: string;
      validation_results?: {
        activeManifest?: { success?: StatusEntry[]; failure?: StatusEntry[] };
        ingredientDeltas?: Array<{ validationDeltas?: { failure?: StatusEntry[] } }>;
      };
    };
    const codes = (entries: StatusEntry[] | undefined) => (entries ?? []).map((entry) => entry.code);
    return {
      state: store.validation_state,
      success: codes(store.validation_results?.activeManifest?.success),
      failures: codes(store.validation_results?.activeManifest?.failure),
      ingredientFailures: (store.validation_results?.ingredientDeltas ?? []).flatMap((delta) =>
        codes(delta.validationDeltas?.failure),
      ),
      manifest: reader.activeManifest() as ActiveManifest,
    };
  } finally {
    reader.free();
  }
}

/** The actions of a manifest's `c2pa.actions.v2` assertion. */
export function manifestActions(manifest: ActiveManifest): Array<{
  action: string;
  digitalSourceType?: string;
  softwareAgent?: { name?: string };
  parameters?: Record<string, any>;
}> {
  return manifest.assertions.find((assertion) => assertion.label === 'c2pa.actions.v2')?.data.actions ?? [];
}

/**
 * `bytes` with one byte of the encoded image itself changed (not of its metadata): in the middle
 * of the last JPEG scan, of the last PNG IDAT chunk, of the WebP bitstream.
 */
export function withOneImageByteChanged(bytes: Uint8Array, format: CredentialedFormat): Uint8Array {
  const copy = Buffer.from(bytes);
  let at: number;
  if (format === 'jpeg') {
    at = copy.length - 16; // the scan runs to the end-of-image marker
  } else if (format === 'png') {
    const idat = copy.lastIndexOf('IDAT', undefined, 'latin1');
    at = idat + 4 + Math.floor(copy.readUInt32BE(idat - 4) / 2);
  } else {
    const chunk = Math.max(copy.indexOf('VP8 ', 12, 'latin1'), copy.indexOf('VP8L', 12, 'latin1'));
    at = chunk + 8 + Math.floor(copy.readUInt32LE(chunk + 4) / 2);
  }
  copy[at] = copy[at]! ^ 0x55;
  return copy;
}

const mediaType = (format: CredentialedFormat) => `image/${format}`;
const formats: CredentialedFormat[] = ['jpeg', 'png', 'webp'];

/**
 * The Content Credentials port's contract: every image it signs keeps its pixels, carries a
 * manifest an independent reader validates and whose hash binds the image, and states the claim.
 */
export function contentCredentialsContract<Adapter extends ContentCredentials>(
  options: ContentCredentialsContractOptions<Adapter>,
) {
  describe(`content credentials contract: ${options.name}`, () => {
    let adapter: Adapter;
    const images = new Map<CredentialedFormat, Buffer>();
    const created: Omit<ImageClaim, 'title'> = {
      action: 'c2pa.created',
      digitalSourceType: 'trainedAlgorithmicMedia',
      engine: 'contract-engine',
      generationId: 'gen_contract1',
    };
    const allowed = options.trusted ? [] : ['signingCredential.untrusted'];

    before(async () => {
      adapter = await options.create();
      for (const format of formats) {
        const svg = Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="#2a6"/><circle cx="160" cy="120" r="70" fill="#fd3"/></svg>',
        );
        images.set(format, await sharp(svg)[format]().toBuffer());
      }
    });
    after(async () => options.dispose?.(adapter));

    async function assertValid(signed: Uint8Array, format: CredentialedFormat) {
      const read = await readContentCredentials(signed, mediaType(format));
      assert.deepEqual(
        read.failures.filter((code) => !allowed.includes(code)),
        [],
        `no failure but ${allowed.join(', ') || 'none'}`,
      );
      assert.deepEqual(
        read.ingredientFailures.filter((code) => !allowed.includes(code)),
        [],
      );
      assert.equal(read.state, options.trusted ? 'Trusted' : 'Valid');
      assert.ok(read.success.includes('claimSignature.validated'), 'the signature validates');
      assert.ok(read.success.includes('assertion.dataHash.match'), 'the hash binds the image');
      return read;
    }

    it('names who signs', () => {
      assert.ok(adapter.signer.subject.length > 0);
      assert.equal(typeof adapter.signer.development, 'boolean');
    });

    for (const format of formats) {
      it(`signs a ${format.toUpperCase()} that keeps its pixels, with a manifest stating what made it`, async () => {
        const image = images.get(format)!;
        const signed = await adapter.sign(image, format, { ...created, title: `original.${format}` });
        const [before, after] = await Promise.all([sharp(image).raw().toBuffer(), sharp(signed).raw().toBuffer()]);
        assert.ok(before.equals(after), 'the same pixels');
        assert.equal((await sharp(signed).metadata()).format, format);
        const { manifest } = await assertValid(signed, format);
        assert.equal(manifest.claim_generator_info[0]?.name, 'Visualizer');
        assert.match(manifest.claim_generator_info[0]?.version ?? '', /^\d+\.\d+\.\d+/);
        assert.equal(manifest.title, `original.${format}`);
        const [first, ...rest] = manifestActions(manifest);
        assert.equal(first?.action, 'c2pa.created');
        assert.equal(first?.digitalSourceType, digitalSourceTypeUri('trainedAlgorithmicMedia'));
        assert.equal(first?.softwareAgent?.name, 'contract-engine');
        assert.equal(first?.parameters?.generationId, 'gen_contract1');
        assert.equal(first?.parameters?.engine, 'contract-engine');
        assert.deepEqual(rest, []);
      });

      it(`fails validation of a ${format.toUpperCase()} whose image data has one changed byte`, async () => {
        const signed = await adapter.sign(images.get(format)!, format, { ...created, title: `original.${format}` });
        const read = await readContentCredentials(withOneImageByteChanged(signed, format), mediaType(format));
        assert.equal(read.state, 'Invalid');
        assert.ok(read.failures.includes('assertion.dataHash.mismatch'), read.failures.join(', '));
      });
    }

    it("states an edit of the shopper's photo, naming the photo without any of its bytes", async () => {
      const signed = await adapter.sign(images.get('jpeg')!, 'jpeg', {
        ...created,
        action: 'c2pa.edited',
        digitalSourceType: 'compositeSynthetic',
        title: 'original.jpg',
      });
      const { manifest } = await assertValid(signed, 'jpeg');
      const actions = manifestActions(manifest);
      assert.deepEqual(
        actions.map((action) => action.action),
        ['c2pa.opened', 'c2pa.edited'],
      );
      assert.equal(actions[1]?.digitalSourceType, digitalSourceTypeUri('compositeSynthetic'));
      assert.equal(actions[1]?.parameters?.generationId, 'gen_contract1');
      const [photo, ...others] = manifest.ingredients ?? [];
      assert.deepEqual(others, []);
      assert.equal(photo?.relationship, 'parentOf');
      for (const field of [
        'thumbnail',
        'hash',
        'data',
        'active_manifest',
        'manifest_data',
        'instance_id',
        'document_id',
      ])
        assert.equal(photo?.[field], undefined, `the photo's ${field}`);
    });

    for (const format of formats) {
      it(`signs a ${format.toUpperCase()} variant that names its signed original as the parent it was resized from`, async () => {
        const original = await adapter.sign(images.get('png')!, 'png', { ...created, title: 'original.png' });
        const variant = await sharp(images.get(format)!).resize(100)[format]().toBuffer();
        const signed = await adapter.sign(variant, format, {
          ...created,
          title: `list.${format}`,
          resizedFrom: { bytes: original, format: 'png', title: 'original.png' },
        });
        const { manifest } = await assertValid(signed, format);
        const actions = manifestActions(manifest);
        assert.deepEqual(
          actions.map((action) => action.action),
          ['c2pa.opened', 'c2pa.resized'],
        );
        assert.equal(actions[0]?.digitalSourceType, digitalSourceTypeUri('trainedAlgorithmicMedia'));
        assert.equal(actions[0]?.parameters?.generationId, 'gen_contract1');
        assert.equal(actions[0]?.parameters?.engine, 'contract-engine');
        const [parent, ...others] = manifest.ingredients ?? [];
        assert.deepEqual(others, []);
        assert.equal(parent?.relationship, 'parentOf');
        assert.equal(parent?.title, 'original.png');
        const originalLabel = manifest.ingredients?.[0]?.active_manifest;
        assert.ok(originalLabel, "the original's manifest comes along");
        assert.equal(
          parent?.validation_results?.activeManifest?.failure?.filter(
            (entry: StatusEntry) => !allowed.includes(entry.code),
          ).length,
          0,
        );
      });
    }
  });
}
