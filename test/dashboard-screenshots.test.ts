import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { dashboardViewports, screenshotFile, screenshotNames } from './support/dashboard-pages.ts';

/**
 * docs/dashboard.md shows every dashboard page at both widths, from files `npm run screenshots`
 * wrote: each referenced, present, a PNG of the viewport's size, and small.
 */
const docs = path.join(import.meta.dirname, '..', 'docs');
const markdown = readFileSync(path.join(docs, 'dashboard.md'), 'utf8');
const maxBytes = 150_000;

describe('dashboard screenshots', () => {
  it('docs/dashboard.md shows every page at 1280 and at 390 px, from PNGs that exist', () => {
    for (const name of screenshotNames) {
      for (const viewport of dashboardViewports) {
        const file = screenshotFile(name, viewport.width);
        assert.ok(markdown.includes(`](${file})`), `docs/dashboard.md shows ${file}`);
        const bytes = readFileSync(path.join(docs, file));
        assert.deepEqual(
          [...bytes.subarray(0, 8)],
          [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
          `${file} is a PNG`,
        );
        assert.deepEqual(
          [bytes.readUInt32BE(16), bytes.readUInt32BE(20)],
          [viewport.width, viewport.height],
          `${file} is the viewport`,
        );
        assert.ok(statSync(path.join(docs, file)).size <= maxBytes, `${file} is at most ${maxBytes} bytes`);
      }
    }
  });

  it('docs/dashboard/ holds no screenshot the page does not show', () => {
    for (const file of readdirSync(path.join(docs, 'dashboard'))) {
      assert.ok(
        markdown.includes(`](dashboard/${file})`),
        `docs/dashboard/${file} is shown in docs/dashboard.md (or removed)`,
      );
    }
  });
});
