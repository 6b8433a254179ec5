// When a long load checkpoints its sidecar (checkpoint-pace.ts), on a clock the test moves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CheckpointPace } from '../../src/storage/jsonl/checkpoint-pace.js';

describe('the pace of a long load’s checkpoints', () => {
  it('the first after the first wait; the next once the lines doubled and 3 x the last took', () => {
    const pace = new CheckpointPace(3_000);
    // A load that reads 100 bytes (one line) a millisecond, 1,000,000 lines in all.
    const at = (ms: number) => pace.due(ms, ms * 100, ms, (1_000_000 - ms) * 100);
    assert.equal(at(0), false);
    assert.equal(at(2_999), false);
    assert.equal(at(3_000), true);
    // Taken in 30 ms (held the load 0.01 ms a line), written 1 s later.
    pace.taken(3_000, 3_000, 3_030);
    assert.equal(at(3_500), false, 'not while it is written');
    pace.written(3_000, 4_030);
    // Due at 4,030 + 3 x 1,030 ms, and lines of at least twice 3,000.
    assert.equal(at(7_119), false);
    assert.equal(at(7_120), true);
    const twice = new CheckpointPace(100);
    twice.due(0, 0, 0, 1e9);
    twice.taken(5_000, 0, 1);
    twice.written(0, 1);
    assert.equal(twice.due(200, 1e6, 9_999, 1e9), false, 'fewer than twice the lines');
    assert.equal(twice.due(200, 1e6, 10_000, 1e9), true);
  });

  it('none when the load ends sooner than twice what a take would hold it', () => {
    const pace = new CheckpointPace(1_000);
    pace.due(0, 0, 0, 1e8);
    // A take held the load 1 ms a thousand lines: 100 ms at 100,000 lines.
    pace.taken(10, 0, 0.01);
    pace.written(0, 1);
    // 1e6 bytes read in 2 s: 500 a millisecond. 100,000 bytes left: 200 ms, not 2 x 100 ms.
    assert.equal(pace.due(2_000, 1e6, 100_000, 100_000), true);
    assert.equal(pace.due(2_000, 1e6, 100_000, 99_999), false);
  });
});
