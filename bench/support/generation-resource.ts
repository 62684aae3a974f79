import type { startBenchApp } from './app.ts';
import type { LoadRequest } from './load.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;
type Row = Record<string, unknown>;

/** One real `POST /v1/generations` on the bench app; its resource is what the floors answer. */
export async function createGeneration(bench: BenchApp): Promise<Row> {
  const response = await fetch(`${bench.app.url}/v1/generations`, {
    method: 'POST',
    headers: bench.headers,
    body: bench.createBody,
  });
  if (response.status !== 202) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Row;
}

const json = (text: unknown) => (text === null ? null : JSON.parse(text as string));
const iso = (at: unknown) => (at === null ? null : new Date(at as number).toISOString());

/** A `generations` row made into the API's resource, as the same-work ceilings' `get` does it. */
export function generationResourceFromRow(row: Row) {
  return {
    id: row.id,
    object: 'generation',
    status: row.status,
    mode: row.mode,
    imageSize: row.image_size,
    imageUrl: row.image_url,
    imageVariants: json(row.image_variants),
    products: json(row.products),
    hint: row.hint,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message },
    metadata: json(row.metadata),
    createdAt: iso(row.created_at),
    completedAt: iso(row.completed_at),
  };
}

/**
 * The `get` loads' setup: `count` real generations, requests cycling over them, and one real
 * read's resource, which the floors answer.
 */
export async function readsOfGenerations(
  bench: BenchApp,
  count: number,
): Promise<{ requests: LoadRequest[]; resource: Row }> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(String((await createGeneration(bench)).id));
  const headers = { authorization: bench.headers.authorization };
  const sample = await fetch(`${bench.app.url}/v1/generations/${ids[0]}`, { headers });
  if (sample.status !== 200) throw new Error(`sample read answered ${sample.status}: ${await sample.text()}`);
  const resource = (await sample.json()) as Row;
  return { requests: ids.map((id) => ({ method: 'GET', path: `/v1/generations/${id}`, headers })), resource };
}
