import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface BaseBuild {
  /** The worktree's directory. */
  dir: string;
  commit: string;
  /** Removes the worktree. */
  remove(): Promise<void>;
}

/**
 * `ref` of the repository at `root`, checked out in a temporary git worktree, with the working
 * tree's `bench/` in place of its own: both builds run the same benchmarks, each against its own
 * code (a benchmark that needs what the ref lacks fails, and says so). Its npm packages are the
 * working tree's when both lock files agree (a link, no install); otherwise `npm ci` installs its own.
 */
export async function prepareBaseBuild(root: string, ref: string): Promise<BaseBuild> {
  const git = (...args: string[]) => run('git', args, { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  let commit: string;
  try {
    commit = (await git('rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`)).stdout.trim();
  } catch {
    throw new Error(`--against ${ref}: not a commit of this repository (git rev-parse found nothing)`);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-against-'));
  await git('worktree', 'add', '--detach', '--force', dir, commit);
  const remove = async () => {
    await git('worktree', 'remove', '--force', dir).catch(() => rmSync(dir, { recursive: true, force: true }));
    await git('worktree', 'prune').catch(() => {});
  };
  try {
    rmSync(path.join(dir, 'bench'), { recursive: true, force: true });
    cpSync(path.join(root, 'bench'), path.join(dir, 'bench'), { recursive: true });
    const lock = (at: string) => readFileSync(path.join(at, 'package-lock.json'), 'utf8');
    if (lock(dir) === lock(root) && existsSync(path.join(root, 'node_modules'))) {
      symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    } else {
      console.log(
        `--against ${ref}: its package-lock.json differs from the working tree's; installing its packages (npm ci)`,
      );
      await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    }
  } catch (error) {
    await remove();
    throw error;
  }
  console.log(`--against ${ref}: commit ${commit} in ${dir}`);
  return { dir, commit, remove };
}
