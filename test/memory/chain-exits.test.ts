// A supersession chain when one of its memories goes: deleted, archived or forgotten by gc. The
// older memory never points at a memory that is gone; it is current again, or superseded by what
// superseded the one that went.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FactJudge } from '../../src/memory/facts/judge.js';
import type { Memory } from '../../src/memory/index.js';
import { ENGINES, type Engine, engineAbsent, openTestMemory, type TestMemory } from '../support.js';
import { ruleJudge } from './fact-rules.js';

const open = (engine: Engine, judgeFacts: FactJudge = ruleJudge) =>
  openTestMemory({}, undefined, { engine, judgeFacts });

/** A judge by a table of exact contents: newer -> older -> verdict. */
const tableJudge =
  (table: Record<string, Record<string, 'supersedes' | 'conflicts'>>): FactJudge =>
  (statement, candidates) =>
    candidates.flatMap((c) => {
      const kind = table[statement.content]?.[c.content];
      return kind ? [{ id: c.id, kind }] : [];
    });

/** Two memories, the second superseding the first; their ids. */
async function pair(memory: Memory, name: string): Promise<[string, string]> {
  const a = await memory.writing.save({ content: `${name} lives in Oslo.` });
  const b = await memory.writing.save({ content: `${name} lives in Rome.` });
  assert.deepEqual(
    b.supersedes.map((s) => s.memory_id),
    [a.memory_id],
    'the rule judge saw a newer value',
  );
  return [a.memory_id, b.memory_id];
}

const linkOf = (m: TestMemory, id: string, ns = 'default') => {
  const r = m.opened.storeOf(ns).memories.get(id);
  return { status: r?.status, by: r?.superseded_by, supersedes: r?.supersedes };
};

for (const engine of ENGINES) {
  describe(`a supersession chain when a memory leaves it (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    it('deleting the newer memory makes the older one current again, and says so', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const [older, newer] = await pair(m.memory, 'Dana');
      const done = await m.memory.forgetting.delete({ memory_id: newer });
      assert.deepEqual(done, {
        memory_id: newer,
        status: 'deleted',
        superseded_undone: [{ memory_id: older, content: 'Dana lives in Oslo.' }],
      });
      assert.deepEqual(linkOf(m, older), {
        status: 'active',
        by: undefined,
        supersedes: undefined,
      });
      const found = await m.memory.recall.search({ query: 'Dana lives' });
      assert.deepEqual(
        found.results.map((r) => r.memory_id),
        [older],
      );
      // Restored, the newer one does not hide the older one again.
      await m.memory.forgetting.restore({ memory_id: newer });
      assert.deepEqual(linkOf(m, newer), {
        status: 'active',
        by: undefined,
        supersedes: undefined,
      });
      assert.equal(linkOf(m, older).status, 'active');
    });

    it('archiving the newer memory makes the older one current again', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const [older, newer] = await pair(m.memory, 'Dane');
      const done = await m.memory.forgetting.archive({ memory_id: newer });
      assert.deepEqual(
        done.superseded_undone?.map((s) => s.memory_id),
        [older],
      );
      assert.deepEqual(linkOf(m, newer), {
        status: 'archived',
        by: undefined,
        supersedes: undefined,
      });
      assert.equal(linkOf(m, older).status, 'active');
      const again = await m.memory.forgetting.archive({ memory_id: newer });
      assert.equal(again.superseded_undone, undefined, 'already archived: nothing to undo');
    });

    it('deleting the middle of a chain lets the newest supersede the oldest', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const [a, b] = await pair(m.memory, 'Dina');
      const c = await m.memory.writing.save({ content: 'Dina lives in Lima.' });
      assert.deepEqual(
        c.supersedes.map((s) => s.memory_id),
        [b],
      );
      const done = await m.memory.forgetting.delete({ memory_id: b });
      assert.equal(done.superseded_undone, undefined, 'nothing is current again');
      assert.deepEqual(linkOf(m, a), {
        status: 'superseded',
        by: c.memory_id,
        supersedes: undefined,
      });
      assert.deepEqual(linkOf(m, c.memory_id).supersedes, [a]);
      // And deleting the oldest lets go of it.
      await m.memory.forgetting.delete({ memory_id: a });
      assert.equal(linkOf(m, c.memory_id).supersedes, undefined);
    });

    it('gc: a dry run names what would be current again, the run does it', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const [older, newer] = await pair(m.memory, 'Eve');
      m.clock.advanceDays(400);
      // Both faded: the older goes too, so nothing is current again.
      const both = await m.memory.forgetting.gc({ dry_run: true });
      assert.deepEqual([...both.memory_ids].sort(), [older, newer].sort());
      assert.equal(both.superseded_undone, undefined);
      // The older one used again today: only the newer one fades.
      await m.memory.writing.touch({ memory_id: older, boost_strength: true });
      const dry = await m.memory.forgetting.gc({ dry_run: true });
      assert.deepEqual(dry.memory_ids, [newer]);
      assert.deepEqual(
        dry.superseded_undone?.map((s) => s.memory_id),
        [older],
      );
      assert.equal(linkOf(m, older).status, 'superseded', 'a dry run writes nothing');
      const run = await m.memory.forgetting.gc({ dry_run: false });
      assert.deepEqual(
        run.superseded_undone?.map((s) => s.memory_id),
        [older],
      );
      assert.deepEqual(linkOf(m, older), {
        status: 'active',
        by: undefined,
        supersedes: undefined,
      });
      assert.equal(m.store.memories.has(newer), false);
    });

    it('a conflict merged: the merged memory supersedes what its side had superseded', async (t) => {
      const A = 'Gus lives in Oslo.';
      const B = 'Gus lives in Rome.';
      const C = 'Gus never lived in Rome.';
      const m = await open(
        engine,
        tableJudge({ [B]: { [A]: 'supersedes' }, [C]: { [B]: 'conflicts' } }),
      );
      t.after(() => m.close());
      const a = await m.memory.writing.save({ content: A });
      const b = await m.memory.writing.save({ content: B });
      const c = await m.memory.writing.save({ content: C });
      assert.deepEqual(
        b.supersedes.map((s) => s.memory_id),
        [a.memory_id],
      );
      assert.deepEqual(
        c.conflicts.map((s) => s.memory_id),
        [b.memory_id],
      );
      const settled = await m.memory.conflicts.settle({
        memory_id: c.memory_id,
        other_id: b.memory_id,
        keep: 'merge',
        content: 'Gus lived in Rome for a while, or says he never did.',
      });
      const merged = settled.memory_id as string;
      assert.deepEqual(linkOf(m, a.memory_id), {
        status: 'superseded',
        by: merged,
        supersedes: undefined,
      });
      assert.deepEqual(linkOf(m, merged).supersedes, [a.memory_id]);
      assert.deepEqual(linkOf(m, b.memory_id), {
        status: 'archived',
        by: undefined,
        supersedes: undefined,
      });
    });

    it('gc archiving instead, in another namespace: the same, kept to that namespace', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const work = m.opened.memoryFor('work');
      const [older, newer] = await pair(work, 'Fay');
      const [homeOlder] = await pair(m.memory, 'Fay');
      m.clock.advanceDays(400);
      await work.writing.touch({ memory_id: older });
      const run = await work.forgetting.gc({ dry_run: false, archive_instead: true });
      assert.deepEqual(run.memory_ids, [newer]);
      assert.deepEqual(
        run.superseded_undone?.map((s) => s.memory_id),
        [older],
      );
      assert.equal(linkOf(m, older, 'work').status, 'active');
      assert.equal(linkOf(m, newer, 'work').status, 'archived');
      assert.equal(linkOf(m, homeOlder).status, 'superseded', 'the default namespace is untouched');
    });
  });
}

describe('a supersession chain through consolidation', () => {
  it('the merged memory supersedes what a member had superseded', async (t) => {
    const A = 'The staging database password rotates every week.';
    const B = 'The staging database password rotates every thirty days. Ask Dana for it.';
    const C = 'The staging database password rotates every thirty days! Ask Dana for it.';
    const m = await openTestMemory({ MNEMO_EMBEDDINGS: 'static' }, undefined, {
      judgeFacts: tableJudge({ [B]: { [A]: 'supersedes' } }),
    });
    t.after(() => m.close());
    await m.opened.readiness.wait('embeddings');
    const a = await m.memory.writing.save({ content: A });
    const b = await m.memory.writing.save({ content: B });
    assert.deepEqual(
      b.supersedes.map((s) => s.memory_id),
      [a.memory_id],
    );
    await m.memory.writing.save({ content: C });
    const applied = await m.memory.consolidation.consolidate({ auto_detect: true, mode: 'apply' });
    const merged = applied.consolidations[0]?.memory_id as string;
    assert.ok(merged, 'the two close ones merged');
    assert.deepEqual(linkOf(m, a.memory_id), {
      status: 'superseded',
      by: merged,
      supersedes: undefined,
    });
    assert.deepEqual(linkOf(m, merged).supersedes, [a.memory_id]);
    assert.equal(linkOf(m, b.memory_id).supersedes, undefined);
  });
});
