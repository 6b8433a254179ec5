// A supersession chain when one of its memories goes: deleted, archived or forgotten by gc. The
// older memory never points at a memory that is gone; it is current again, or superseded by what
// superseded the one that went.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Memory } from '../../src/memory/index.js';
import { ENGINES, type Engine, engineAbsent, openTestMemory, type TestMemory } from '../support.js';
import { ruleJudge } from './fact-rules.js';

const open = (engine: Engine) => openTestMemory({}, undefined, { engine, judgeFacts: ruleJudge });

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
