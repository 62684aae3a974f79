import { readFileSync } from 'node:fs';

const ticksPerSecond = 100;

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; null where there
 * is no /proc. Lets a benchmark tell a CPU-bound shortfall from one of waiting.
 */
export function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return null;
  }
}
