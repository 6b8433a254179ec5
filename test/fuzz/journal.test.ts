import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JOURNAL_FILE, UNREADABLE_SUFFIX } from '../../src/storage/jsonl/journal.js';
import { FILES, JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { recordingLogger, tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  timeBoxed,
  withProtoKey,
} from './hostile.js';

// transaction.json is read before anything else under the lock, at every start and write: a
// record left by a crash is finished from it. What is there may be anything (a hand edit, a sync
// tool, a damaged disk): the store opens whatever it holds.

const T0 = 1_767_225_600;

/** A part with each field possibly of the wrong kind. */
const partish = fc.record(
  {
    file: fc.oneof(
      fc.constantFrom(FILES.memories, FILES.relations, '../x'),
      hostileText,
      hostileJson,
    ),
    ino: fc.oneof(hostileNumber, hostileText, hostileJson),
    start: fc.oneof(hostileNumber, hostileText, hostileJson),
    text: fc.oneof(hostileText, hostileNumber, hostileJson),
  },
  { requiredKeys: [] },
);

const journalText = fc.oneof(
  hostileText,
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .array(fc.oneof(partish, hostileJson), { maxLength: 4 })
    .map((parts) => JSON.stringify({ parts })),
  fc.constantFrom(
    '{"parts":[null]}',
    '{"parts":[{"file":"memories.jsonl","ino":1,"start":0,"text":5}]}',
    '{"parts":{"length":1}}',
    withProtoKey('{"parts":[]}'),
    '{"parts":[',
    '',
  ),
);

/** A part as mnemo writes one: a file name, an inode, a start and the text. */
function wellFormed(part: unknown): boolean {
  const p = part as Record<string, unknown> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.file === 'string' &&
    typeof p.text === 'string' &&
    Number.isInteger(p.ino) &&
    (p.ino as number) >= 0 &&
    Number.isSafeInteger(p.start) &&
    (p.start as number) >= 0
  );
}

/** Whether `text` is whole JSON. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function open(dir: string, logger = recordingLogger().logger): Promise<JsonlStore> {
  return JsonlStore.open({ dataDir: dir, logger, clock: () => T0 });
}

describe('fuzz: a transaction record that is anything (src/storage/jsonl/journal.ts)', () => {
  it('the store opens, keeps its memories, writes again, and keeps a record it did not write', async () => {
    await fc.assert(
      fc.asyncProperty(
        journalText,
        timeBoxed(3, async (text) => {
          const dir = tempDir('mnemo-fuzz-journal-');
          try {
            const memory = newMemoryRecord('kept', 'a memory before the record', T0);
            fs.writeFileSync(path.join(dir, FILES.memories), `${JSON.stringify(memory)}\n`);
            const before = fs.readFileSync(path.join(dir, FILES.memories));
            fs.writeFileSync(path.join(dir, JOURNAL_FILE), text);
            const store = await open(dir);
            try {
              assert.equal(store.memories.get('kept')?.content, memory.content);
              // No part names this log's inode: nothing was appended to it.
              assert.ok(fs.readFileSync(path.join(dir, FILES.memories)).equals(before));
              assert.equal(fs.existsSync(path.join(dir, JOURNAL_FILE)), false, 'record left');
              await store.transact(() => ({
                result: undefined,
                memories: [newMemoryRecord('after', 'written after', T0)],
              }));
              assert.equal(store.memories.get('after')?.content, 'written after');
            } finally {
              store.close();
            }
            // Whole JSON that is no record mnemo wrote is kept, byte for byte; a record cut
            // short (not JSON) is what a crash before the first append leaves, and goes.
            const kept = path.join(dir, `${JOURNAL_FILE}${UNREADABLE_SUFFIX}`);
            const whole = parses(Buffer.from(text, 'utf8').toString('utf8'));
            const parts = whole ? (JSON.parse(text) as { parts?: unknown } | null)?.parts : null;
            const valid = Array.isArray(parts) && parts.every(wellFormed);
            if (whole && !valid) {
              assert.ok(fs.readFileSync(kept).equals(Buffer.from(text, 'utf8')), 'not kept');
            }
            if (!whole) assert.equal(fs.existsSync(kept), false);
            assertNoPollution();
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }),
      ),
      bounded(150),
    );
  });

  it('a part that is not a part: nothing of it is made, the start says so and keeps it', async (t) => {
    const dir = tempDir('mnemo-journal-');
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const text = '{"parts":[{"file":"memories.jsonl","ino":1,"start":0,"text":5}]}';
    fs.writeFileSync(path.join(dir, JOURNAL_FILE), text);
    const log = recordingLogger();
    const store = await open(dir, log.logger);
    store.close();
    const warning = log.warnings().find((w) => w.msg.includes(JOURNAL_FILE))?.msg ?? '';
    assert.match(warning, /is not a record of a write mnemo made \(its part 0 is not a file/);
    assert.match(warning, /nothing of it was made; it is kept as .*transaction\.json\.unreadable/);
    assert.equal(
      fs.readFileSync(path.join(dir, `${JOURNAL_FILE}${UNREADABLE_SUFFIX}`), 'utf8'),
      text,
    );
  });
});
