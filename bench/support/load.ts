import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec } from './load-client.ts';
import { processCpuSeconds } from './process-cpu.ts';

export type { LoadRequest, LoadResult, LoadSpec } from './load-client.ts';

const clientFile = fileURLToPath(new URL('./load-client.ts', import.meta.url));

type ClientMessage = { measuring: true } | { result: LoadResult } | { error: string };

/**
 * Runs one load phase from a separate process (its own core and event loop). `serverCpu` is the
 * server's CPU over the measured window, in cores (SQLite and libuv threads included): this
 * process's, where the server lives in it, or that of `serverPid`. It shows whether the server was
 * the bottleneck.
 */
export async function runLoad(
  spec: LoadSpec,
  { serverPid }: { serverPid?: number } = {},
): Promise<LoadResult & { serverCpu: number }> {
  const cpuSeconds = () => (serverPid === undefined ? ownCpuSeconds() : (processCpuSeconds(serverPid) ?? NaN));
  const child = fork(clientFile, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let cpuFrom = NaN;
  let wallFrom = 0;
  let cpu = NaN;
  let wall = 0;
  const result = await new Promise<LoadResult>((resolve, reject) => {
    child.on('message', (message: ClientMessage) => {
      if ('measuring' in message) {
        cpuFrom = cpuSeconds();
        wallFrom = performance.now();
      } else if ('result' in message) {
        cpu = cpuSeconds() - cpuFrom;
        wall = performance.now() - wallFrom;
        resolve(message.result);
      } else {
        reject(new Error(`load client failed: ${message.error}`));
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`load client exited with ${code} before answering`)));
    child.send(spec);
  });
  await exited;
  return { ...result, serverCpu: wall > 0 ? (cpu * 1000) / wall : NaN };
}

function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}
