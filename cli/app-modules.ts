import type { AppModule } from '../core/http/app-module.ts';
import { dashboardModule } from '../dashboard/module.ts';
import { demoShopModule } from '../demo/module.ts';
import { sdkBundlesModule } from '../sdk/serve-bundles.ts';

/** What `visualizer serve` serves beside the API: the browser SDK's bundles, the dashboard, and the demo shop where it is on. */
export const appModules: readonly AppModule[] = [sdkBundlesModule, dashboardModule, demoShopModule];
