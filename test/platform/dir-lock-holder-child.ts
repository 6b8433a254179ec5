// A lock holder that stalls, as a `mnemo gc --apply` suspended with Ctrl-Z would: takes the lock,
// says "held" on stdout, then stops itself (SIGSTOP). With `kept` it stalls (or, with `idle`,
// just waits) after the run instead, holding a lock it keeps for the next (keepMs). The test ends
// it with SIGKILL.
import fs from 'node:fs';
import path from 'node:path';
import { DirLock } from '../../src/platform/dir-lock.js';

const [dir = '', mode = 'inside'] = process.argv.slice(2);
const lock = new DirLock(dir, path.join(dir, '.lock'), { keepMs: mode === 'inside' ? 0 : 600_000 });

await lock.run(() => {
  if (mode === 'inside') {
    fs.writeSync(1, 'held\n');
    process.kill(process.pid, 'SIGSTOP');
  }
});
fs.writeSync(1, 'held\n');
if (mode === 'kept') process.kill(process.pid, 'SIGSTOP');
// `idle`: alive and keeping the lock (its idle timer never holds the process up). Past the brief
// keep of a holder that cannot watch for requests, it says whether the lock is still its own.
setTimeout(() => {
  let pid: unknown;
  try {
    pid = JSON.parse(fs.readFileSync(path.join(dir, '.lock', 'owner'), 'utf8')).pid;
  } catch {
    // Let go: no lock, or another's.
  }
  fs.writeSync(1, pid === process.pid ? 'kept\n' : 'lost\n');
}, 50);
setInterval(() => {}, 1_000);
