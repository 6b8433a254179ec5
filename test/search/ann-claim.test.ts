// Two processes on one data dir build vectors.ann once: the one that claims it builds, the other
// searches exactly until the file appears and then takes it in. A claim whose owner is gone is
// taken over. The second "process" is a second AnnIndex signing its claim with another pid.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ANN_CLAIM_FILE, AnnClaim } from '../../src/search/ann-claim.js';
import { verifyAnnFile } from '../../src/search/ann-file.js';
import { ANN_FILE, AnnIndex } from '../../src/search/ann-index.js';
import { recordingLogger, testDir } from '../support.js';
import { DIMS, MODEL, testVectors } from './ann-support.js';

/** A pid no process has here (above Linux's pid_max). */
const OTHER_PID = 2 ** 23 + 7;

describe('vectors.ann.claim', () => {
  it('one process builds; the other searches exactly, then takes the file in', async (t) => {
    const dir = testDir(t);
    const a = testVectors(3000, 3);
    const b = testVectors(3000, 3);
    const alive = (pid: number) => pid === process.pid || pid === OTHER_PID;
    // Another process claims the build first (a live pid here).
    const holder = new AnnClaim(dir, { pid: OTHER_PID, isAlive: alive });
    assert.equal(holder.take(), true);
    const { logger: loggerB, entries: entriesB } = recordingLogger();
    const checks: (() => void)[] = [];
    const second = new AnnIndex(b.source, {
      threshold: 1000,
      dataDir: dir,
      logger: loggerB,
      claim: { isAlive: alive },
      schedule: (check) => checks.push(check),
    });
    t.after(() => second.close());
    await second.open();
    assert.equal(second.status()?.state, 'exact', 'the second does not build');
    assert.equal(await second.search(b.draw(), -1, 10), undefined, 'the second searches exactly');
    assert.equal(checks.length, 1, 'the second looks again later');
    // Looked again while the claim is held and no file is there: it keeps waiting.
    checks.shift()?.();
    assert.equal(second.status()?.state, 'exact');
    assert.equal(checks.length, 1);

    // The holder's build: its file appears, its claim goes.
    holder.release();
    const { logger: loggerA } = recordingLogger();
    const first = new AnnIndex(a.source, {
      threshold: 1000,
      dataDir: dir,
      logger: loggerA,
      claim: { isAlive: alive },
    });
    t.after(() => first.close());
    await first.open();
    await first.settled();
    assert.ok(!fs.existsSync(path.join(dir, ANN_CLAIM_FILE)), 'the claim goes with the build');
    const { sha256 } = verifyAnnFile(path.join(dir, ANN_FILE), MODEL, DIMS);

    checks.shift()?.();
    await second.settled();
    assert.equal(second.status()?.state, 'ready');
    assert.ok(await second.search(b.draw(), -1, 10), 'the graph answers in the second');
    assert.equal(verifyAnnFile(path.join(dir, ANN_FILE), MODEL, DIMS).sha256, sha256);
    assert.ok(
      !entriesB().some((e) => e.msg === 'building the approximate index in the background'),
      'the second built nothing',
    );
  });

  it('a claim whose process is gone is taken over', async (t) => {
    const dir = testDir(t);
    fs.writeFileSync(
      path.join(dir, ANN_CLAIM_FILE),
      JSON.stringify({ pid: OTHER_PID, host: os.hostname(), token: 'gone' }),
    );
    const v = testVectors(1500, 4);
    const { logger } = recordingLogger();
    const ann = new AnnIndex(v.source, {
      threshold: 1000,
      dataDir: dir,
      logger,
      claim: { isAlive: (pid) => pid === process.pid },
      schedule: () => assert.fail('nothing to wait for'),
    });
    t.after(() => ann.close());
    await ann.open();
    await ann.settled();
    assert.equal(ann.status()?.state, 'ready');
    assert.equal(verifyAnnFile(path.join(dir, ANN_FILE), MODEL, DIMS).count, 1500);
  });

  it("another host's claim counts while it is refreshed", (t) => {
    const dir = testDir(t);
    fs.writeFileSync(
      path.join(dir, ANN_CLAIM_FILE),
      JSON.stringify({ pid: 12, host: `${os.hostname()}-other`, token: 'there' }),
    );
    const written = fs.statSync(path.join(dir, ANN_CLAIM_FILE)).mtimeMs;
    let now = written + 60_000;
    const claim = new AnnClaim(dir, { staleMs: 300_000, now: () => now });
    assert.equal(claim.take(), false);
    assert.equal(claim.heldByOther(), true);
    now = written + 300_001;
    assert.equal(claim.heldByOther(), false);
    assert.equal(claim.take(), true);
    claim.release();
    assert.ok(!fs.existsSync(path.join(dir, ANN_CLAIM_FILE)));
  });

  it('lets go only of its own claim', (t) => {
    const dir = testDir(t);
    const mine = new AnnClaim(dir);
    assert.equal(mine.take(), true);
    // Taken over meanwhile (judged stale elsewhere): the other's claim stays.
    const file = path.join(dir, ANN_CLAIM_FILE);
    fs.writeFileSync(file, JSON.stringify({ pid: 12, host: 'elsewhere', token: 'theirs' }));
    mine.release();
    assert.ok(fs.existsSync(file));
  });
});
