/** The widget's keyless calls to the service (`/api/widgets/…`), with errors a shopper can read. */

export interface WidgetConfig {
  id: string;
  mode: 'virtual-try-on' | 'room-visualizer';
  imageSize: string;
}

export interface ImageVariant {
  url: string;
  /** The surface's maximum width (list 200, card 600, detail 1200); the image may be narrower. */
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

/**
 * A refused call or a failed generation: `status` is the HTTP status (0 for the network, a
 * timeout or a failed generation), `code` and `param` are the error envelope's.
 */
export class WidgetApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly param: string | null = null,
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
    const reachable =
      probe &&
      (await fetch(url, { mode: 'no-cors', credentials: 'omit', cache: 'no-store' }).then(
        () => true,
        () => false,
      ));
    if (reachable)
      throw new WidgetApiError(
        `${location.origin} is not among this widget's allowed origins.`,
        403,
        'origin_not_allowed',
      );
    throw new WidgetApiError('Could not reach the server. Check your connection and try again.', 0, 'network');
  }
  const body = await response.json().catch(() => null);
  if (response.ok && body) return body as T;
  const error = body?.error || {};
  const param = typeof error.param === 'string' ? error.param : null;
  throw new WidgetApiError(
    String(error.message || `The server answered ${response.status}.`),
    response.status,
    String(error.code || `http_${response.status}`),
    param,
  );
}

export function widgetApi(base: string, widgetId: string) {
  const root = `${base}/api/widgets/${encodeURIComponent(widgetId)}`;
  return {
    config: () => call<WidgetConfig>(root),
    create: (body: GenerationRequest) =>
      call<Generation>(`${root}/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    // Polling: a failed poll is a hiccup to ride out, never an origin refusal (the create passed).
    get: (id: string, visitorId: string) =>
      call<Generation>(
        `${root}/generations/${encodeURIComponent(id)}?visitorId=${encodeURIComponent(visitorId)}`,
        undefined,
        false,
      ),
  };
}

export type WidgetApi = ReturnType<typeof widgetApi>;
