import { createGuardedClient } from '../../core/outbound/guarded-client.ts';
import type { Logger } from '../../core/logger.ts';
import { startHttpsServer, testCertificates } from '../../test/support/https-server.ts';
import { startTestApp } from '../../test/support/app.ts';
import { photoLikeJpeg, productPng } from './images.ts';

/** Rate limits out of the way: the benchmarks measure the work, not the token buckets. */
export const unlimited = { create: { perSecond: 1e9, burst: 1e9 }, read: { perSecond: 1e9, burst: 1e9 } };

/** A loopback HTTPS host serving a 900×1200 `photo` (`/photo…`) and a 500 px `product` image (anything else). */
export async function startBenchImageHost() {
  const photo = await photoLikeJpeg(900, 1200, 88);
  const product = await productPng(500);
  const host = await startHttpsServer((req, res) => {
    const body = req.url?.startsWith('/photo') ? photo : product;
    res.writeHead(200, {
      'content-type': req.url?.startsWith('/photo') ? 'image/jpeg' : 'image/png',
      'content-length': body.length,
    });
    res.end(body);
  });
  return { host, photo, product };
}

/** The benchmarks' create: a 1K try-on of the image host's photo and product. */
export const createBodyFor = (imageHost: string) =>
  JSON.stringify({
    mode: 'virtual-try-on',
    image: `${imageHost}/photo.jpg`,
    imageSize: '1K',
    products: [
      { productId: 'sku-1042', productTitle: 'Linen overshirt, rust', imageUrl: `${imageHost}/products/sku-1042.png` },
    ],
  });

/**
 * The real app on a temp SQLite dir plus a loopback HTTPS image host serving a photo and a product
 * image; the app's outbound client (every plugin's too: it is the kernel's) trusts the host's test
 * CA and allows localhost. It answers as `serve` does: the tests' check of every answer against the
 * OpenAPI document (a cloned body, parsed and validated) is no part of the service, so it is off.
 * Workers are not started here (see core/lifecycle.ts `startWorkers`).
 */
export async function startBenchApp(
  options: { credits?: number; logger?: Logger; config?: Record<string, unknown> } = {},
) {
  const certs = await testCertificates();
  const { host, photo, product } = await startBenchImageHost();
  const outbound = createGuardedClient({ allow: ['localhost'], ca: certs.caPem });
  const app = await startTestApp({
    config: { rateLimits: unlimited, ...options.config },
    outbound,
    checkResponses: false,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const { apiKey } = await app.tenants.createOrganization({ name: 'Bench', credits: options.credits ?? 1_000_000_000 });
  const createBody = createBodyFor(host.url);
  return {
    app,
    host,
    photo,
    product,
    apiKey: apiKey.key,
    createBody,
    headers: { authorization: `Bearer ${apiKey.key}`, 'content-type': 'application/json' },
    async close() {
      // Workers (if started) stop before the database closes; shutdown() inside app.close() does that.
      await app.close();
      await host.close();
    },
  };
}
