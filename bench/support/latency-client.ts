/**
 * Latency driver, run as a child process (so its polling does not share the server's event loop):
 * submits generations at a steady rate, polls each one with GET every `pollMs` until it is no
 * longer processing, and reports each one's POST-to-complete time as a client sees it.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LatencySpec {
  origin: string;
  headers: Record<string, string>;
  body: string;
  warmup: number;
  count: number;
  perSecond: number;
  pollMs: number;
}

export interface Completed {
  /** Submission order, 0-based. */
  index: number;
  /** Client time from sending the POST to the first GET that saw `complete`, ms. */
  observedMs: number;
  /** The server's own createdAt → completedAt, ms. */
  serverMs: number;
  polls: number;
}

export interface LatencyResult {
  completed: Completed[];
  failed: Array<{ status: string; error: unknown }>;
  /** Submission rate actually achieved, per second. */
  submittedPerSecond: number;
}

const agent = new http.Agent({ keepAlive: true });

function call(
  origin: string,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: any }> {
  const url = new URL(path, origin);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { agent, method, headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function one(spec: LatencySpec, index: number): Promise<Completed | { status: string; error: unknown }> {
  const started = performance.now();
  const created = await call(spec.origin, 'POST', '/v1/generations', spec.headers, spec.body);
  if (created.status !== 202) return { status: `POST ${created.status}`, error: created.json };
  const read = { authorization: spec.headers.authorization! };
  for (let polls = 1; ; polls++) {
    await sleep(spec.pollMs);
    const { status, json } = await call(spec.origin, 'GET', `/v1/generations/${created.json.id}`, read);
    if (status !== 200) return { status: `GET ${status}`, error: json };
    if (json.status === 'complete') {
      return {
        index,
        observedMs: performance.now() - started,
        serverMs: Date.parse(json.completedAt) - Date.parse(json.createdAt),
        polls,
      };
    }
    if (json.status !== 'processing') return { status: json.status, error: json.error };
  }
}

export async function runLatency(spec: LatencySpec): Promise<LatencyResult> {
  for (let i = 0; i < spec.warmup; i++) await one(spec, -1);
  const completed: Completed[] = [];
  const failed: LatencyResult['failed'] = [];
  const tasks: Array<Promise<void>> = [];
  const started = performance.now();
  for (let i = 0; i < spec.count; i++) {
    // Scheduled against the start, not the previous submission, so the rate does not drift.
    const due = started + (i * 1000) / spec.perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    tasks.push(
      one(spec, i).then(
        (outcome) => void ('observedMs' in outcome ? completed.push(outcome) : failed.push(outcome)),
        (error: unknown) => void failed.push({ status: 'error', error: String(error) }),
      ),
    );
  }
  const submittedPerSecond = spec.count / ((performance.now() - started) / 1000);
  await Promise.all(tasks);
  agent.destroy();
  return { completed, failed, submittedPerSecond };
}

if (process.send) {
  process.once('message', (spec: LatencySpec) => {
    runLatency(spec).then(
      (result) => process.send!({ result }, () => process.disconnect()),
      (error: unknown) =>
        process.send!({ error: String(error instanceof Error ? error.stack : error) }, () => process.disconnect()),
    );
  });
}
