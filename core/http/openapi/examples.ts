import { eventBody, type GenerationRecord, type ImageVariants } from '../../domain/generation.ts';
import { generationImagesPrefix } from '../../domain/blob-keys.ts';
import { variantWidths, type VariantName } from '../../imaging/variants.ts';

/** Examples several operations share. test/openapi-examples.test.ts sends each to the service. */

/** An 8×8 PNG: small, and a photo the service really decodes. */
export const examplePhotoDataUri =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEUlEQVQImWPoWHUGK2IYWhIAwKd/gaPL2LsAAAAASUVORK5CYII=';

const generationId = 'agen_2aXbQ4mR7kP9sT1vW3yZ5cD8';

/** The images of a run, keyed as render-generation.ts publishes them: the generation, a random part per run, the variant. */
const runImages = `${generationImagesPrefix(generationId)}Xb3kP9sT1vW3yZ5cD8aXbQ4mR`;

export const exampleCdnKey = `${runImages}/detail.webp`;

const publicUrl = (key: string) => `https://visualizer.example.com/cdn/${key}`;

const completedAt = Date.UTC(2025, 2, 1, 14, 30, 12);

const exampleGeneration: GenerationRecord = {
  id: generationId,
  organizationId: 'org_7hJkL2mN4pQ6rS8tU0vW2xY4',
  storeId: null,
  apiKeyId: null,
  widgetId: null,
  status: 'complete',
  mode: 'virtual-try-on',
  imageSize: '1K',
  creditsCharged: 1,
  sourceImage: 'https://shop.example/uploads/customer-photo.jpg',
  products: [
    {
      productId: 'sku-1042',
      productTitle: 'Linen shirt, sky blue',
      imageUrl: 'https://shop.example/images/sku-1042.jpg',
    },
  ],
  hint: null,
  metadata: { orderId: '1234' },
  imageUrl: publicUrl(`${runImages}/original.png`),
  imageVariants: Object.fromEntries(
    (Object.keys(variantWidths) as VariantName[]).map((name) => [
      name,
      { url: publicUrl(`${runImages}/${name}.jpg`), width: variantWidths[name] },
    ]),
  ) as unknown as ImageVariants,
  errorCode: null,
  errorMessage: null,
  visitorId: null,
  sessionId: null,
  createdAt: completedAt - 12_000,
  completedAt,
};

/** One message of the event stream, exactly as the service writes it. */
export const exampleEventStreamMessage = (() => {
  const event = { id: 'evt_2aXbQ4mR7kP9sT1vW3yZ5cD8', type: 'generation.completed' as const, createdAt: completedAt };
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${eventBody(event, exampleGeneration)}\n\n`;
})();
