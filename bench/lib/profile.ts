// Self time out of a V8 CPU profile (the .cpuprofile node's --cpu-prof writes): each sample is
// charged to the node it hit, with the time since the sample before it.

export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileTop {
  totalMs: number;
  functions: { name: string; ms: number }[];
  files: { name: string; ms: number }[];
}

/** A file's name short enough to read: its package under node_modules, or its path from src/. */
export function shortFile(url: string): string {
  if (!url) return '(native or idle)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1] as string;
  // The last src/, dist/ or bench/ of the path: a worktree may itself be named bench.
  const own = /^.*\/(src|dist|bench)\/(.*)$/.exec(url);
  return own ? `${own[1]}/${own[2]}` : url.replace(/^file:\/\//, '');
}

function largest(map: Map<string, number>, top: number) {
  return [...map]
    .map(([name, us]) => ({ name, ms: us / 1000 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
}

export function profileTop(profile: CpuProfile, top = 20): ProfileTop {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id);
    if (!frame) return;
    total += us;
    const file = shortFile(frame.url);
    const name = `${frame.functionName || '(anonymous)'} (${file}:${frame.lineNumber + 1})`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    files.set(file, (files.get(file) ?? 0) + us);
  });
  return { totalMs: total / 1000, functions: largest(functions, top), files: largest(files, top) };
}
