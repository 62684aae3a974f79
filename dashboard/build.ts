import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { staticAsset, type StaticAsset } from '../core/http/app-module-api.ts';

/** The dashboard's two files, named by their content so they are cached for a year. */
export interface DashboardAssets {
  /** File name → asset, e.g. `main.3f9a1c…js`. */
  files: Map<string, StaticAsset>;
  script: string;
  style: string;
}

const appEntry = fileURLToPath(new URL('./app/main.tsx', import.meta.url));

const hashed = (name: string, body: Uint8Array) => {
  const [stem, extension] = name.split('.') as [string, string];
  return `${stem}.${createHash('sha256').update(body).digest('hex').slice(0, 16)}.${extension}`;
};

/**
 * Bundles `app/main.tsx` (Preact with the automatic JSX runtime, uPlot, openapi-fetch) and the CSS
 * it imports (its own and uPlot's) into one script and one style sheet, minified. `banner` (a
 * comment naming the release, say) starts the script.
 */
export async function buildDashboardAssets({ banner }: { banner?: string } = {}): Promise<DashboardAssets> {
  const result = await build({
    entryPoints: [appEntry],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: 'out',
    entryNames: 'main',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    ...(banner ? { banner: { js: banner } } : {}),
  });
  const files = new Map<string, StaticAsset>();
  let script = '';
  let style = '';
  for (const output of result.outputFiles) {
    if (output.path.endsWith('.js')) {
      script = hashed('main.js', output.contents);
      files.set(script, staticAsset(output.contents, 'text/javascript; charset=utf-8'));
    } else if (output.path.endsWith('.css')) {
      style = hashed('main.css', output.contents);
      files.set(style, staticAsset(output.contents, 'text/css; charset=utf-8'));
    }
  }
  if (!script || !style) throw new Error('the dashboard build produced no script or no style sheet');
  return { files, script, style };
}

let assets: Promise<DashboardAssets> | undefined;

/** Built once per process, on first use; a failed build is retried by the next request. */
export function dashboardAssets(): Promise<DashboardAssets> {
  assets ??= buildDashboardAssets().catch((error) => {
    assets = undefined;
    throw error;
  });
  return assets;
}
