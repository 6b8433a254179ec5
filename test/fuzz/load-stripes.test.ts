// A long load's workers (src/search/load-words.ts) read memories.jsonl in stripes, each the lines
// that start in it: whatever the log holds (any line, any length, anywhere a stripe ends), every
// memory line's words are sent once, as the main thread would read them, and nothing else.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { documentOf } from '../../src/search/document.js';
import { LoadWords, TAIL_BYTES } from '../../src/search/load-words.js';
import { Tokenizer } from '../../src/search/tokenizer.js';
import { isTombstone, newMemoryRecord, toMemoryRecord } from '../../src/storage/records.js';
import { tempDir } from '../support.js';
import { bounded, hostileJson, hostileText, timeBoxed } from './hostile.js';

const T0 = 1_767_225_600;

/** One line of a log (without its newline): a memory, or anything else a log may hold. */
const line: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.nat(999), hostileText, fc.constantFrom(undefined, 'default', 'other'))
    .map(([i, content, namespace]) =>
      JSON.stringify({ ...newMemoryRecord(`m-${i}`, content, T0), namespace }),
    ),
  fc.nat(999).map((i) => JSON.stringify({ id: `m-${i}`, _deleted: true })),
  hostileJson.map((value) => JSON.stringify(value) ?? 'null'),
  hostileText.map((text) => text.replace(/[\n\r]/g, ' ')),
  fc.constant(''),
);

/** What the main thread reads of a line: a memory's words, or nothing for any other line. */
function expectedWords(text: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (isTombstone(value)) return undefined;
    const tokenizer = new Tokenizer();
    const words = documentOf(toMemoryRecord(value), undefined).words;
    return tokenizer.termIds(words).map((id) => tokenizer.vocabulary()[id] as string);
  } catch {
    return undefined;
  }
}

describe('fuzz: a long load read in stripes', () => {
  const dir = tempDir('mnemo-fuzz-stripes-');
  let n = 0;

  it('sends every memory line’s words once, and nothing of any other line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 8, max: 3000 }),
        timeBoxed(8, async (lines, torn, workers, stripeBytes) => {
          const file = path.join(dir, `log-${n++}.jsonl`);
          const text = Buffer.from(`${lines.join('\n')}\n${torn ? '{"id":"torn","con' : ''}`);
          fs.writeFileSync(file, text);
          const stems: string[] = [];
          const ids = new Map<string, number>();
          const words = new LoadWords(
            { path: file, ino: fs.statSync(file).ino, from: 0, to: text.length },
            {
              learn: (stem) => {
                let id = ids.get(stem);
                if (id === undefined) {
                  id = stems.push(stem) - 1;
                  ids.set(stem, id);
                }
                return id;
              },
              generation: 0,
            },
            { workers, stripeBytes },
          );
          try {
            for (let at = 0; ; ) {
              const nl = text.indexOf(10, at);
              if (nl === -1) break;
              await words.reached(nl + 1);
              const sent = words.take(at, nl - at);
              const expected = expectedWords(text.toString('utf8', at, nl));
              // A line that runs past its stripe's end by more than the tail a worker reads is
              // left to the main thread.
              const stripeEnd = Math.min(
                (Math.floor(at / stripeBytes) + 1) * stripeBytes,
                text.length,
              );
              const mayBeLeft = nl + 1 > stripeEnd + TAIL_BYTES;
              if (!(mayBeLeft && sent === undefined)) {
                assert.equal(sent !== undefined, expected !== undefined, `line at ${at}`);
              }
              if (sent)
                assert.deepEqual(
                  [...sent.terms].map((id) => stems[id]),
                  expected,
                );
              at = nl + 1;
            }
            assert.equal(words.take(text.length, 1), undefined);
          } finally {
            words.stop();
            fs.rmSync(file, { force: true });
          }
        }),
      ),
      bounded(40),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
