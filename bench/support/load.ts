import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec } from './load-client.ts';

export type { LoadRequest, LoadResult, LoadSpec } from './load-client.ts';

const clientFile = fileURLToPath(new URL('./load-client.ts', import.meta.url));

type ClientMessage = { measuring: true } | { result: LoadResult } | { error: string };

/**
 * Runs one load phase from a separate process (its own core and event loop). The server being
 * measured lives in this process, so `serverCpu` (this process's CPU over the measured window, in
 * cores; SQLite and libuv threads included) shows whether the server was the bottleneck.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult & { serverCpu: number }> {
  const child = fork(clientFile, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let cpuFrom: NodeJS.CpuUsage | undefined;
  let wallFrom = 0;
  let cpu: NodeJS.CpuUsage | undefined;
  let wall = 0;
  const result = await new Promise<LoadResult>((resolve, reject) => {
    child.on('message', (message: ClientMessage) => {
      if ('measuring' in message) {
        cpuFrom = process.cpuUsage();
        wallFrom = performance.now();
      } else if ('result' in message) {
        cpu = process.cpuUsage(cpuFrom);
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
  return { ...result, serverCpu: cpu && wall > 0 ? (cpu.user + cpu.system) / 1000 / wall : NaN };
}
