import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DirLock } from '../../src/platform/dir-lock.js';
import { ANN_CLAIM_FILE, AnnClaim } from '../../src/search/ann-claim.js';
import { tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  timeBoxed,
} from './hostile.js';

// The lock folder's owner file says which process holds the data dir: a lock whose owner runs on
// this host is never taken over. Whatever else the file says (a crash, a sync tool, a planted
// file), the lock is taken over once stale: a pid of 0 or -1 must not read as a live owner (a
// signal 0 to them answers for a process group, or for every process).

/** A pid that is no process's: not a whole number above 0. */
const noPid = fc.oneof(
  fc.constantFrom(0, -1, -2, 1.5, -0, 2 ** 53, Number.MAX_VALUE, '1', null, true),
  hostileNumber.filter((n) => !(Number.isSafeInteger(n) && n > 0)),
  hostileText,
);

const ownerText = fc.oneof(
  hostileText,
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .record(
      {
        pid: noPid,
        host: fc.oneof(fc.constant(os.hostname()), hostileText),
        start: fc.oneof(hostileNumber, hostileText),
        token: hostileText,
      },
      { requiredKeys: ['pid'] },
    )
    .map((owner) => JSON.stringify(owner)),
  fc.constant(`{"pid":-1,"host":"${os.hostname()}","pad":"${'x'.repeat(1 << 20)}"}`),
);

describe('fuzz: a lock folder whose owner file is anything (src/platform/dir-lock.ts)', () => {
  it('a stale lock that names no live process of this host is taken over', async () => {
    await fc.assert(
      fc.asyncProperty(
        ownerText,
        timeBoxed(4, async (text) => {
          const dir = tempDir('mnemo-fuzz-lock-');
          try {
            const lockPath = path.join(dir, '.lock');
            fs.mkdirSync(lockPath);
            fs.writeFileSync(path.join(lockPath, 'owner'), text);
            const longAgo = new Date(Date.now() - 600_000);
            fs.utimesSync(lockPath, longAgo, longAgo);
            const lock = new DirLock(dir, lockPath, { staleMs: 1, liveStaleMs: 1, waitMs: 400 });
            const signed = await lock.run(
              () =>
                JSON.parse(fs.readFileSync(path.join(lockPath, 'owner'), 'utf8')) as {
                  pid: number;
                },
            );
            assert.equal(signed.pid, process.pid, 'taken over and signed by this process');
            assert.equal(fs.existsSync(lockPath), false, 'released after the run');
            assertNoPollution();
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }),
      ),
      bounded(100),
    );
  });

  it("a claim on the graph's build that names no live process of this host is taken once stale", () => {
    fc.assert(
      fc.property(
        ownerText,
        timeBoxed(3, (text) => {
          const dir = tempDir('mnemo-fuzz-claim-');
          try {
            fs.writeFileSync(path.join(dir, ANN_CLAIM_FILE), text);
            const longAgo = new Date(Date.now() - 600_000);
            fs.utimesSync(path.join(dir, ANN_CLAIM_FILE), longAgo, longAgo);
            const claim = new AnnClaim(dir, { staleMs: 1 });
            assert.equal(claim.take(), true, 'taken');
            claim.release();
            assertNoPollution();
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }),
      ),
      bounded(100),
    );
  });
});
