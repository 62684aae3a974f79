/**
 * The widget UI as a module with no side effects: the script tag's bundle (index.ts) registers it
 * on `window`, and the npm package imports it lazily as a chunk of its own.
 */
import type { ProductData, WidgetContext, WidgetModule } from '../shared/types.ts';
import { widgetApi, type WidgetConfig } from './api.ts';
import { openOverlay, type Overlay } from './overlay.ts';
import { productDataProblem } from './product-data.ts';

/** Widget settings, fetched once per page and widget (a failure is not remembered). */
const configs = new Map<string, Promise<WidgetConfig>>();
let current: Overlay | null = null;

function widgetConfig(context: WidgetContext, widgetId: string): Promise<WidgetConfig> {
  const key = `${context.base} ${widgetId}`;
  let config = configs.get(key);
  if (!config) {
    config = widgetApi(context.base, widgetId).config();
    configs.set(key, config);
    config.catch(() => configs.delete(key));
  }
  return config;
}

export const widget: WidgetModule = {
  async open(context, widgetId, productData) {
    const problem = productDataProblem(widgetId, productData, context.base);
    if (problem) {
      console.error(`[Visualizer] ${problem}`);
      return false;
    }
    const id = widgetId as string;
    const config = await widgetConfig(context, id).catch((error: Error) => error);
    current?.close();
    const overlay = openOverlay(context, widgetApi(context.base, id), config, productData as ProductData, () => {
      if (current === overlay) current = null;
    });
    current = overlay;
    return true;
  },
  close() {
    current?.close();
  },
};
