import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SIDECAR_FILE } from '../../src/storage/sidecar.js';
import { openTestMemory, recordingLogger, type TestMemory, tempDir } from '../support.js';
import { assertNoPollution, bounded, timeBoxed } from './hostile.js';

// memories.idx is derived, and a start reads it before the log: whatever its bytes (a disk that
// damaged it, a copy cut short, a sync tool, another version), a start answers as a start from
// the log does. (test/storage/sidecar.test.ts crafts each fault a check exists for; this throws
// bytes at all of them.)

const QUERIES = ['kitten rug', 'billing friday', 'coffee', 'note 7', 'tuesday meeting'];
const WORDS = [
  'kitten sleeps on the rug after lunch',
  'the deploy of the billing service failed on friday',
  'Ralph prefers tea over coffee in the morning',
  'the billing team moved the meeting to tuesday',
];

async function answers(t: TestMemory) {
  const out = [];
  for (const query of QUERIES) out.push(await t.memory.recall.search({ query, top_k: 5 }));
  return out;
}

/** A data dir of 40 memories with the sidecar its close wrote, and what a start answers. */
let template: string;
let expected: unknown;
let now: number;
/** The sidecar as the close wrote it. */
let original: Buffer;
/** Runs that started from the (damaged or not) sidecar rather than the log. */
let used = 0;

before(async () => {
  template = tempDir('mnemo-fuzz-sidecar-');
  const first = await openTestMemory({}, template, { sidecarMinLines: 0 });
  for (let i = 0; i < 40; i++) {
    await first.memory.writing.save({ content: `${WORDS[i % WORDS.length]} (note ${i})` });
    first.clock.advanceDays(0.2);
  }
  expected = await answers(first);
  now = first.clock.now;
  await first.opened.close();
  original = fs.readFileSync(path.join(template, SIDECAR_FILE));
});

after(() => fs.rmSync(template, { recursive: true, force: true }));

/** Bytes changed, the file cut short or grown. */
const damage = fc.record({
  changes: fc.array(fc.record({ at: fc.nat(), byte: fc.nat({ max: 255 }) }), { maxLength: 8 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
  grow: fc.option(fc.uint8Array({ maxLength: 64 }), { nil: undefined }),
});

describe('fuzz: a sidecar of damaged bytes (src/storage/sidecar.ts, log-sidecar.ts)', () => {
  it('a start from it answers as a start from the log', async () => {
    await fc.assert(
      fc.asyncProperty(
        damage,
        timeBoxed(8, async ({ changes, cut, grow }) => {
          // In the template itself: the sidecar names the log's inode, which a copy would change.
          const file = path.join(template, SIDECAR_FILE);
          let bytes = Buffer.from(original);
          for (const { at, byte } of changes) bytes[at % bytes.length] = byte;
          if (cut !== undefined) bytes = bytes.subarray(0, cut % (bytes.length + 1));
          if (grow !== undefined) bytes = Buffer.concat([bytes, grow]);
          fs.writeFileSync(file, bytes);
          try {
            const log = recordingLogger();
            const again = await openTestMemory({}, template, {
              sidecarMinLines: 1_000_000,
              logger: log.logger,
            });
            try {
              again.clock.now = now;
              assert.deepEqual(await answers(again), expected);
            } finally {
              await again.opened.close();
            }
            if (log.entries().some((e) => /started from memories.idx/.test(e.msg))) used++;
            assertNoPollution();
          } finally {
            fs.writeFileSync(file, original);
          }
        }),
      ),
      // The first run damages nothing: the start then uses the sidecar (checked below).
      { ...bounded(60), examples: [[{ changes: [], cut: undefined, grow: undefined }]] },
    );
    assert.ok(used > 0, 'no run started from the sidecar');
  });
});
