// The question save_memory puts to the person: its size is bounded whatever the memories hold,
// and only the choices it offered are read back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  conflictQuestion,
  MAX_ASKED,
  readAnswers,
  SHOWN_CHARS,
} from '../../src/tools/conflict-question.js';

const memories = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ memory_id: `m${i}`, content: `Earlier text ${i}.` }));

describe('the conflict question', () => {
  it('shows each text on one line, cut to a bound, and asks about a few pairs at most', () => {
    const long = `${'word '.repeat(4_000)}\n\nend`;
    const question = conflictQuestion(long, [{ memory_id: 'a', content: long }, ...memories(5)]);
    const fields = Object.entries(question.requestedSchema.properties);
    assert.equal(fields.length, MAX_ASKED);
    assert.ok(question.message.length < SHOWN_CHARS + 200, `${question.message.length}`);
    assert.ok(!question.message.includes('\n'));
    const first = fields[0]?.[1] as { title: string; oneOf: { const: string }[] };
    assert.ok(first.title.length <= SHOWN_CHARS + 12 && first.title.endsWith('…"'));
    assert.deepEqual(
      first.oneOf.map((o) => o.const),
      ['new', 'old', 'both'],
    );
    assert.equal(question.requestedSchema.required, undefined);
  });

  it('one pair: merge is offered and the choice is required', () => {
    const question = conflictQuestion('New text.', memories(1));
    assert.deepEqual(question.requestedSchema.required, ['pair_1']);
    const field = question.requestedSchema.properties.pair_1 as { oneOf: { const: string }[] };
    assert.ok(field.oneOf.some((o) => o.const === 'merge'));
  });

  it('reads back only a choice offered for a field asked', () => {
    const three = memories(3);
    assert.deepEqual(
      readAnswers(three, { pair_1: 'old', pair_2: 'merge', pair_3: 7, pair_4: 'new' }),
      [{ memory_id: 'm0', keep: 'old' }],
    );
    assert.deepEqual(readAnswers(memories(1), { pair_1: 'merge' }), [
      { memory_id: 'm0', keep: 'merge' },
    ]);
    const inherited = Object.create({ pair_1: 'new' }) as Record<string, unknown>;
    assert.deepEqual(readAnswers(three, inherited), []);
    assert.deepEqual(readAnswers(three, undefined), []);
    assert.deepEqual(readAnswers(three, { pair_1: 'toString' }), []);
  });
});
