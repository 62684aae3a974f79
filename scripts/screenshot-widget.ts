/**
 * Takes `docs/widget.png`: the demo shop's product page with the widget open on a result, at
 * 800×600. Runs the real app (fresh data dir, mock renderer) and Debian's Chromium, and prints the
 * SDK bundle sizes on the way.
 *
 *   node --import tsx scripts/screenshot-widget.ts [output.png]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { loadConfig } from '../config/load.ts';
import { freePort } from '../core/http/free-port.ts';
import { appModules } from '../cli/app-modules.ts';
import { startHttpServer } from '../core/http/server.ts';
import { createKernel } from '../core/kernel.ts';
import { shutdown, startWorkers } from '../core/lifecycle.ts';
import { silentLogger } from '../core/logger.ts';
import { builtinPlugins } from '../plugins/catalogue.ts';
import { sdkAssets } from '../sdk/serve-bundles.ts';
import { launchChromium, shopperPhoto } from '../test/support/browser.ts';

const output = path.resolve(process.argv[2] ?? 'docs/widget.png');

const assets = await sdkAssets();
for (const [name, file] of [
  ['embed.js (loader)', assets.loader],
  [`${assets.widgetPath.slice(1)} (UI)`, assets.widget],
] as const) {
  console.log(`${name}: ${file.body.length} bytes, ${gzipSync(file.body, { level: 9 }).length} gzipped`);
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-screenshot-'));
const port = await freePort();
const config = loadConfig({ VISUALIZER_DATA_DIR: dataDir, PORT: String(port) }, { createDevOrganization: false });
const container = await createKernel(config, { catalogue: builtinPlugins, logger: silentLogger });
await container.cradle.persistence.migrate();
const server = await startHttpServer(container, { port, host: '127.0.0.1', modules: appModules });
await startWorkers(container.cradle);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
  await page.goto(`${config.publicUrl}/demo/product?id=tee-classic`);
  await page.waitForFunction(
    () => !!(window as unknown as { Visualizer?: { getIdentity?: unknown } }).Visualizer?.getIdentity,
  );
  await page.click('#try-on');
  await page.setInputFiles('visualizer-widget .photo-input', {
    name: 'me.jpg',
    mimeType: 'image/jpeg',
    buffer: await shopperPhoto(),
  });
  await page.locator('visualizer-widget .result-img').waitFor({ state: 'visible', timeout: 60_000 });
  await page.waitForFunction(() => {
    const image = document
      .querySelector('visualizer-widget')
      ?.shadowRoot?.querySelector<HTMLImageElement>('.result-img');
    return !!image?.complete && image.naturalWidth > 0;
  });
  await page.click('visualizer-widget .add');
  await page.locator('visualizer-widget .message.ok').waitFor();
  await page.evaluate(() =>
    (document.querySelector('visualizer-widget')?.shadowRoot?.activeElement as HTMLElement | null)?.blur(),
  );
  const png = await sharp(await page.screenshot())
    .png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 })
    .toBuffer();
  mkdirSync(path.dirname(output), { recursive: true });
  writeFileSync(output, png);
  console.log(`wrote ${path.relative(process.cwd(), output)} (${png.length} bytes)`);
} finally {
  await browser.close();
  await server.close();
  await shutdown(container);
  rmSync(dataDir, { recursive: true, force: true });
}
