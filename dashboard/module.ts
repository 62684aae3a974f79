import type { H3, H3Event } from 'h3';
import {
  answersTrailingSlash,
  services,
  sessionToken,
  prebuiltBundles,
  serveStaticAsset,
  ApiError,
  type AppModule,
} from '../core/http/app-module-api.ts';
import { developmentAdminEmail } from '../cli/development-sign-in.ts';
import { dashboardAssets, type DashboardAssets } from './build.ts';
import { dashboardCsp, shellHtml } from './shell.ts';
import { renderEngineRoute } from './render-engine-route.ts';

/**
 * The files `npm run build` wrote (the shell names the current build's; the previous build's are
 * served too, for a page loaded before a rolling deploy), or without a build, built here on first use.
 */
async function servedAssets(bundlesDir: string | undefined, options?: { reread: boolean }): Promise<DashboardAssets> {
  const prebuilt = await prebuiltBundles(bundlesDir, options);
  if (!prebuilt) return dashboardAssets();
  const { 'dashboard.script': script, 'dashboard.style': style } = prebuilt.current;
  if (!script || !style)
    throw new Error(
      `the bundle manifest in ${bundlesDir ?? 'build/bundles'} names no dashboard script or style sheet: run 'npm run build' again`,
    );
  const files = new Map(
    [...prebuilt.named('dashboard.script'), ...prebuilt.named('dashboard.style')].map((file) => [
      file,
      prebuilt.files.get(file)!,
    ]),
  );
  return { files, script, style };
}

async function loadAssets(event: H3Event, options?: { reread: boolean }): Promise<DashboardAssets> {
  try {
    return await servedAssets(services(event).config.bundlesDir, options);
  } catch (error) {
    services(event).logger.error('building the dashboard failed', {
      error: error instanceof Error ? error.message : String(error),
    });
    throw new ApiError('api_error', 'internal_error', 'The dashboard could not be built.');
  }
}

/** The origin images come from when the CDN is not the service itself, for `img-src`. */
function imageOrigin(event: H3Event): string | null {
  const cradle = services(event);
  try {
    const cdn = new URL(cradle.cdn.publicUrl('probe'), cradle.config.publicUrl).origin;
    return cdn === new URL(cradle.config.publicUrl).origin ? null : cdn;
  } catch {
    return null;
  }
}

/**
 * `/dashboard/` (the shell: one script, one style sheet, relative URLs so a path prefix is kept)
 * and `/dashboard/assets/{name}.{hash}.js|css`, built ahead (or on first request) and cached for a
 * year; and the generation page's engine (see renderEngineRoute).
 */
function dashboardRoutes(app: H3) {
  renderEngineRoute(app);
  app.get(
    '/dashboard',
    (event) => {
      // The router answers `/dashboard/` here too. The page lives at `/dashboard/` (its relative URLs
      // resolve under it): the bare path is sent there, relatively, so a path prefix is kept.
      if (event.url.pathname.endsWith('/')) return shell(event);
      return new Response(null, { status: 301, headers: { location: 'dashboard/' } });
    },
    answersTrailingSlash,
  );

  app.get('/dashboard/assets/:file', async (event) => {
    const name = event.url.pathname.split('/').pop() ?? '';
    // A file this process does not know may come from a build newer than its manifest.
    const file =
      (await loadAssets(event)).files.get(name) ?? (await loadAssets(event, { reread: true })).files.get(name);
    if (!file)
      throw new ApiError('not_found_error', 'route_not_found', `No route ${event.req.method} ${event.url.pathname}.`);
    return serveStaticAsset(event, file, { cacheControl: 'public, max-age=31536000, immutable' });
  });
}

async function shell(event: H3Event): Promise<Response> {
  const assets = await loadAssets(event);
  return new Response(shellHtml(assets, sessionToken(event) !== undefined), {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      vary: 'Cookie',
      'content-security-policy': dashboardCsp(imageOrigin(event)),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    },
  });
}

/** The dashboard for shops' teams: a client of the `/v1` API, signed in with a session cookie. */
export const dashboardModule: AppModule = {
  name: 'dashboard',
  routes: dashboardRoutes,
  banner: async (config, { persistence }) => {
    // The development organization's id makes the command runnable as printed; elsewhere, say where ids are.
    const developer = await persistence.users.findByEmail(developmentAdminEmail);
    const org = developer?.organizationId ?? 'ORG_ID';
    const ids = developer ? '' : ' (organization ids: npx visualizer orgs list)';
    return [
      `Dashboard: ${config.publicUrl.replace(/\/+$/, '')}/dashboard/ (for shops' teams). To invite someone: npx visualizer users invite --org ${org} --email you@example.com --role admin${ids}`,
    ];
  },
};
