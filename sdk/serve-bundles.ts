import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import type { H3, H3Event } from 'h3';
import {
  services,
  prebuiltBundles,
  serveStaticAsset,
  staticAsset,
  ApiError,
  type AppModule,
  type StaticAsset,
} from '../core/http/app-module-api.ts';

export interface SdkAssets {
  loader: StaticAsset;
  widget: StaticAsset;
  /** Where the loader fetches the widget from, e.g. `/widgets/widget.3f9a….js`. */
  widgetPath: string;
}

const sdkRoot = fileURLToPath(new URL('./', import.meta.url));

const asset = (body: Uint8Array) => staticAsset(body, 'text/javascript; charset=utf-8');

/**
 * Bundles the browser SDK from `sdk/` with esbuild: the widget UI first (its content hash names
 * its file, so it is cached for a year), then the loader with the widget's path compiled in.
 * `banner` (a comment naming the release, say) starts both files.
 */
export async function buildSdkAssets({ banner }: { banner?: string } = {}): Promise<SdkAssets> {
  const common: BuildOptions = {
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2019',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    ...(banner ? { banner: { js: banner } } : {}),
  };
  const widgetBuild = await build({ ...common, entryPoints: [`${sdkRoot}widget/index.ts`] });
  const widget = asset(widgetBuild.outputFiles![0]!.contents);
  const hash = createHash('sha256').update(widget.body).digest('hex').slice(0, 16);
  const widgetPath = `/widgets/widget.${hash}.js`;
  const loaderBuild = await build({
    ...common,
    entryPoints: [`${sdkRoot}loader/index.ts`],
    define: { __WIDGET_PATH__: JSON.stringify(widgetPath) },
  });
  return { loader: asset(loaderBuild.outputFiles![0]!.contents), widget, widgetPath };
}

let assets: Promise<SdkAssets> | undefined;

/** Built once per process, on first use; a failed build is retried by the next request. */
export function sdkAssets(): Promise<SdkAssets> {
  assets ??= buildSdkAssets().catch((error) => {
    assets = undefined;
    throw error;
  });
  return assets;
}

function serve(event: H3Event, file: StaticAsset, cacheControl: string): Response {
  return serveStaticAsset(event, file, { cacheControl, headers: { 'access-control-allow-origin': '*' } });
}

/** What a process serves: the current loader, and every widget a loader it may have served names. */
interface ServedSdk {
  loader: StaticAsset;
  /** File name (`widget.{hash}.js`) → bundle. */
  widgets: Map<string, StaticAsset>;
}

/**
 * The bundles `npm run build` wrote (the current build's loader; the widgets of the current and
 * the previous build), or without a build, the SDK built in this process on first use.
 */
async function servedSdk(bundlesDir: string | undefined, options?: { reread: boolean }): Promise<ServedSdk> {
  const prebuilt = await prebuiltBundles(bundlesDir, options);
  if (!prebuilt) {
    const { loader, widget, widgetPath } = await sdkAssets();
    return { loader, widgets: new Map([[widgetPath.slice('/widgets/'.length), widget]]) };
  }
  const loader = prebuilt.files.get(prebuilt.current['sdk.loader'] ?? '');
  if (!loader)
    throw new Error(
      `the bundle manifest in ${bundlesDir ?? 'build/bundles'} names no SDK loader: run 'npm run build' again`,
    );
  return { loader, widgets: new Map(prebuilt.named('sdk.widget').map((file) => [file, prebuilt.files.get(file)!])) };
}

async function loadAssets(event: H3Event, options?: { reread: boolean }): Promise<ServedSdk> {
  try {
    return await servedSdk(services(event).config.bundlesDir, options);
  } catch (error) {
    services(event).logger.error('building the browser SDK failed', {
      error: error instanceof Error ? error.message : String(error),
    });
    throw new ApiError('api_error', 'internal_error', 'The browser SDK could not be built.');
  }
}

/**
 * The browser SDK: `/widgets/embed.js` (the loader every shop page includes; cached 5 minutes, so
 * a new release reaches pages quickly, and revalidated by ETag) and `/widgets/widget.{hash}.js`
 * (the UI, named by its content, cached for a year; the previous build's too, see prebuilt-bundles.ts).
 */
function bundleRoutes(app: H3) {
  app.get('/widgets/embed.js', async (event) => serve(event, (await loadAssets(event)).loader, 'public, max-age=300'));

  app.get('/widgets/:file', async (event) => {
    const file = event.url.pathname.slice('/widgets/'.length);
    // A widget this process does not know may come from a build newer than its manifest.
    const widget =
      (await loadAssets(event)).widgets.get(file) ?? (await loadAssets(event, { reread: true })).widgets.get(file);
    if (!widget) {
      throw new ApiError('not_found_error', 'route_not_found', `No route ${event.req.method} ${event.url.pathname}.`);
    }
    return serve(event, widget, 'public, max-age=31536000, immutable');
  });
}

/** The browser SDK's bundles as an application module; they are built on the first request. */
export const sdkBundlesModule: AppModule = {
  name: 'browser SDK',
  routes: bundleRoutes,
};
