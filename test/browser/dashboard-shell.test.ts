import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { dashboardCsp } from '../../dashboard/shell.ts';
import { launchChromium, recordPageErrors, recordViolations } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let browser: Browser;
let app: TestApp;
let base: string;

before(async () => {
  browser = await launchChromium(); // first: a missing Chromium fails the suite at once
  app = await startTestApp();
  base = app.container.cradle.config.publicUrl;
});
after(async () => {
  await browser?.close();
  await app?.close();
});

describe('the dashboard shell', () => {
  it('sends /dashboard to /dashboard/, and the page with its CSP and no inline script or style', async () => {
    const bare = await fetch(`${base}/dashboard`, { redirect: 'manual' });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), 'dashboard/');

    const response = await fetch(`${base}/dashboard/`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('content-security-policy'), dashboardCsp(null));
    assert.match(dashboardCsp(null), /(^|; )frame-ancestors 'none'(;|$)/);
    assert.doesNotMatch(dashboardCsp(null), /unsafe-(inline|eval)/);
    const html = await response.text();
    assert.doesNotMatch(html, /<style|\sstyle=|\son\w+=|javascript:/i, 'no inline style or handler');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    assert.match(scripts[0]![1]!, /\ssrc="assets\/main\.[0-9a-f]{16}\.js"/);
    assert.equal(scripts[0]![2], '');

    for (const [, asset] of html.matchAll(/(?:href|src)="(assets\/[\w.]+)"/g)) {
      const file = await fetch(`${base}/dashboard/${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(file.status, 200, asset);
      assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(file.headers.get('content-encoding'), 'gzip');
      await file.arrayBuffer();
    }
    const stale = await fetch(`${base}/dashboard/assets/main.0000000000000000.js`);
    assert.equal(stale.status, 404);
    assert.equal((await stale.json()).error.code, 'route_not_found');
  });

  it('loads under its CSP without console errors or requests to another origin, and shows the sign-in page', async () => {
    const context = await browser.newContext();
    try {
      await context.addInitScript(recordViolations);
      const errors = recordPageErrors(context);
      const origin = new URL(base).origin;
      const elsewhere: string[] = [];
      await context.route(
        (target) => target.protocol !== 'data:' && target.origin !== origin,
        (route) => {
          elsewhere.push(route.request().url());
          return route.abort('blockedbyclient');
        },
      );
      const page = await context.newPage();
      const response = await page.goto(`${base}/dashboard/`);
      assert.equal(response?.status(), 200);
      await page.getByRole('heading', { level: 1, name: 'Sign in to Visualizer' }).waitFor();
      assert.equal(new URL(page.url()).hash, '#/sign-in');
      assert.equal(await page.getByLabel('Email').count(), 1);
      assert.equal(await page.getByLabel('Password').count(), 1);
      assert.equal(await page.getByRole('button', { name: 'Sign in' }).count(), 1);

      // An invitation link without its token says so, rather than failing silently.
      await page.goto(`${base}/dashboard/#/accept-invitation`);
      await page.getByRole('heading', { level: 1, name: 'Set your password' }).waitFor();
      await page.getByRole('alert').waitFor();

      assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
      assert.deepEqual(errors, []);
      assert.deepEqual(elsewhere, [], "no request left the service's origin");
    } finally {
      await context.close();
    }
  });

  it('signs in with a sign-in link, opens every section without console errors, and signs out', async () => {
    const { organization } = await app.tenants.createOrganization({ name: 'Shell test', credits: 5 });
    const { accounts } = app.container.cradle;
    const admin = await accounts.ensureAdmin(organization.id, 'owner@shell.example');
    const link = await accounts.issueSignInLink(organization.id, admin.id);
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    try {
      await context.addInitScript(recordViolations);
      const errors = recordPageErrors(context);
      const page = await context.newPage();
      await page.goto(link.url);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.equal(new URL(page.url()).hash, '#/overview', 'the token left the address bar');
      const sections = {
        Generations: 'Generations',
        Developers: 'Developers',
        'Stores & widgets': 'Stores & widgets',
        Conversions: 'Conversions',
        Credits: 'Credits',
        Team: 'Team',
        Overview: 'Overview',
      };
      for (const [link, heading] of Object.entries(sections)) {
        await page.getByRole('button', { name: 'Menu' }).click(); // 390 px wide: the sections are behind the menu
        await page.getByRole('navigation').getByRole('link', { name: link }).click();
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      }
      await page.getByRole('heading', { name: 'Per day', exact: true }).waitFor();
      await page.locator('.chart canvas').first().waitFor();
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= 390),
        'nothing is wider than the phone',
      );
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to Visualizer' }).waitFor();
      assert.equal((await context.cookies()).length, 0, 'the session cookie is gone');
      assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
