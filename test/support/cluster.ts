/**
 * Real `visualizer` processes for tests and benchmarks that run a deployment of several of them
 * (API processes, workers) on one database. Every process started through a Cluster is killed by
 * `stopAll()`, which a suite calls in its `after` hook, so a failing test leaves none behind.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { bin as checkoutBin } from './cli.ts';

const execFileAsync = promisify(execFile);

export interface ClusterProcess {
  name: string;
  child: ChildProcess;
  /** The match of the ready line (for `serve`, group 1 is its URL). */
  match: RegExpExecArray;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with the exit code (null after a signal), also when it has already exited. */
  exited(): Promise<number | null>;
  /** Sends `signal` and waits for the exit; SIGKILL after `graceMs` if it is still running. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

/** How long a process may take to print its ready line: a tsx boot on a busy 2-core machine takes seconds. */
const readyTimeoutMs = 60_000;

export class Cluster {
  readonly processes: ClusterProcess[] = [];

  /** `bin`: the `visualizer` executable to run; another build's (bench/tools/compare-builds.ts) or this checkout's. */
  constructor(
    readonly env: Record<string, string>,
    readonly bin: string = checkoutBin,
  ) {}

  /** Runs a one-shot CLI command (`migrate`, `orgs create …`) with the cluster's env; throws with its output when it fails. */
  async run(args: string[], env: Record<string, string> = {}): Promise<string> {
    try {
      const { stdout } = await execFileAsync(this.bin, args, {
        env: { ...process.env, ...this.env, ...env },
        timeout: readyTimeoutMs,
      });
      return stdout;
    } catch (error) {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string };
      throw new Error(
        `visualizer ${args.join(' ')} failed (${String(failed.code)}):\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
        { cause: error },
      );
    }
  }

  /** Starts `visualizer <args>` and resolves once its output matches `ready`; rejects (and kills it) if it exits or stalls first. */
  start(name: string, args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<ClusterProcess> {
    const child = spawn(this.bin, args, {
      env: { ...process.env, ...this.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const exited = () =>
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : exit;
    const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited();
      } finally {
        clearTimeout(timer);
      }
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(`${name} (visualizer ${args.join(' ')}) printed no ready line in ${readyTimeoutMs} ms:\n${output}`),
        );
      }, readyTimeoutMs);
      const onData = (chunk: Buffer) => {
        output += chunk;
        const match = ready.exec(output);
        if (match) {
          clearTimeout(timer);
          const started: ClusterProcess = { name, child, match, output: () => output, exited, stop };
          resolve(started);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `${name} (visualizer ${args.join(' ')}) exited (${code ?? signal}) before it was ready:\n${output}`,
          ),
        );
      });
      this.processes.push({
        name,
        child,
        match: null as unknown as RegExpExecArray,
        output: () => output,
        exited,
        stop,
      });
    });
  }

  /** `serve --api-only` on a free port; resolves with its URL. */
  async api(name: string, env: Record<string, string> = {}): Promise<ClusterProcess & { url: string }> {
    const started = await this.start(name, ['serve', '--api-only'], /listening on (http:\S+)/, { PORT: '0', ...env });
    return Object.assign(started, { url: started.match[1]! });
  }

  /** A `worker` process, ready once it prints that it runs its render jobs. */
  worker(name: string, env: Record<string, string> = {}): Promise<ClusterProcess> {
    return this.start(name, ['worker'], /worker running/, env);
  }

  /** Kills every process still running (SIGKILL) and waits for each to exit. */
  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((started) => started.stop('SIGKILL')));
  }
}
