/**
 * The dashboard's pages and the viewports it is made for: what the browser tests visit, and what
 * `npm run screenshots` photographs for docs/dashboard.md. No imports, so a docs test can read it cheaply.
 */

/** Every page of the signed-in dashboard: its nav link, its hash route and its `<h1>` (for an admin). */
export const dashboardPages = [
  { name: 'overview', link: 'Overview', path: '/overview', heading: 'Overview' },
  { name: 'generations', link: 'Generations', path: '/generations', heading: 'Generations' },
  { name: 'developers', link: 'Developers', path: '/developers', heading: 'Developers' },
  { name: 'stores', link: 'Stores & widgets', path: '/stores', heading: 'Stores & widgets' },
  { name: 'conversions', link: 'Conversions', path: '/conversions', heading: 'Conversions' },
  { name: 'credits', link: 'Credits', path: '/credits', heading: 'Credits' },
  { name: 'team', link: 'Team', path: '/team', heading: 'Team' },
  { name: 'privacy', link: 'Privacy', path: '/privacy', heading: 'Privacy' },
] as const;

/** The viewports the dashboard is made for: a laptop and a phone. */
export const dashboardViewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/** The screenshots in docs/dashboard/: every page above, the overview's charts, the webhook events, a generation's detail and the sign-in page. */
export const screenshotNames = [
  'sign-in',
  ...dashboardPages.map((page) => page.name),
  'overview-charts',
  'developers-events',
  'generation',
] as const;

/** `docs/dashboard/<name>-<width>.png`, relative to docs/. */
export const screenshotFile = (name: string, width: number) => `dashboard/${name}-${width}.png`;
