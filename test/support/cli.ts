import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

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
