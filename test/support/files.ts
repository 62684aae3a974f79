import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';

/** Whether `file` is a regular file this process may execute (a server binary the tests start). */
export async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The last `lines` lines of a log file, for an error message; empty when it cannot be read. */
export async function tail(file: string, lines = 40): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
