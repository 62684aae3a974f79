import type { DashboardAssets } from './build.ts';

/**
 * Only this origin, for everything; images also from the CDN when it is elsewhere. Preact and
 * uPlot set styles through the CSSOM, which `style-src` does not govern, so no 'unsafe-inline'.
 */
export function dashboardCsp(imageOrigin: string | null = null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${imageOrigin ? ` ${imageOrigin}` : ''}`,
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The page: no inline script or style; asset URLs are relative to `{base}/dashboard/`.
 * `hasSessionCookie` tells the app whether asking `GET /v1/session` is worth it: without the
 * (HttpOnly) cookie the answer is a 401, which the browser would log as a console error.
 */
export function shellHtml(assets: Pick<DashboardAssets, 'script' | 'style'>, hasSessionCookie = false): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Visualizer dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/${assets.style}">
<script type="module" src="assets/${assets.script}"></script>
</head>
<body data-session-cookie="${hasSessionCookie ? 'yes' : 'no'}">
<div id="app"><noscript>The dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
}
