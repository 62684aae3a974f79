import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { buildDashboardAssets } from '../dashboard/build.ts';

/**
 * The dashboard's budget, gzipped (docs/dashboard.md): 60 KB of JavaScript (Preact, uPlot,
 * openapi-fetch and the pages) and 10 KB of CSS (its own and uPlot's).
 */
const budget = { js: 60 * 1024, css: 10 * 1024 };

describe('the dashboard bundle', () => {
  it(`stays within its budget: JS ≤ ${budget.js / 1024} KB and CSS ≤ ${budget.css / 1024} KB gzipped`, async () => {
    const { files, script, style } = await buildDashboardAssets();
    const gzipped = (name: string) => gzipSync(files.get(name)!.body, { level: 9 }).length;
    const js = gzipped(script);
    const css = gzipped(style);
    assert.ok(js <= budget.js, `the dashboard's JavaScript is ${js} bytes gzipped; the budget is ${budget.js}`);
    assert.ok(css <= budget.css, `the dashboard's CSS is ${css} bytes gzipped; the budget is ${budget.css}`);
    assert.ok(Buffer.from(files.get(style)!.body).toString().includes('.u-legend'), "uPlot's styles are in the sheet");
  });
});
