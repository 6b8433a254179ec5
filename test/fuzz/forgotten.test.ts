import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { ForgottenIndex } from '../../src/storage/jsonl/forgotten.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { tempDir } from '../support.js';
import { assertNoPollution, bounded, hostileJson, hostileText, timeBoxed } from './hostile.js';

// forgotten.jsonl holds the last copy of each memory gc or delete_memory removed, and is read
// back to restore one. Its lines may be anything (a write cut short with an append glued on, a
// hand edit, a sync tool): it is read without throwing, each whole record stays restorable, and
// a line costs time linear in its length.

const T0 = 1_767_225_600;

/** A forgotten copy as the store writes one; `extra` may hold an object of its own with an id. */
function forgottenLine(id: string, extra: unknown): string {
  const record = newMemoryRecord(id, `the memory ${id}`, T0, {
    meta: { tags: [], source: null, context: null, extra: { inner: extra } },
  });
  return JSON.stringify({ ...record, forgotten_at: T0 });
}

/** What a copy's meta may hold: anything, or objects that open as a record does. */
const extraOf = fc.oneof(
  hostileJson,
  fc.constantFrom({ id: 'nested' }, [{ id: 'n1', x: { id: 'n2' } }], { id: '{"id":"n3"}' }),
);

/** What a line of the file may be: a whole copy, one glued after a torn one, or garbage. */
const lineOf = fc.oneof(
  fc.record({ kind: fc.constant('whole' as const), extra: extraOf }),
  fc.record({
    kind: fc.constant('glued' as const),
    extra: extraOf,
    cut: fc.nat({ max: 400 }),
  }),
  fc.record({ kind: fc.constant('garbage' as const), text: fc.oneof(hostileText, hostileJson) }),
);

/** The characters JSON.parse is handed while `run` runs. */
async function parsedChars(run: () => Promise<void>): Promise<number> {
  const parse = JSON.parse;
  let chars = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
    chars += String(text).length;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    await run();
  } finally {
    JSON.parse = parse;
  }
  return chars;
}

describe('fuzz: forgotten.jsonl of any lines (src/storage/jsonl/forgotten.ts)', () => {
  it('reads any file, and every whole copy, glued or not, can be restored', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineOf, { minLength: 1, maxLength: 10 }),
        timeBoxed(3, async (plan) => {
          const dir = tempDir('mnemo-fuzz-forgotten-');
          const file = path.join(dir, 'forgotten.jsonl');
          const index = new ForgottenIndex(file, pino({ level: 'silent' }));
          try {
            const restorable: string[] = [];
            const lines = plan.map((line, i) => {
              if (line.kind === 'garbage') {
                const text = typeof line.text === 'string' ? line.text : JSON.stringify(line.text);
                return (text ?? 'null').replace(/[\r\n]/g, ' ');
              }
              const id = `m${i}`;
              restorable.push(id);
              const whole = forgottenLine(id, line.extra);
              if (line.kind === 'whole') return whole;
              // The fragment of a copy cut short, the next append glued on.
              return forgottenLine(`torn${i}`, null).slice(0, line.cut + 1) + whole;
            });
            fs.writeFileSync(file, `${lines.join('\n')}\n`);
            for (const id of restorable) {
              assert.equal((await index.find('default', id))?.id, id, `${id} not restorable`);
            }
            await index.recordsOf('default', () => false);
            assertNoPollution();
          } finally {
            index.close();
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }),
      ),
      bounded(150),
    );
  });

  it('a line of many record openings is searched for a glued record in linear time', async (t) => {
    const dir = tempDir('mnemo-forgotten-');
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'forgotten.jsonl');
    // Every opening parses on to the line's end before it fails: trying each in turn parsed
    // 120 KB of it about 7,500 times (2.4 s).
    const line = `x${'{"id":"a","x":['.repeat(8_000)}`;
    fs.writeFileSync(file, `${line}\n${forgottenLine('b', null)}\n`);
    const index = new ForgottenIndex(file, pino({ level: 'silent' }));
    t.after(() => index.close());
    let found: string | undefined;
    const chars = await parsedChars(async () => {
      found = (await index.find('default', 'b'))?.id;
    });
    assert.equal(found, 'b');
    assert.ok(chars <= 6 * line.length, `${chars} characters parsed for a line of ${line.length}`);
  });
});
