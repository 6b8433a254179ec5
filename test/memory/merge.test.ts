import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MERGED_STRENGTH_CAP, mergeMemories } from '../../src/memory/merge.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';

const T = 1_796_115_600; // 2026-12-01T09:00:00Z

interface Fields {
  tags?: string[];
  entities?: string[];
  source?: string | null;
  context?: string | null;
  use_count?: number;
  strength?: number;
  last_used?: number;
}

const memory = (id: string, content: string, at: number, fields: Fields = {}): MemoryRecord => {
  const { tags = [], source = null, context = null, ...rest } = fields;
  return newMemoryRecord(id, content, at, {
    ...rest,
    meta: { tags, source, context, extra: {} },
  });
};

describe('mergeMemories content', () => {
  it('drops sentences already said, across case, space and punctuation variants', () => {
    const plan = mergeMemories([
      memory('a', 'Use pnpm for installs. The CI runs on Node 20.', T),
      memory('b', 'use   PNPM for installs!  Deploys go through Fly.', T + 10),
      memory('c', 'The CI runs on node 20', T + 20),
    ]);
    assert.equal(
      plan.content,
      'Use pnpm for installs. The CI runs on Node 20.\nDeploys go through Fly.',
    );
  });

  it('drops a repeat inside one member too, and keeps the rest of its text as written', () => {
    const plan = mergeMemories([
      memory('a', 'Backups run nightly. Backups run nightly. They go to S3.', T),
      memory('b', 'Restores take an hour.', T + 1),
    ]);
    assert.equal(plan.content, 'Backups run nightly. They go to S3.\nRestores take an hour.');
  });

  it('orders members by created_at, then id, whatever order they come in', () => {
    const plan = mergeMemories([
      memory('z', 'Third thing.', T + 100),
      memory('b', 'Second thing.', T),
      memory('a', 'First thing.', T),
    ]);
    assert.equal(plan.content, 'First thing.\nSecond thing.\nThird thing.');
  });

  it("keeps a newer member's wording out when the older one said it first", () => {
    const plan = mergeMemories([
      memory('new', 'The API key rotates MONTHLY.', T + 50),
      memory('old', 'The API key rotates monthly', T),
    ]);
    assert.equal(plan.content, 'The API key rotates monthly');
  });

  it('does not take a title such as "Dr." for a repeated sentence', () => {
    const plan = mergeMemories([
      memory('a', 'Dr. Smith owns billing.', T),
      memory('b', 'Dr. Jones owns search. J. R. Tolkien wrote it.', T + 1),
    ]);
    assert.equal(
      plan.content,
      'Dr. Smith owns billing.\nDr. Jones owns search. J. R. Tolkien wrote it.',
    );
  });

  it('keeps paragraph breaks inside a member', () => {
    const plan = mergeMemories([
      memory('a', 'Step one.\n\nStep two.', T),
      memory('b', 'Step one.\n\nStep three.', T + 1),
    ]);
    assert.equal(plan.content, 'Step one.\n\nStep two.\nStep three.');
  });

  it('keeps unicode text intact, and folds its case and composition to find repeats', () => {
    const plan = mergeMemories([
      memory('a', 'Die Straße ist gesperrt. 日本語の文です。Café au lait ☕ — 🚀 ok.', T),
      memory('b', 'DIE STRASSE IST GESPERRT! 二つ目の文。 cafe\u0301 au lait ☕ — 🚀 ok', T + 1),
    ]);
    assert.equal(
      plan.content,
      'Die Straße ist gesperrt. 日本語の文です。Café au lait ☕ — 🚀 ok.\n二つ目の文。',
    );
  });
});

describe('mergeMemories fields', () => {
  it('unites tags and entities in first-seen order, one spelling per case-insensitive value', () => {
    const plan = mergeMemories([
      memory('b', 'B.', T + 1, {
        tags: ['Deploy', 'ci', 'infra/aws'],
        entities: ['Fly', 'GitHub'],
      }),
      memory('a', 'A.', T, { tags: ['ci', 'Infra/AWS'], entities: ['github', 'Node'] }),
    ]);
    assert.deepEqual(plan.tags, ['ci', 'Infra/AWS', 'Deploy']);
    assert.deepEqual(plan.entities, ['github', 'Node', 'Fly']);
  });

  it('sums use counts, takes the earliest creation, the latest use, the first source and context', () => {
    const plan = mergeMemories([
      memory('a', 'A.', T, { use_count: 2, last_used: T + 500 }),
      memory('b', 'B.', T + 100, { use_count: 3, source: 'slack', last_used: T + 900 }),
      memory('c', 'C.', T + 200, { source: 'email', context: 'oncall', last_used: T + 300 }),
    ]);
    assert.equal(plan.use_count, 5);
    assert.equal(plan.created_at, T);
    assert.equal(plan.last_used, T + 900);
    assert.equal(plan.source, 'slack');
    assert.equal(plan.context, 'oncall');
  });

  it('gives no source or context when no member has one', () => {
    const plan = mergeMemories([memory('a', 'A.', T), memory('b', 'B.', T)]);
    assert.equal(plan.source, null);
    assert.equal(plan.context, null);
  });
});

describe('mergeMemories strength', () => {
  it("is the strongest member's plus 0.1 for each other member that was used", () => {
    const plan = mergeMemories([
      memory('a', 'A.', T, { strength: 1.2, use_count: 1 }),
      memory('b', 'B.', T + 1, { strength: 1.5, use_count: 0 }),
      memory('c', 'C.', T + 2, { strength: 1, use_count: 3 }),
      memory('d', 'D.', T + 3, { strength: 1, use_count: 0 }),
    ]);
    assert.equal(plan.strength, 1.7);
  });

  it("does not count the strongest member's own uses", () => {
    const plan = mergeMemories([
      memory('a', 'A.', T, { strength: 1.5, use_count: 9 }),
      memory('b', 'B.', T + 1, { strength: 1, use_count: 0 }),
    ]);
    assert.equal(plan.strength, 1.5);
  });

  it('is capped at MERGED_STRENGTH_CAP and never below 1', () => {
    assert.equal(MERGED_STRENGTH_CAP, 2);
    const used = (id: string, at: number) => memory(id, `${id}.`, at, { use_count: 1 });
    const capped = mergeMemories([
      memory('a', 'A.', T, { strength: 1.9 }),
      used('b', T + 1),
      used('c', T + 2),
      used('d', T + 3),
    ]);
    assert.equal(capped.strength, MERGED_STRENGTH_CAP);
    const floor = mergeMemories([
      memory('a', 'A.', T, { strength: 0.5 }),
      memory('b', 'B.', T + 1, { strength: 0.2 }),
    ]);
    assert.equal(floor.strength, 1);
  });
});

describe('mergeMemories input', () => {
  it('needs at least two distinct memories', () => {
    assert.throws(() => mergeMemories([]), /at least 2 memories, got 0/);
    assert.throws(() => mergeMemories([memory('a', 'A.', T)]), /at least 2 memories, got 1/);
    assert.throws(
      () => mergeMemories([memory('a', 'A.', T), memory('a', 'A again.', T + 1)]),
      /listed twice/,
    );
  });
});
