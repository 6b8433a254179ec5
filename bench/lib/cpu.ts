// What a process has spent, read from /proc (Linux): its CPU time so far, its peak resident set,
// and its TCP connections to a port (to find the PostgreSQL backends serving it).
import fs from 'node:fs';

/** Clock ticks a second of /proc/PID/stat (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/** User + system CPU time of process `pid` so far, in ms (0 once it is gone). */
export function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: state, then utime and stime at 11 and 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Process `pid`'s peak resident set (VmHWM) in MB, or undefined when it cannot be read. */
export function peakRssMb(pid: number | null | undefined): number | undefined {
  if (pid === null || pid === undefined) return undefined;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** The local ports of process `pid`'s TCP connections to remote port `port`. */
export function portsTo(pid: number, port: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1] as string);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const row of text.split('\n').slice(1)) {
      const f = row.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9] as string)) continue;
      const remote = Number.parseInt(f[2]?.split(':')[1] ?? '', 16);
      if (remote === port) out.push(Number.parseInt(f[1]?.split(':')[1] ?? '', 16));
    }
  }
  return out;
}
