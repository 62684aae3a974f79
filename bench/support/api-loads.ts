import type { H3 } from 'h3';
import type { startBenchApp } from './app.ts';
import type { LoadRequest } from './load.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;

/** One API benchmark's requests and the floor's routes: a bare h3 answering the same route with a constant resource. */
export interface ApiLoad {
  requests: LoadRequest[];
  floorRoutes: (app: H3) => void;
}

async function createGeneration(bench: BenchApp): Promise<Record<string, unknown>> {
  const response = await fetch(`${bench.app.url}/v1/generations`, { method: 'POST', headers: bench.headers, body: bench.createBody });
  if (response.status !== 202) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** `POST /v1/generations`; the floor reads the same JSON body and answers 202 with a real create's resource. */
export async function createLoad(bench: BenchApp): Promise<ApiLoad> {
  const resource = await createGeneration(bench);
  return {
    requests: [{ method: 'POST', path: '/v1/generations', headers: bench.headers, body: bench.createBody }],
    floorRoutes: (app) => {
      app.post('/v1/generations', async (event) => {
        await event.req.json();
        event.res.status = 202;
        return resource;
      });
    },
  };
}

/** `GET /v1/generations/{id}` cycling over `count` generations; the floor answers a real read's resource. */
export async function readLoad(bench: BenchApp, count = 200): Promise<ApiLoad> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(String((await createGeneration(bench)).id));
  const headers = { authorization: bench.headers.authorization };
  const sample = await fetch(`${bench.app.url}/v1/generations/${ids[0]}`, { headers });
  if (sample.status !== 200) throw new Error(`sample read answered ${sample.status}: ${await sample.text()}`);
  const resource = (await sample.json()) as Record<string, unknown>;
  return {
    requests: ids.map((id) => ({ method: 'GET', path: `/v1/generations/${id}`, headers })),
    floorRoutes: (app) => {
      app.get('/v1/generations/:id', () => resource);
    },
  };
}
