/**
 * Load generator, run as a child process (see load.ts) so it has its own core and event loop and
 * the server under test has the other. Keeps `concurrency` requests in flight over keep-alive
 * connections, cycling through the given requests: first for `warmupMs` (not counted), then for
 * `durationMs`, counting every response that completes inside the measured window.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './report.ts';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadSpec {
  /** http://host:port */
  origin: string;
  requests: LoadRequest[];
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  /** Responses completed inside the measured window. */
  responses: number;
  seconds: number;
  perSecond: number;
  /** Count by HTTP status (and 'error' for transport failures), measured window only. */
  statuses: Record<string, number>;
  latencyMs: { p50: number; p99: number; max: number };
  /** Every measured response's latency, ms, ascending (for merging rounds). */
  latencies: number[];
  bytesPerResponse: number;
  /** CPU time of this client over the measured window, as a fraction of one core. */
  clientCpu: number;
}

interface Prepared {
  options: http.RequestOptions;
  body: Buffer | undefined;
}

function prepare(spec: LoadSpec, agent: http.Agent): Prepared[] {
  const url = new URL(spec.origin);
  return spec.requests.map((request) => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headers = { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    return {
      options: { agent, host: url.hostname, port: url.port, method: request.method, path: request.path, headers },
      body,
    };
  });
}

function send({ options, body }: Prepared): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(options, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function runLoad(spec: LoadSpec, onMeasuring: () => void = () => {}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency });
  const prepared = prepare(spec, agent);
  let next = 0;
  const started = performance.now();
  const measureFrom = started + spec.warmupMs;
  const measureUntil = measureFrom + spec.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let bytes = 0;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let cpuTimer: NodeJS.Timeout | undefined;
  const cpuStarted = new Promise<void>((resolve) => {
    cpuTimer = setTimeout(() => {
      cpuAtStart = process.cpuUsage();
      onMeasuring();
      resolve();
    }, spec.warmupMs);
  });

  async function worker() {
    for (;;) {
      const sentAt = performance.now();
      if (sentAt >= measureUntil) return;
      const request = prepared[next++ % prepared.length]!;
      let status: string;
      let size = 0;
      try {
        const response = await send(request);
        status = String(response.status);
        size = response.bytes;
      } catch {
        status = 'error';
      }
      const doneAt = performance.now();
      if (doneAt >= measureFrom && doneAt < measureUntil) {
        latencies.push(doneAt - sentAt);
        statuses[status] = (statuses[status] ?? 0) + 1;
        bytes += size;
      }
    }
  }

  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  await cpuStarted;
  clearTimeout(cpuTimer);
  const cpu = process.cpuUsage(cpuAtStart);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const seconds = spec.durationMs / 1000;
  return {
    responses: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    statuses,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN },
    latencies,
    bytesPerResponse: latencies.length ? bytes / latencies.length : 0,
    clientCpu: (cpu.user + cpu.system) / 1000 / spec.durationMs,
  };
}

// As a child process: one spec in, one result out, then exit.
if (process.send) {
  process.once('message', (spec: LoadSpec) => {
    runLoad(spec, () => process.send!({ measuring: true })).then(
      (result) => process.send!({ result }, () => process.disconnect()),
      (error: unknown) =>
        process.send!({ error: String(error instanceof Error ? error.stack : error) }, () => process.disconnect()),
    );
  });
}
