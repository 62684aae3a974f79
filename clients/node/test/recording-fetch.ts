/** The global fetch, noting what each call sent and got, so tests can see the client's requests. */
export function recordingFetch() {
  const calls: Array<{
    method: string;
    url: URL;
    idempotencyKey: string | null;
    status: number;
    requestId: string | null;
  }> = [];
  const fetch = async (request: Request) => {
    const response = await globalThis.fetch(request);
    calls.push({
      method: request.method,
      url: new URL(request.url),
      idempotencyKey: request.headers.get('idempotency-key'),
      status: response.status,
      requestId: response.headers.get('x-request-id'),
    });
    return response;
  };
  return { fetch, calls };
}
