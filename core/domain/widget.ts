import type { GenerationMode, ImageSize } from './generation.ts';

/** An embeddable widget: the keyless browser calls of one store, limited to its origins and a daily cap. */
export interface WidgetRecord {
  id: string;
  organizationId: string;
  storeId: string;
  mode: GenerationMode;
  imageSize: ImageSize;
  /** Origins (`https://shop.example`, `http://localhost:3000`) whose pages may call the keyless widget endpoints. */
  allowedOrigins: string[];
  dailyGenerationCap: number;
  createdAt: number;
}
