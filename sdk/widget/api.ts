/** The widget's keyless calls to the service (`/api/widgets/…`), with errors a shopper can read. */

export interface WidgetConfig {
  id: string;
  mode: 'virtual-try-on' | 'room-visualizer';
  imageSize: string;
}

export interface ImageVariant {
  url: string;
  width: number;
}

export interface Generation {
  id: string;
  status: 'processing' | 'complete' | 'failed';
  imageVariants: { list: ImageVariant; card: ImageVariant; detail: ImageVariant } | null;
  error: { code: string; message: string } | null;
}

export interface GenerationRequest {
  visitorId: string;
  sessionId: string;
  image: string;
  products: Array<{ productId: string | number; productTitle: string; imageUrl: string; productUrl?: string }>;
}

/** A refused or failed call: `status` 0 means the network, `code` is the envelope's. */
export class WidgetApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

async function call<T>(url: string, init?: RequestInit, probe = true): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, credentials: 'omit' });
  } catch {
    // A refusal without CORS headers (this site is not among the widget's origins) looks like a
    // network failure to the page. An opaque no-cors answer tells them apart: the server is there.
    const reachable = probe && (await fetch(url, { mode: 'no-cors', credentials: 'omit', cache: 'no-store' }).then(
      () => true,
      () => false,
    ));
    if (reachable) throw new WidgetApiError('This site is not allowed to use this widget.', 403, 'origin_not_allowed');
    throw new WidgetApiError('Could not reach the server. Check your connection and try again.', 0, 'network');
  }
  const body = await response.json().catch(() => null);
  if (response.ok && body) return body as T;
  const error = (body && body.error) || {};
  throw new WidgetApiError(String(error.message || `The server answered ${response.status}.`), response.status, String(error.code || 'http_' + response.status));
}

export function widgetApi(base: string, widgetId: string) {
  const root = `${base}/api/widgets/${encodeURIComponent(widgetId)}`;
  return {
    config: () => call<WidgetConfig>(root),
    create: (body: GenerationRequest) =>
      call<Generation>(`${root}/generations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    // Polling: a failed poll is a hiccup to ride out, never an origin refusal (the create passed).
    get: (id: string, visitorId: string) => call<Generation>(`${root}/generations/${encodeURIComponent(id)}?visitorId=${encodeURIComponent(visitorId)}`, undefined, false),
  };
}

export type WidgetApi = ReturnType<typeof widgetApi>;

/** What the shopper is told for a refused request or a failed generation. */
export function friendlyMessage(error: { status?: number; code: string; message?: string }): string {
  switch (error.code) {
    case 'network':
      return 'Could not reach the server. Check your connection and try again.';
    case 'origin_not_allowed':
      return 'This widget is not enabled for this website.';
    case 'insufficient_credits':
    case 'daily_cap_reached':
      return 'Visualizations are not available right now. Please try again later.';
    case 'invalid_image':
    case 'image_too_large':
      return 'This photo could not be used. Please try a JPEG or PNG photo.';
    case 'content_blocked':
      return 'This photo could not be used for a visualization. Please try a different photo.';
    case 'image_fetch_failed':
      return 'A product image could not be loaded, so the visualization failed. Please try again later.';
    case 'timeout':
      return 'This is taking longer than expected. Please try again.';
    case 'resource_missing':
    case 'route_not_found':
      return 'This widget is not available.';
  }
  if (error.status === 429) return 'Too many tries in a short time. Please wait a minute and try again.';
  return 'Something went wrong while creating your visualization. Please try again.';
}
