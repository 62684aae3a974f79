import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.ts';
import { launchChromium } from '../support/browser.ts';

let app: TestApp;
let browser: Browser;

before(async () => {
  app = await startTestApp();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await app?.close();
});

describe('demo shop on a phone (390 px wide)', () => {
  for (const pathname of ['/demo', '/demo/product?id=tee-classic', '/demo/checkout']) {
    it(`${pathname}: the cart button reads on one line and the header fits the screen`, async () => {
      const page = await browser.newPage({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 3,
        isMobile: true,
        hasTouch: true,
      });
      try {
        await page.goto(`${app.container.cradle.config.publicUrl}${pathname}`);
        const layout = await page.evaluate(() => {
          const button = document.getElementById('cart-button')!;
          const header = document.querySelector('header.top')!;
          const range = document.createRange();
          range.selectNodeContents(button);
          const lineHeight = parseFloat(getComputedStyle(button).lineHeight);
          // The label's pieces ("Cart (", the count, ")") are boxes of their own in the flex button, so
          // a squeezed button stacks them at different heights: count the distinct vertical centres.
          const centres = Array.from(range.getClientRects())
            .map((rect) => rect.top + rect.height / 2)
            .sort((a, b) => a - b);
          const lines = centres.filter((centre, index) => index === 0 || centre - centres[index - 1]! > 2).length;
          const text = range.getBoundingClientRect();
          const children = Array.from(header.children).map((child) => child.getBoundingClientRect());
          return {
            label: button.textContent,
            lines,
            textHeight: text.height,
            lineHeight,
            viewport: document.documentElement.clientWidth,
            headerScroll: header.scrollWidth,
            headerClient: header.clientWidth,
            pageScroll: document.documentElement.scrollWidth,
            rightmost: Math.max(...children.map((rect) => rect.right)),
            leftmost: Math.min(...children.map((rect) => rect.left)),
          };
        });
        assert.equal(layout.label, 'Cart (0)');
        assert.equal(layout.viewport, 390);
        assert.equal(layout.lines, 1, `"Cart (0)" on one line: ${JSON.stringify(layout)}`);
        assert.ok(
          Math.abs(layout.textHeight - layout.lineHeight) < 1,
          `its text is one line high: ${JSON.stringify(layout)}`,
        );
        assert.ok(
          layout.headerScroll <= layout.headerClient,
          `the header does not overflow: ${JSON.stringify(layout)}`,
        );
        assert.ok(
          layout.leftmost >= 0 && layout.rightmost <= 390,
          `every header item is on screen: ${JSON.stringify(layout)}`,
        );
        assert.ok(layout.pageScroll <= 390, `the page does not scroll sideways: ${JSON.stringify(layout)}`);
      } finally {
        await page.close();
      }
    });
  }
});
