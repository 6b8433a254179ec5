// The worker that fills in the rank facts a load left unknown reads the log backwards, a block at
// a time: whatever the log holds (records, deletions, other namespaces, garbage, lines longer
// than a block, a torn tail), it sends each memory line of the default namespace it can read
// whole, latest first, with the facts its record gives, and nothing else.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { normalizedContentHash } from '../../src/search/lexical-index.js';
import { RANK_FACTS, rankFactsOf } from '../../src/search/rank-facts.js';
import { readRankFacts } from '../../src/search/rank-facts-fill.js';
import { isTombstone, newMemoryRecord, toMemoryRecord } from '../../src/storage/records.js';
import { bounded, timeBoxed } from '../fuzz/hostile.js';
import { T0, testDir } from '../support.js';

const TEXTS = [
  'Caroline moved to Boston in May 2023.',
  'Thanks, Melanie! Jon and Gina painted the dance studio yesterday',
  'she went hiking last summer with Maria and John',
  'the kettle boils water',
  'Zürich café ÉTÉ: Jon’s trip, 3 weeks ago',
];

/** A line of the log, as bytes (no newline). */
const line = fc.oneof(
  fc
    .record({
      id: fc.integer({ min: 0, max: 30 }),
      text: fc.constantFrom(...TEXTS),
      pad: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })),
      entities: fc.subarray(['Caroline', 'Jon', 'LGBTQ']),
      source: fc.constantFrom(null, 'chat', 'mail'),
      ns: fc.constantFrom(undefined, 'default', 'other'),
    })
    .map(({ id, text, pad, entities, source, ns }) => {
      const record = newMemoryRecord(`m-${id}`, `${text}${' x'.repeat(pad)}`, T0 + id, {
        entities,
        meta: { tags: [], source, context: null, extra: {} },
      });
      return Buffer.from(JSON.stringify(ns === undefined ? record : { ...record, namespace: ns }));
    }),
  fc
    .integer({ min: 0, max: 30 })
    .map((id) => Buffer.from(JSON.stringify({ id: `m-${id}`, _deleted: true }))),
  fc
    .constantFrom('', '{"id": "broken", "content": ', '42', 'null', '[]', '{"id":"x","content":7}')
    .map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes.filter((b) => b !== 0x0a))),
);

/** What the worker must send for `lines` read with blocks of `block` bytes, latest first. */
function expected(lines: readonly Buffer[], block: number) {
  const out: { id: string; hash: number; facts: number[] }[] = [];
  let at = 0;
  lines.forEach((bytes) => {
    // A line is read whole only when a block holds it with the newline before it (or it is the
    // log's first, with none before).
    const whole = bytes.length + (at === 0 ? 1 : 2) <= block;
    at += bytes.length + 1;
    if (!whole || bytes.length === 0) return;
    try {
      const value: unknown = JSON.parse(bytes.toString('utf8'));
      if (isTombstone(value)) return;
      const ns = (value as { namespace?: unknown }).namespace;
      if (ns !== undefined && ns !== 'default') return;
      const record = toMemoryRecord(value);
      out.push({
        id: record.id,
        hash: normalizedContentHash(record.content),
        facts: rankFactsOf(record),
      });
    } catch {
      // Not a memory.
    }
  });
  return out.reverse();
}

describe('the rank facts worker', () => {
  it('property: sends every memory line of the default namespace it can read whole, latest first', {
    timeout: 120_000,
  }, async (t) => {
    const dir = testDir(t);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.constantFrom(64, 200, 1000, 4096, 1 << 20),
        fc.boolean(),
        timeBoxed(6, async (lines: Buffer[], block: number, torn: boolean) => {
          const file = path.join(dir, `memories-${run++}.jsonl`);
          const body = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
          fs.writeFileSync(
            file,
            torn ? Buffer.concat([body, Buffer.from('{"id":"torn","con')]) : body,
          );
          const { ino, size } = fs.statSync(file);
          const sent = await readRankFacts({
            path: file,
            ino,
            from: 0,
            to: size,
            blockBytes: block,
          });
          const got = sent.ids.map((id, i) => ({
            id,
            hash: sent.hashes[i] as number,
            facts: [...sent.facts.subarray(i * RANK_FACTS, (i + 1) * RANK_FACTS)],
          }));
          assert.deepEqual(got, expected(lines, block));
        }),
      ),
      bounded(30),
    );
  });

  it('reads a line that just fits a block with the newline before it, and skips one a byte longer', async (t) => {
    const dir = testDir(t);
    const block = 600;
    /** A memory line of exactly `bytes` bytes. */
    const sized = (id: string, bytes: number) => {
      const json = (pad: number) =>
        JSON.stringify(newMemoryRecord(id, `Jon paints${'x'.repeat(pad)}`, T0));
      return Buffer.from(json(bytes - json(0).length));
    };
    for (const [first, second] of [
      [block - 1, block - 2],
      [block, block - 1],
      [block - 2, block + 1],
    ] as const) {
      const lines = [sized('a', first), sized('b', second), sized('c', 500)];
      const file = path.join(dir, `memories-${first}-${second}.jsonl`);
      fs.writeFileSync(file, Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
      const { ino, size } = fs.statSync(file);
      const sent = await readRankFacts({ path: file, ino, from: 0, to: size, blockBytes: block });
      assert.deepEqual(
        sent.ids,
        expected(lines, block).map((m) => m.id),
        `lines of ${first} and ${second} bytes`,
      );
    }
  });

  it('sends nothing of a file that is not the one the store read', async (t) => {
    const file = path.join(testDir(t), 'memories.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(newMemoryRecord('a', 'Jon paints', T0))}\n`);
    const { ino, size } = fs.statSync(file);
    const sent = await readRankFacts({ path: file, ino: ino + 1, from: 0, to: size });
    assert.equal(sent.ids.length, 0);
    const read = await readRankFacts({ path: file, ino, from: 0, to: size });
    assert.deepEqual(read.ids, ['a']);
  });
});
