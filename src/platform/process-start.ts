// Which process a pid is: a pid is reused, its start time is not. The lock and the approximate
// index's build claim both tell a live owner from a later process given the same pid by it.
import fs from 'node:fs';

/**
 * When a process started, in clock ticks after boot: field 22 of /proc/<pid>/stat (after the
 * command name, which may hold spaces and parentheses). Undefined where there is no /proc.
 */
export function startTime(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}
