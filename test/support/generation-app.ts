import sharp from 'sharp';
import { startWorkers } from '../../core/lifecycle.ts';
import type { KernelOptions } from '../../core/kernel.ts';
import type { Logger } from '../../core/logger.ts';
import { createGuardedClient } from '../../core/outbound/guarded-client.ts';
import { bearer, startTestApp } from './app.ts';
import { startHttpsServer, testCertificates } from './https-server.ts';
import { damagedJpeg, heicImage, truncatedJpeg } from './odd-images.ts';

export const photoJpeg = await sharp({ create: { width: 800, height: 1000, channels: 3, background: '#88aacc' } })
  .jpeg()
  .toBuffer();
export const productPng = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#aa3311ff' } })
  .png()
  .toBuffer();
/** Images whose header reads but whose pixels may not (see odd-images.ts). */
export const oddImages = { truncated: await truncatedJpeg(), damaged: await damagedJpeg(), heic: await heicImage() };

/** Every field of the spec's Generation, sorted: what a resource's keys must be. */
export const generationFields = [
  'completedAt',
  'createdAt',
  'error',
  'hint',
  'id',
  'imageSize',
  'imageUrl',
  'imageVariants',
  'metadata',
  'mode',
  'object',
  'products',
  'status',
];

/**
 * An HTTPS image host on loopback, as customers' CDNs are: `/photo.jpg`, `/product.png`,
 * `/missing` (404), `/late-missing` (404 after 300 ms), `/not-an-image`, `/truncated.jpg`,
 * `/damaged.jpg`, `/photo.heic`, `/down` (503 always), `/flaky/<token>` (503 twice, then the image),
 * `/hang` (never answers; `hanging` counts such requests).
 */
export async function startImageHost() {
  const flaky = new Map<string, number>();
  let hanging = 0;
  const server = await startHttpsServer((req, res) => {
    const path = req.url ?? '/';
    const send = (bytes: Buffer, type: string) => {
      res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
      res.end(bytes);
    };
    if (path === '/photo.jpg') return send(photoJpeg, 'image/jpeg');
    if (path.startsWith('/product')) return send(productPng, 'image/png');
    if (path === '/not-an-image') return send(Buffer.from('<html>hello</html>'), 'text/html');
    if (path === '/truncated.jpg') return send(oddImages.truncated, 'image/jpeg');
    if (path === '/damaged.jpg') return send(oddImages.damaged, 'image/jpeg');
    if (path === '/photo.heic') return send(oddImages.heic, 'image/heic');
    if (path === '/down') return void res.writeHead(503).end();
    if (path === '/late-missing') return void setTimeout(() => res.writeHead(404).end(), 300);
    if (path === '/hang') return void (hanging += 1);
    if (path.startsWith('/flaky/')) {
      const seen = (flaky.get(path) ?? 0) + 1;
      flaky.set(path, seen);
      return seen <= 2 ? void res.writeHead(503).end() : send(productPng, 'image/png');
    }
    res.writeHead(404).end();
  });
  return Object.assign(server, { hanging: () => hanging });
}

/** The real app with render workers, trusting the loopback image host (allowlisted, test CA). */
export async function startGenerationApp(
  options: {
    env?: Record<string, string>;
    config?: Record<string, unknown>;
    workers?: boolean;
    logger?: Logger;
  } & Pick<KernelOptions, 'ports'> = {},
) {
  const certs = await testCertificates();
  const host = await startImageHost();
  const app = await startTestApp({
    env: { VISUALIZER_OUTBOUND_ALLOW: 'localhost', ...options.env },
    config: {
      render: { maxAttempts: 3, retryBaseDelayMs: 20 },
      pluginOptions: { 'queue-db': { pollIntervalMs: 50 } },
      // Tests fire bursts on purpose; the rate limit has a suite of its own.
      rateLimits: { create: { perSecond: 1_000, burst: 1_000 }, read: { perSecond: 10_000, burst: 10_000 } },
      ...options.config,
    },
    ...(options.logger ? { logger: options.logger } : {}),
    ports: options.ports,
    // The CA is handed to the client directly: NODE_EXTRA_CA_CERTS is only read when a process starts.
    outbound: createGuardedClient({ allow: ['localhost'], ca: certs.caPem }),
  });
  if (options.workers !== false) await startWorkers(app.container.cradle);

  const json = { 'content-type': 'application/json' };
  const api = {
    post: (key: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${app.url}/v1/generations`, {
        method: 'POST',
        headers: { ...bearer(key), ...json, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    get: (key: string, path: string) => fetch(`${app.url}${path}`, { headers: bearer(key) }),
    /** Polls until the generation leaves `processing` (as the spec tells integrators to). */
    async settled(key: string, id: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const generation = await (await api.get(key, `/v1/generations/${id}`)).json();
        if (generation.status !== 'processing') return generation;
        if (Date.now() > deadline) throw new Error(`generation ${id} still processing after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
  const validBody = (overrides: Record<string, unknown> = {}) => ({
    mode: 'virtual-try-on',
    image: `${host.url}/photo.jpg`,
    products: [{ productId: 'sku-1', productTitle: 'Red shirt', imageUrl: `${host.url}/product.png` }],
    ...overrides,
  });
  return {
    app,
    host,
    api,
    validBody,
    async close() {
      // app.close() throws when an answer broke the OpenAPI document; the image host closes anyway.
      try {
        await app.close();
      } finally {
        await host.close();
      }
    },
  };
}

export type GenerationApp = Awaited<ReturnType<typeof startGenerationApp>>;
