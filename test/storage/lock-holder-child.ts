// A lock holder that stalls inside its critical section, as a `mnemo gc --apply` suspended with
// Ctrl-Z would: takes the lock, says "held" on stdout, then stops itself (SIGSTOP). The test
// ends it with SIGKILL.
import fs from 'node:fs';
import path from 'node:path';
import { DirLock } from '../../src/storage/lock.js';

const [dir = ''] = process.argv.slice(2);
const lock = new DirLock(dir, path.join(dir, '.lock'));

await lock.run(() => {
  fs.writeSync(1, 'held\n');
  process.kill(process.pid, 'SIGSTOP');
});
