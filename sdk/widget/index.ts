/**
 * The widget UI (`widget.<hash>.js`), loaded by the embed loader on `open` or `preload`. It
 * registers itself as `window.__visualizerWidget`; the loader calls `open(context, widgetId, productData)`.
 */
import type { WidgetModule } from '../shared/types.ts';
import { widget } from './widget-module.ts';

(window as unknown as { __visualizerWidget?: WidgetModule }).__visualizerWidget = widget;
