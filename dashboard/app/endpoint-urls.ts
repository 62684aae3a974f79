import { api, unwrap } from './api.ts';

/**
 * The organization's webhook endpoints as id → URL, so deliveries name the endpoint by where they
 * went rather than by `whe_…`. Read once and shared by every event shown; read again when an id is
 * missing (an endpoint made since), and a still-missing id is a deleted endpoint.
 */
let cached: Promise<Map<string, string>> | null = null;

async function readAll(): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  let startingAfter: string | undefined;
  for (;;) {
    const page = await unwrap(
      api.GET('/v1/webhook-endpoints', { params: { query: { limit: 100, starting_after: startingAfter } } }),
    );
    for (const endpoint of page.data) urls.set(endpoint.id, endpoint.url);
    if (!page.has_more || page.data.length === 0) return urls;
    startingAfter = page.data.at(-1)!.id;
  }
}

export async function endpointUrls(ids: readonly string[]): Promise<Map<string, string>> {
  cached ??= readAll();
  cached.catch(() => (cached = null));
  const urls = await cached;
  if (ids.every((id) => urls.has(id))) return urls;
  cached = readAll();
  return cached;
}

/** After an endpoint is created, edited or deleted here. */
export function forgetEndpointUrls() {
  cached = null;
}
