import { readFileSync } from 'node:fs';

/**
 * CPU time the hypervisor gave to other guests ("steal", /proc/stat) as a share of all CPU time
 * since `from`. On a shared virtual machine it is the noise no load average shows: while it is
 * above a few percent, every figure of the run is slowed unevenly. Null where /proc/stat is missing.
 */
export function cpuTimes(): number[] | null {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0]!;
    return line.trim().split(/\s+/).slice(1).map(Number);
  } catch {
    return null;
  }
}

export function stealShare(from: number[] | null, to: number[] | null = cpuTimes()): number | null {
  if (!from || !to) return null;
  const delta = to.map((value, index) => value - (from[index] ?? 0));
  // Fields: user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user).
  const total = delta.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return total > 0 ? (delta[7] ?? 0) / total : null;
}
