import { assertBodySize, type H3, type H3Event } from 'h3';
import type { Config } from '../../../config/schema.ts';
import { demoProducts, findDemoProduct } from '../../../demo/catalogue.ts';
import { confirmationPage, indexPage, orderReportedPage, productPage, type PageContext } from '../../../demo/pages.ts';
import { demoState } from '../../../demo/setup.ts';
import { ApiError } from '../../domain/errors.ts';
import { bodyTooLarge } from '../errors.ts';
import { services } from '../context.ts';

const html = (body: string, status = 200) =>
  new Response(body, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });

/** Whether the demo shop is served: `demo.enabled`, by default on unless NODE_ENV is production. */
export const demoEnabled = (config: Pick<Config, 'demo'>) => config.demo.enabled ?? process.env.NODE_ENV !== 'production';

async function pageContext(event: H3Event): Promise<PageContext & { state: Awaited<ReturnType<typeof demoState>> }> {
  const cradle = services(event);
  const state = await demoState(cradle);
  return { base: cradle.config.publicUrl, storeId: state.storeId, widgetId: state.widgetId, imageUrl: (key) => cradle.cdn.publicUrl(key), state };
}

/**
 * The demo shop (development): a product page that opens the widget, a confirmation page that
 * reports the order with `track` and through a form, and the shop's own server handler
 * (`POST /demo/orders`) that calls the order webhook with the demo's conversion key.
 */
export function demoRoutes(app: H3, config: Config) {
  if (!demoEnabled(config)) return;

  app.get('/demo', async (event) => html(indexPage(await pageContext(event), demoProducts)));

  app.get('/demo/product', async (event) => {
    const id = event.url.searchParams.get('id');
    const product = id ? findDemoProduct(id) : demoProducts[0];
    if (!product) throw new ApiError('not_found_error', 'resource_missing', `No such demo product: '${id}'.`, 'id');
    return html(productPage(await pageContext(event), product));
  });

  /** Checkout is instant in the demo: a new order id, then the confirmation page. */
  app.get('/demo/checkout', (event) => {
    const orderId = `demo-${services(event).ids.id('').slice(0, 12)}`;
    return new Response(null, { status: 303, headers: { location: `/demo/confirmation?order=${encodeURIComponent(orderId)}`, 'cache-control': 'no-store' } });
  });

  app.get('/demo/confirmation', async (event) => {
    const orderId = event.url.searchParams.get('order')?.trim().slice(0, 200) || null;
    return html(confirmationPage(await pageContext(event), orderId, demoProducts));
  });

  /** The shop's server: reads the form, prices the items from its catalogue, reports the order. */
  app.post('/demo/orders', async (event) => {
    const context = await pageContext(event);
    const { config: current, clock } = services(event);
    let text: string;
    try {
      assertBodySize(event, 64 * 1024);
      text = await event.req.text();
    } catch (error) {
      if ((error as { status?: number }).status === 413) throw bodyTooLarge(64 * 1024);
      throw error;
    }
    const form = new URLSearchParams(text);
    let requested: unknown;
    try {
      requested = JSON.parse(form.get('items') || '[]');
    } catch {
      requested = [];
    }
    const items = (Array.isArray(requested) ? requested : []).flatMap((entry: { productId?: unknown; quantity?: unknown }) => {
      const product = findDemoProduct(String(entry?.productId));
      const quantity = Number(entry?.quantity);
      if (!product || !Number.isInteger(quantity) || quantity < 1 || quantity > 100) return [];
      return [{ productId: product.id, quantity, priceCents: product.priceCents, totalCents: product.priceCents * quantity }];
    });
    const conversion = {
      orderId: form.get('orderId') ?? '',
      storeId: context.state.storeId,
      organizationId: context.state.organizationId,
      visitorId: form.get('visitorId') ?? '',
      sessionId: form.get('sessionId') ?? '',
      totalCents: items.reduce((sum, item) => sum + item.totalCents, 0),
      currency: 'USD',
      platform: 'custom',
      status: 'completed',
      orderCreatedAt: new Date(clock.now()).toISOString(),
      items,
    };
    let status = 0;
    let answer: unknown;
    try {
      const response = await fetch(`${current.publicUrl}/api/webhooks/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context.state.conversionKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(conversion),
        signal: AbortSignal.timeout(15_000),
      });
      status = response.status;
      answer = await response.json().catch(() => null);
    } catch (error) {
      answer = { error: { message: `The order webhook could not be reached: ${(error as Error).message}` } };
    }
    const ok = status >= 200 && status < 300;
    return html(orderReportedPage(context, { ok, status, orderId: conversion.orderId, request: { ...conversion }, answer }), ok ? 200 : 502);
  });
}
