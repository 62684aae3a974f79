import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait-for.ts';

export const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'visualizer.js');
const execFileAsync = promisify(execFile);

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI binary, as a user would from a shell; a failing exit is a result, not a throw. */
export async function cli(args: string[], env: Record<string, string>): Promise<RunResult> {
  try {
    const { stdout, stderr } = await execFileAsync(bin, args, { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A CLI process whose output the test reads as it comes; `exited` resolves with its exit code. */
export function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** Resolves once stdout matches; rejects with the output if the process exits or takes over a minute. */
  const printed = (pattern: RegExp) =>
    waitFor(
      `${args.join(' ')} printing ${pattern}`,
      () => {
        if (child.exitCode !== null)
          throw new Error(`${args.join(' ')} exited with ${child.exitCode}: ${output.stderr}`);
        return pattern.test(output.stdout);
      },
      60_000,
    ).catch((error: Error) =>
      Promise.reject(new Error(`${error.message}\nstdout: ${output.stdout}\nstderr: ${output.stderr}`)),
    );
  return { child, output, exited, printed };
}
