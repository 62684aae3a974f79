import { assertBodySize, type H3, type H3Event } from 'h3';
import { services, bodyTooLarge, ApiError, type Config, type AppModule } from '../core/http/app-module-api.ts';
import { demoAvailability, demoBannerLine } from './availability.ts';
import { demoProducts, findDemoProduct, publishDemoImages } from './catalogue.ts';
import { linesOfOrder, orderLines, pricedItems, rememberOrder, reportOrder, type DemoOrder } from './order.ts';
import {
  checkoutPage,
  confirmationPage,
  indexPage,
  orderNotPlacedPage,
  productPage,
  type PageContext,
} from './pages.ts';
import { demoDashboardLine, demoState } from './setup.ts';

const html = (body: string, status = 200) =>
  new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });

async function pageContext(event: H3Event): Promise<PageContext & { state: Awaited<ReturnType<typeof demoState>> }> {
  const cradle = services(event);
  const state = await demoState(cradle);
  return {
    base: cradle.config.publicUrl,
    storeId: state.storeId,
    widgetId: state.widgetId,
    imageUrl: (key) => cradle.cdn.publicUrl(key),
    state,
  };
}

/**
 * The demo shop (development): a product page that opens the widget, a checkout whose form the
 * shop's own server handler (`POST /demo/checkout`) turns into an order webhook call with the demo's
 * conversion key, and a confirmation page that also reports the order with `track`.
 */
function demoRoutes(app: H3, config: Config) {
  if (!demoAvailability(config).enabled) return;

  app.get('/demo', async (event) => html(indexPage(await pageContext(event), demoProducts)));

  app.get('/demo/product', async (event) => {
    const id = event.url.searchParams.get('id');
    const product = id ? findDemoProduct(id) : demoProducts[0];
    if (!product) throw new ApiError('not_found_error', 'resource_missing', `No such demo product: '${id}'.`, 'id');
    return html(productPage(await pageContext(event), product));
  });

  /** Shows the cart and the form that places the order: a GET, so a reload or a prefetch places nothing. */
  app.get('/demo/checkout', async (event) => html(checkoutPage(await pageContext(event))));

  /**
   * The shop's server: prices the posted cart from its catalogue, reports the order with the order
   * webhook, then redirects (Post/Redirect/Get) so reloading the confirmation page places nothing again.
   */
  app.post('/demo/checkout', async (event) => {
    const context = await pageContext(event);
    const { config: current, clock, ids } = services(event);
    let text: string;
    try {
      assertBodySize(event, 64 * 1024);
      text = await event.req.text();
    } catch (error) {
      if ((error as { status?: number }).status === 413) throw bodyTooLarge(64 * 1024);
      throw error;
    }
    const form = new URLSearchParams(text);
    const items = pricedItems(form.get('items'));
    if (items.length === 0) {
      throw new ApiError(
        'invalid_request_error',
        'parameter_invalid',
        'The cart is empty: add a product before placing an order.',
        'items',
      );
    }
    const order: DemoOrder = {
      orderId: `demo-${ids.secret(12)}`,
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
    const { ok, status, answer } = await reportOrder(current.publicUrl, context.state.conversionKey, order);
    if (!ok) return html(orderNotPlacedPage(context, { status, request: order, answer }), 502);
    rememberOrder(order.orderId, orderLines(form.get('items')));
    return new Response(null, {
      status: 303,
      headers: {
        location: `/demo/confirmation?order=${encodeURIComponent(order.orderId)}`,
        'cache-control': 'no-store',
      },
    });
  });

  /** An order the shop's server placed, as Visualizer recorded it; any other order id is not found. */
  app.get('/demo/confirmation', async (event) => {
    const context = await pageContext(event);
    const orderId = event.url.searchParams.get('order')?.trim().slice(0, 200);
    const order = orderId
      ? await services(event).persistence.conversions.findByOrder(context.state.storeId, orderId)
      : null;
    const lines = order ? linesOfOrder(order.orderId) : null;
    return html(confirmationPage(context, order, demoProducts, lines), order ? 200 : 404);
  });
}

/**
 * The demo shop as an application module: its pages where `demoAvailability` allows them, its
 * product images published at start-up (so `/cdn/demo/…` serves them before anyone opens a page,
 * e.g. as the product image of a first API call), and its banner line.
 */
export const demoShopModule: AppModule = {
  name: 'demo shop',
  routes: demoRoutes,
  async start({ config, cdn }) {
    if (demoAvailability(config).enabled) await publishDemoImages(cdn);
  },
  banner: async (config, services) =>
    demoAvailability(config).enabled
      ? [demoBannerLine(config), await demoDashboardLine(services)]
      : [demoBannerLine(config)],
};
