// One contender of the lock race in lock.test.ts: takes the lock `rounds` times, proves inside
// that nobody else holds it, and with `dieAt` > 0 dies holding it in that round (as kill -9
// would leave it).
import fs from 'node:fs';
import path from 'node:path';
import { DirLock } from '../../src/platform/dir-lock.js';

const [dir = '', roundsArg = '100', dieAtArg = '0'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const dieAt = Number(dieAtArg);
const lock = new DirLock(dir, path.join(dir, '.lock'), { waitMs: 30_000 });
const holder = path.join(dir, 'holder');

for (let i = 0; i < rounds; i++) {
  await lock.run(() => {
    // 'wx' fails if the file exists: somebody else is inside too.
    fs.closeSync(fs.openSync(holder, 'wx'));
    fs.appendFileSync(path.join(dir, 'entries'), `${process.pid}\n`);
    fs.unlinkSync(holder);
    if (i + 1 === dieAt) process.exit(3);
  });
}
